"""The Nova types' pure parts: schemas, checks, replacement rules, status reading, boot data."""

from __future__ import annotations

import email
import json
from typing import Any

import pytest

from hotplate.model.errors import HotplateError, StackValidationFailed
from hotplate.resources.openstack.nova import status as st
from hotplate.resources.openstack.nova.api import nova_error, version_tuple
from hotplate.resources.openstack.nova.base import ResourceInError, ResourceUnknownStatus
from hotplate.resources.openstack.nova.keypair import KeyPair
from hotplate.resources.openstack.nova.server import Server, attempt_tag
from hotplate.resources.openstack.nova.server_group import ServerGroup
from hotplate.resources.openstack.nova.user_data import build_userdata
from hotplate.resources.support import Status
from hotplate.resources.translation import Rule

WHERE = ("resources", "vm", "properties")


def _error(raw: dict[str, Any]) -> str:
    with pytest.raises(StackValidationFailed) as caught:
        Server.validate(raw, WHERE)
    return str(caught.value)


@pytest.mark.parametrize("cls", [Server, KeyPair, ServerGroup])
def test_every_type_reads_as_heats(cls: Any) -> None:
    assert cls.default_client_name == "nova"
    for rule in cls.translation_rules:
        assert rule.path[0] in cls.properties_schema
        if rule.rule is Rule.RESOLVE:
            assert rule.finder
    for name, schema in cls.properties_schema.items():
        assert schema.description or schema.support_status.status is Status.HIDDEN, name


def test_old_names_move_to_their_successors() -> None:
    props = Server.validate({"flavor": "f", "image": "i",
                             "networks": [{"uuid": "n"}],
                             "block_device_mapping_v2": [{"image_id": "x", "boot_index": 1}]},
                            WHERE)
    assert props["networks"][0]["network"] == "n"
    assert props["block_device_mapping_v2"][0]["image"] == "x"


def test_server_checks_say_what_heat_says() -> None:
    assert _error({"flavor": "f"}).endswith(
        "Neither image nor bootable volume is specified for instance vm")
    assert _error({"flavor": "f", "image": "i", "networks": [{"fixed_ip": "10.0.0.3"}]}) \
        .endswith('One of the properties "network", "port", "allocate_network" or "subnet" '
                  'should be set for the specified network of server "vm".')
    assert _error({"flavor": "f", "image": "i",
                   "networks": [{"allocate_network": "auto", "network": "n"}]}).endswith(
        'Can not specify "allocate_network" with other keys of networks at the same time.')
    assert _error({"flavor": "f", "image": "i", "security_groups": ["default"],
                   "networks": [{"port": "p"}]}).endswith(
        "Cannot define the following properties at the same time: security_groups, "
        "networks/port.")
    assert _error({"flavor": "f", "image": "i",
                   "networks": [{"network": "n", "floating_ip": "f"}]}).endswith(
        'Property "floating_ip" is not supported if only "network" is specified, because '
        "the corresponding port can not be retrieved.")
    assert _error({"flavor": "f", "image": "i",
                   "block_device_mapping_v2": [{"volume_id": "v"}]}).endswith(
        "Multiple bootable sources for instance vm.")
    Server.validate({"flavor": "f", "block_device_mapping_v2": [{"volume_id": "v"}]}, WHERE)


def test_update_policies_decide_replacement() -> None:
    old = Server.validate({"flavor": "a", "image": "i"}, WHERE)
    assert not Server.needs_replacement(old, {**old, "flavor": "b"})
    assert Server.needs_replacement(old, {**old, "flavor": "b",
                                          "flavor_update_policy": "REPLACE"})
    assert not Server.needs_replacement(old, {**old, "image": "j"})
    assert Server.needs_replacement(old, {**old, "image": "j",
                                          "image_update_policy": "REPLACE"})
    assert Server.needs_replacement(old, {**old, "user_data": "x"})
    assert not Server.needs_replacement(old, {**old, "user_data": "x",
                                              "user_data_update_policy": "IGNORE"})
    assert Server.needs_replacement(old, {**old, "key_name": "k"})
    assert not Server.needs_replacement(old, {**old, "name": "n", "metadata": {"a": 1}})
    keys = KeyPair.validate({"name": "k", "public_key": "x"}, WHERE)
    assert KeyPair.needs_replacement(keys, {**keys, "public_key": "y"})


def test_status_reading_is_heats() -> None:
    assert st.check_active({"status": "BUILD"}) is False
    assert st.check_active({"status": "ACTIVE(x)"}) is True
    with pytest.raises(ResourceInError) as caught:
        st.check_active({"status": "ERROR", "fault": {"message": "No valid host", "code": 500}})
    assert str(caught.value) == 'Went to status ERROR due to "Message: No valid host, Code: 500"'
    with pytest.raises(ResourceUnknownStatus) as unknown:
        st.check_active({"status": "WEIRD"})
    assert str(unknown.value) == ('Server is not active - Unknown status WEIRD due to '
                                  '"Unknown"')
    assert st.check_deleted(None) is True
    assert st.check_deleted({"status": "SOFT_DELETED"}) == "force"
    assert st.check_deleted({"status": "ACTIVE", "OS-EXT-STS:task_state": "deleting"}) is False
    assert st.check_resized({"status": "ACTIVE"}, "m1.small") is False
    assert st.check_resized({"status": "VERIFY_RESIZE"}, "m1.small") is True
    with pytest.raises(HotplateError, match=r"Resizing to 'm1\.small' failed, status 'ERROR'"):
        st.check_resized({"status": "ERROR"}, "m1.small")
    assert st.check_rebuilt({"status": "REBUILD"}) is False
    assert st.check_verified({"status": "VERIFY_RESIZE"}, "s") is False


def test_nova_errors_read_as_novaclients() -> None:
    from hotplate.cloud.errors import CloudError

    error = nova_error(CloudError("x", 400), "Invalid key_name provided.", "req-1")
    assert type(error).__name__ == "BadRequest" and isinstance(error, CloudError)
    assert str(error) == "Invalid key_name provided. (HTTP 400) (Request-ID: req-1)"
    assert version_tuple("2.100") > version_tuple("2.96")


def test_attempt_tag_fits_nova() -> None:
    tag = attempt_tag("some-long-token" * 10)
    assert len(tag) <= 60 and "/" not in tag and "," not in tag
    assert tag == attempt_tag("some-long-token" * 10)


def test_boot_data_formats() -> None:
    assert build_userdata("RAW", "#!/bin/sh", {"a": 1}) == "#!/bin/sh"
    cfn = email.message_from_string(build_userdata("HEAT_CFNTOOLS", "echo", {"a": 1},
                                                   "http://h:8000/v1/") or "")
    parts = [(p.get_content_type(), p.get_filename()) for p in cfn.get_payload()]
    assert parts == [("text/cloud-config", "cloud-config"),
                     ("text/cloud-boothook", "boothook.sh"),
                     ("text/part-handler", "part-handler.py"),
                     ("text/x-cfninitdata", "cfn-userdata"),
                     ("text/x-shellscript", "loguserdata.sh"),
                     ("text/x-cfninitdata", "cfn-init-data"),
                     ("text/x-cfninitdata", "cfn-metadata-server"),
                     ("text/x-cfninitdata", "cfn-boto-cfg")]
    software = email.message_from_string(build_userdata("SOFTWARE_CONFIG", "echo", {}) or "")
    assert [p.get_filename() for p in software.get_payload()] == [
        "cloud-config", "boothook.sh", "part-handler.py", None]
    ignition = json.loads(build_userdata("SOFTWARE_CONFIG", '{"ignition": {"version": "3"}}',
                                         {"a": 1}) or "")
    assert len(ignition["storage"]["files"]) == 2


def test_a_server_waits_for_the_subnets_of_its_networks() -> None:
    from hotplate.resources.openstack.neutron.net import Net
    from hotplate.resources.openstack.neutron.subnet import Subnet
    from hotplate.template.implicit_deps import Peer

    peers = {
        "net": Peer("net", Net, {}),
        "mine": Peer("mine", Subnet, {"network": "net"}),
        "other": Peer("other", Subnet, {"network": "elsewhere"}),
        "unknown": Peer("unknown", Subnet, {}),
    }
    server = Peer("vm", Server, {"networks": [{"network": "net"}]})
    assert sorted(Server.implicit_requires(server, peers)) == ["mine", "unknown"]
    by_port = Peer("vm", Server, {"networks": [{"port": "p"}]})  # network not known: all
    assert sorted(Server.implicit_requires(by_port, peers)) == ["mine", "other", "unknown"]
    assert list(Server.implicit_requires(Peer("vm", Server, {}), peers)) == []


def test_block_device_mappings_read_as_novaclients() -> None:
    assert Server._bdm_v1([{"device_name": "vda", "volume_id": "v", "volume_size": 2,
                            "delete_on_termination": True}]) == [
        {"device_name": "vda", "volume_id": "v", "volume_size": 2,
         "delete_on_termination": True}]
    assert Server._bdm_v2([{"volume_id": "v", "boot_index": 0},
                           {"swap_size": 512},
                           {"ephemeral_size": 1, "ephemeral_format": "ext4",
                            "device_name": "vdc"}]) == [
        {"uuid": "v", "source_type": "volume", "destination_type": "volume",
         "boot_index": 0, "delete_on_termination": False},
        {"source_type": "blank", "destination_type": "local", "boot_index": -1,
         "delete_on_termination": True, "guest_format": "swap", "volume_size": 512},
        {"source_type": "blank", "destination_type": "local", "boot_index": -1,
         "delete_on_termination": True, "volume_size": 1, "guest_format": "ext4",
         "device_name": "vdc"}]
    image = Server._bdm_v2([{"image": "i", "volume_size": 1, "volume_type": "fast"}])
    assert image == [{"uuid": "i", "source_type": "image", "destination_type": "volume",
                      "boot_index": 0, "delete_on_termination": False, "volume_size": 1,
                      "volume_type": "fast"}]


def test_metadata_values_go_to_nova_as_strings() -> None:
    assert Server.meta_serialize({"a": "x", "b": 1, "c": {"d": [1]}}) == {
        "a": "x", "b": "1", "c": '{"d": [1]}'}
