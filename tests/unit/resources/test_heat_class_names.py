"""The names Heat's own classes carry, which its timed-out actions print."""

from __future__ import annotations

import pytest

from hotplate.resources.base import Resource, heat_class_name
from hotplate.resources.registry import Registry

HEAT_CLASSES = {
    "AWS::CloudFormation::WaitCondition": "WaitCondition",
    "AWS::CloudFormation::WaitConditionHandle": "WaitConditionHandle",
    "OS::Heat::AutoScalingGroup": "AutoScalingResourceGroup",
    "OS::Heat::ScalingPolicy": "AutoScalingPolicy",
    "OS::Heat::Stack": "RemoteStack",
    "OS::Heat::WaitCondition": "HeatWaitCondition",
    "OS::Heat::SoftwareDeployment": "SoftwareDeployment",
    "OS::Heat::None": "NoneResource",
    "OS::Heat::TestResource": "TestResource",
}


@pytest.mark.parametrize(("type_name", "heat_name"), sorted(HEAT_CLASSES.items()))
def test_each_type_is_named_as_in_heat(type_name: str, heat_name: str) -> None:
    assert heat_class_name(Registry.default().get(type_name)) == heat_name


def test_a_subclass_is_named_after_itself_not_its_parent() -> None:
    class Renamed(Resource):
        heat_class_name = "Other"

    class Plugin(Renamed):
        pass

    assert heat_class_name(Renamed) == "Other"
    assert heat_class_name(Plugin) == "Plugin"
