"""AWS::EC2::Instance's rules that need no cloud: validation, and how it words Nova's
requests and reads Nova's answers."""

from __future__ import annotations

import re

import pytest

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.aws.instance import (
    Instance,
    _block_devices,
    _scheduler_hints,
    first_address,
)

PATH = ("resources", "i", "properties")
BASE = {"ImageId": "cirros", "InstanceType": "m1.tiny"}


def test_groups_and_interfaces_conflict() -> None:
    with pytest.raises(StackValidationFailed, match=re.escape(
            "Cannot define the following properties at the same time: "
            "SecurityGroups/SecurityGroupIds, NetworkInterfaces.")):
        Instance.validate({**BASE, "SecurityGroupIds": ["sg"], "NetworkInterfaces": ["p"]},
                          PATH)


@pytest.mark.parametrize("key", ["KernelId", "Tenancy", "PrivateIpAddress"])
def test_unimplemented_properties_are_refused(key: str) -> None:
    value = "default" if key == "Tenancy" else "x"
    with pytest.raises(StackValidationFailed,
                       match=re.escape(f"Property {key} not implemented yet")):
        Instance.validate({**BASE, key: value}, PATH)


def test_network_changes_replace_tags_and_flavor_do_not() -> None:
    old = Instance.validate({**BASE, "SubnetId": "a"}, PATH)
    assert Instance.needs_replacement(old, {**old, "SubnetId": "b"})
    assert not Instance.needs_replacement(old, {**old, "InstanceType": "m1.small",
                                                "Tags": [{"Key": "k", "Value": "v"}]})
    assert Instance.needs_replacement(old, {**old, "KeyName": "other"})


def test_first_address_of_the_last_network_by_name() -> None:
    addresses = {"alpha": [{"addr": "10.0.0.5"}], "beta": [{"addr": "10.1.0.7"}], "zeta": []}
    assert first_address(addresses) == "10.1.0.7"
    assert first_address({}) == "0.0.0.0"


def test_scheduler_hints_collect_repeated_keys() -> None:
    assert _scheduler_hints([{"Key": "a", "Value": "1"}, {"Key": "a", "Value": "2"},
                             {"Key": "b", "Value": "3"}]) == {"a": ["1", "2"], "b": "3"}


def test_block_devices_from_snapshots() -> None:
    assert _block_devices([{"DeviceName": "vdb", "Ebs": {
        "SnapshotId": "snap", "VolumeSize": "2", "DeleteOnTermination": False}}]) == [
        {"device_name": "vdb", "snapshot_id": "snap", "volume_size": "2",
         "delete_on_termination": "False"}]
