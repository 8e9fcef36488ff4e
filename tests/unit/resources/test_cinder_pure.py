"""The Cinder types' pure parts: schemas, checks, update and replacement rules, texts."""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

import pytest

from hotplate.model.errors import NotSupported, StackValidationFailed
from hotplate.resources.base import Resource
from hotplate.resources.heat_types import HEAT_TYPES
from hotplate.resources.openstack.cinder.api import cinder_error, version_tuple
from hotplate.resources.openstack.cinder.aws import Volume, VolumeAttachment
from hotplate.resources.openstack.cinder.base import CinderEntity
from hotplate.resources.openstack.cinder.errors import ResourceInError, ResourceUnknownStatus
from hotplate.resources.openstack.cinder.qos import QoSAssociation, QoSSpecs
from hotplate.resources.openstack.cinder.quota import CinderQuota, usage_error
from hotplate.resources.openstack.cinder.volume import CinderVolume
from hotplate.resources.openstack.cinder.volume_attachment import CinderVolumeAttachment
from hotplate.resources.openstack.cinder.volume_base import check_conditions
from hotplate.resources.openstack.cinder.volume_type import (
    CinderEncryptedVolumeType,
    CinderVolumeType,
)
from hotplate.resources.openstack.cinder.volume_update import Attachment, plan_update
from hotplate.resources.openstack.cloud_errors import is_conflict, is_not_found
from hotplate.resources.support import Status

WHERE = ("resources", "vol", "properties")
TYPES: dict[str, type[Resource]] = {
    "OS::Cinder::Volume": CinderVolume,
    "OS::Cinder::VolumeAttachment": CinderVolumeAttachment,
    "OS::Cinder::VolumeType": CinderVolumeType,
    "OS::Cinder::EncryptedVolumeType": CinderEncryptedVolumeType,
    "OS::Cinder::QoSSpecs": QoSSpecs,
    "OS::Cinder::QoSAssociation": QoSAssociation,
    "OS::Cinder::Quota": CinderQuota,
    "AWS::EC2::Volume": Volume,
    "AWS::EC2::VolumeAttachment": VolumeAttachment,
}


def _error(cls: type[Resource], raw: dict[str, Any]) -> str:
    with pytest.raises(StackValidationFailed) as caught:
        cls.validate(raw, WHERE)
    return str(caught.value)


@pytest.mark.parametrize("name", sorted(TYPES))
def test_every_type_is_registered_and_reads_as_heats(name: str) -> None:
    cls = TYPES[name]
    registered = {e.name: e for e in entry_points(group="hotplate.resources")}
    assert registered[name].load() is cls
    assert cls.default_client_name == "cinder"
    heat = HEAT_TYPES[name]
    assert heat.client == "cinder"
    assert heat.heat_class in (cls.__name__, cls.heat_class_name)
    assert heat.extension == cls.required_service_extension
    for schema in cls.properties_schema.values():
        assert schema.description or schema.support_status.status is Status.HIDDEN


def test_a_volume_needs_a_size_or_one_source() -> None:
    assert _error(CinderVolume, {}).endswith(
        'If neither "backup_id" nor "size" is provided, one and only one of "source_volid", '
        '"snapshot_id" must be specified, but currently specified options: [].')
    assert _error(CinderVolume, {"snapshot_id": "s", "source_volid": "v"}).endswith(
        "currently specified options: ['snapshot_id', 'source_volid'].")
    assert _error(CinderVolume, {"size": 1, "image": "i", "snapshot_id": "s"}).endswith(
        'If "size" is provided, only one of "image", "imageRef", "source_volid", '
        "\"snapshot_id\" can be specified, but currently specified options: "
        "['snapshot_id', 'image'].")
    for fine in ({"size": 1}, {"snapshot_id": "s"}, {"source_volid": "v"},
                 {"backup_id": "b"}, {"size": 2, "image": "cirros"}):
        CinderVolume.validate(fine, WHERE)
    # Without a size an image is not enough (Cinder needs one), as in Heat.
    assert "currently specified options: ['image']" in _error(CinderVolume, {"image": "i"})


def test_a_source_not_known_yet_counts_as_given() -> None:
    CinderVolume.validate_known({"size": None}, frozenset({"size"}), WHERE)
    CinderVolume.validate_known({"snapshot_id": "x"}, frozenset({"snapshot_id"}), WHERE)
    with pytest.raises(StackValidationFailed):
        CinderVolume.validate_known({"size": 1, "image": "i", "snapshot_id": "x"},
                                    frozenset({"snapshot_id"}), WHERE)


def test_image_ref_is_the_old_name_of_image() -> None:
    props = CinderVolume.validate({"imageRef": "abc", "size": 1}, WHERE)
    assert props["image"] == "abc" and props["imageRef"] is None
    assert "image, imageRef" in _error(CinderVolume, {"imageRef": "a", "image": "b", "size": 1})


def test_what_a_volume_change_replaces() -> None:
    old = CinderVolume.validate({"size": 1, "name": "a"}, WHERE)
    for key, value in (("size", 2), ("name", "b"), ("description", "d"),
                       ("metadata", {"k": "v"}), ("volume_type", "fast"),
                       ("read_only", True), ("backup_id", "b")):
        assert not CinderVolume.needs_replacement(old, {**old, key: value}), key
    for key, value in (("availability_zone", "z"), ("snapshot_id", "s"), ("image", "i"),
                       ("source_volid", "v"), ("scheduler_hints", {"a": "b"})):
        assert CinderVolume.needs_replacement(old, {**old, key: value}), key


def test_attachments_update_in_place_and_aws_ones_not_at_all() -> None:
    old = {"instance_uuid": "s", "volume_id": "v", "mountpoint": None}
    for key in old:
        assert not CinderVolumeAttachment.needs_replacement(old, {**old, key: "x"})
    aws = {"InstanceId": "s", "VolumeId": "v", "Device": "/dev/vdb"}
    with pytest.raises(NotSupported, match="Update to properties Device of att "
                       r"\(AWS::EC2::VolumeAttachment\) is not supported."):
        VolumeAttachment.check_immutable(aws, {**aws, "Device": "/dev/vdc"}, name="att",
                                         type_name="AWS::EC2::VolumeAttachment")
    assert "Device" in _error(VolumeAttachment, {**aws, "Device": "/dev/sdb"})
    assert "Property AvailabilityZone not assigned" in _error(Volume, {"Size": 1})


def test_update_steps_follow_heats_rules() -> None:
    attached = {"size": 1, "attachments": [{"server_id": "srv", "id": "vol",
                                            "device": "/dev/vdb"}]}
    here = Attachment("srv", "vol", "/dev/vdb")
    plan = plan_update({"size": 2}, attached, extend_in_use=True)
    assert plan.extend == 2 and plan.reattach is None and plan.slow
    plan = plan_update({"size": 2}, attached, extend_in_use=False)
    assert plan.extend == 2 and plan.reattach == here
    plan = plan_update({"read_only": True}, attached, extend_in_use=True)
    assert plan.access and plan.read_only is True and plan.reattach == here
    plan = plan_update({"backup_id": "b"}, {"size": 1}, extend_in_use=True)
    assert plan.restore == "b" and plan.reattach is None
    assert not plan_update({"size": 1, "name": "x"}, attached, extend_in_use=True).slow
    with pytest.raises(NotSupported, match=r"^Shrinking volume is not supported\.$"):
        plan_update({"size": 1}, {"size": 2}, extend_in_use=True)


def test_failures_read_as_heats() -> None:
    assert str(ResourceInError("error")) == 'Went to status error due to "Unknown"'
    assert str(ResourceInError("error_deleting", "delete")) == \
        'Went to status error_deleting due to "delete"'
    assert str(ResourceUnknownStatus("weird", result="Volume create failed")) == \
        'Volume create failed - Unknown status weird due to "Unknown"'
    with pytest.raises(Exception, match=r"^'status': expected '\['available', 'in-use'\]', "
                       "got 'error'$") as caught:
        check_conditions("status", ["available", "in-use"], "error")
    assert type(caught.value).__name__ == "Error"
    error = usage_error("volumes", 1, 2)
    assert isinstance(error, ValueError) and str(error) == (
        "Invalid quota volumes value(s): 1. Can not be less than the current usage "
        "value(s): 2.")
    assert usage_error("volumes", 2, 2) is None


def test_cinderclient_names_and_texts() -> None:
    from hotplate.cloud.errors import CloudConflict, CloudError, CloudNotFound

    missing = cinder_error(CloudNotFound("x", 404), "Volume v could not be found.", "req-1")
    assert type(missing).__name__ == "NotFound" and is_not_found(missing)
    assert str(missing) == "Volume v could not be found. (HTTP 404) (Request-ID: req-1)"
    busy = cinder_error(CloudConflict("x", 409), "busy")
    assert type(busy).__name__ == "ClientException" and is_conflict(busy)
    assert type(cinder_error(CloudError("x", 400), "bad")).__name__ == "BadRequest"
    assert version_tuple("3.71") > version_tuple("3.9")


def test_admin_type_checks_say_what_heat_says() -> None:
    assert _error(CinderVolumeType, {"name": "t", "projects": ["p"]}).endswith(
        'Can not specify property "projects" if the volume type is public.')
    CinderVolumeType.validate({"name": "t", "projects": ["p"], "is_public": False}, WHERE)
    assert _error(CinderQuota, {"project": "p"}).endswith(
        "At least one of the following properties must be specified: gigabytes, snapshots, "
        "volumes, backups, backup_gigabytes.")
    CinderQuota.validate({"project": "p", "volumes": -1}, WHERE)
    assert "cipher" in _error(CinderEncryptedVolumeType,
                              {"provider": "p", "volume_type": "t", "cipher": "rot13"})
    old = {"qos_specs": "q", "volume_types": ["a"]}
    assert not QoSAssociation.needs_replacement(old, {**old, "volume_types": ["b"]})
    assert QoSAssociation.needs_replacement(old, {**old, "qos_specs": "r"})
    assert QoSSpecs.needs_replacement({"name": "a", "specs": {}}, {"name": "b", "specs": {}})
    assert issubclass(CinderQuota, CinderEntity)
