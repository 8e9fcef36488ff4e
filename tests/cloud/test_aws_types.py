"""The AWS-compatible types against the project's real cloud, through ``openstack stack ...``.

hotplate serves in Keystone mode with Heat's ``[trustee]``; each test drives it with
the unchanged openstack CLI as a user of the cloud's second project (``OS_AWS_CLOUD``,
default ``hotplate-alt-demo``) and reads the result back from the cloud. Stacks and
cloud objects are named ``aw-...``; ``cloud_leaks`` fails a test that leaves one behind.

An instance group's launch configuration makes no server, but its ``ImageId`` and
``InstanceType`` are checked against Glance and Nova when the stack is validated,
as Heat checks them (its members here are a provider template).
"""

from __future__ import annotations

import dataclasses
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cloud.leaks import cloud_leaks  # noqa: F401  (a fixture)
from tests.cloud.locate import Cloud
from tests.cloud.serving import Serving, keystone_serve
from tests.cloud.test_neutron_types import STARTS, _answered_by, _cli, _extra, _outputs

pytestmark = pytest.mark.usefixtures("cloud_leaks")
LEAK_PREFIX = "aw-"
"""Every object these tests make is named so (``cloud_leaks``)."""

AWS_CLOUD = os.environ.get("OS_AWS_CLOUD") or "hotplate-alt-demo"
IMAGE, FLAVOR = "cirros-fake", "m1.tiny"


@pytest.fixture(scope="module")
def aws_cloud(cloud: Cloud) -> Cloud:
    return dataclasses.replace(cloud, user=AWS_CLOUD)


@pytest.fixture(scope="module")
def served(aws_cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    """hotplate on the catalog's ports (as test_neutron_types' ``served``)."""
    for _ in range(STARTS):
        tmp = Path(tmp_path_factory.mktemp("aws-serve"))
        with keystone_serve(aws_cloud, tmp, extra=_extra(aws_cloud)) as serving:
            if _answered_by(serving):
                yield serving
                return
        time.sleep(1.0)
    pytest.fail(f"the catalog's ports stayed taken by other servers ({STARTS} starts)")


GROUP = """heat_template_version: 2013-05-23
parameters:
  image: {type: string}
  flavor: {type: string}
resources:
  config:
    type: AWS::AutoScaling::LaunchConfiguration
    properties:
      ImageId: {get_param: image}
      InstanceType: {get_param: flavor}
      SecurityGroups: [default]
      UserData: hello
  group:
    type: OS::Heat::InstanceGroup
    properties:
      AvailabilityZones: [nova]
      LaunchConfigurationName: {get_resource: config}
      Size: 2
outputs:
  list: {value: {get_attr: [group, InstanceList]}}
"""

MEMBER = """heat_template_version: 2013-05-23
parameters:
  ImageId: {type: string}
  InstanceType: {type: string}
  SecurityGroups: {type: comma_delimited_list}
  UserData: {type: string}
  Tags: {type: comma_delimited_list}
outputs:
  PublicIp: {value: {get_param: ImageId}}
"""


def _files(served: Serving) -> tuple[str, str]:
    """The template and an environment mapping AWS::EC2::Instance to the member."""
    folder = served.tmp / f"aw-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    (folder / "group.yaml").write_text(GROUP)
    (folder / "member.yaml").write_text(MEMBER)
    (folder / "env.yaml").write_text("resource_registry:\n  AWS::EC2::Instance: member.yaml\n")
    return str(folder / "group.yaml"), str(folder / "env.yaml")


def _name() -> str:
    return f"aw-{uuid.uuid4().hex[:8]}"


def _create(served: Serving, name: str, image: str, flavor: str) -> Any:
    template, env = _files(served)
    return _cli(served, "stack", "create", "--wait", "-t", template, "-e", env,
                "--parameter", f"image={image}", "--parameter", f"flavor={flavor}",
                name, "-f", "json", check=False)


@pytest.mark.parametrize(("image", "flavor", "error"), [
    ("aw-no-such-image", FLAVOR,
     "resources.config.properties.ImageId: Error validating value 'aw-no-such-image': "
     "No images matching {'name': 'aw-no-such-image'}."),
    (IMAGE, "aw-no-such-flavor",
     "resources.config.properties.InstanceType: Error validating value "
     "'aw-no-such-flavor': "),
])
def test_launch_configuration_image_and_flavor_are_checked(
        served: Serving, image: str, flavor: str, error: str) -> None:
    name = _name()
    done = _create(served, name, image, flavor)
    try:
        assert done.returncode != 0
        assert error in done.stderr, done.stderr
    finally:
        _cli(served, "stack", "delete", "--yes", "--wait", name, check=False)


def test_instance_group_of_provider_members(served: Serving) -> None:
    name = _name()
    try:
        done = _create(served, name, IMAGE, FLAVOR)
        assert done.returncode == 0, done.stderr + served.log.read_text()[-4000:]
        shown = _cli(served, "stack", "show", name, "-f", "json")
        assert shown["stack_status"] == "CREATE_COMPLETE"
        assert _outputs(shown)["list"] == f"{IMAGE},{IMAGE}"
    finally:
        _cli(served, "stack", "delete", "--yes", "--wait", name, check=False)
