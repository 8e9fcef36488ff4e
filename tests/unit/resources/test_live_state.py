"""The live-state hooks (resources/live_state.py) and the types' readings of a cloud
document: parsing only, the documents given as the services answer them."""

from __future__ import annotations

from typing import Any

import pytest

from hotplate.model.errors import EntityNotFound
from hotplate.resources import Resource
from hotplate.resources.openstack.attempt_marks import ATTEMPT_METADATA_KEY, attempt_tag
from hotplate.resources.openstack.cinder.volume import CinderVolume
from hotplate.resources.openstack.neutron.net import Net
from hotplate.resources.openstack.neutron.port import Port
from hotplate.resources.openstack.nova.server import Server
from hotplate.resources.properties import Schema
from hotplate.resources.random_string import RandomString
from tests.unit.resources.fakes import FakeContext, make


class Shown(Resource):
    """A type whose ``show`` is a document the test sets."""

    live_state = True
    properties_schema = {
        "name": Schema(Schema.STRING, update_allowed=True),
        "size": Schema(Schema.INTEGER, update_allowed=True),
        "zone": Schema(Schema.STRING),
        "labels": Schema(Schema.MAP, update_allowed=True),
        "rules": Schema(Schema.MAP, update_allowed=True, schema={"a": Schema(Schema.STRING)}),
    }
    document: Any = None

    def _show_resource(self) -> Any:
        if isinstance(self.document, Exception):
            raise self.document
        return self.document


class _NotFound(Exception):
    status = 404


def test_default_reading_is_update_allowed_properties_under_their_names() -> None:
    shown = make(Shown, {"size": 1}, resource_id="x")
    shown.document = {"name": "given by the cloud", "size": 2, "zone": "az2", "extra": 1}
    # name: the template gave none, so the cloud's is the physical name; zone: not
    # update-allowed; extra: no such property.
    assert shown.get_live_state(shown.properties) == {"size": 2}
    named = make(Shown, {"name": "web"}, resource_id="x")
    named.document = {"name": "renamed"}
    assert named.get_live_state(named.properties) == {"name": "renamed"}


def test_nothing_read_without_live_state_or_object() -> None:
    assert make(Shown, {}).get_live_state({}) == {}  # no physical id yet
    empty = make(Shown, {}, resource_id="x")
    empty.document = None
    assert empty.get_live_state({}) == {}
    assert RandomString.live_state is False
    assert make(RandomString, {}, resource_id="x").get_live_state({}) == {}


def test_a_gone_object_is_entity_not_found() -> None:
    gone = make(Shown, {}, name="vol", resource_id="x")
    gone.document = _NotFound("404")
    with pytest.raises(EntityNotFound, match=r"The Resource \(vol\) could not be found"):
        gone.get_live_state({})
    broken = make(Shown, {}, resource_id="x")
    broken.document = RuntimeError("503")
    with pytest.raises(RuntimeError):
        broken.get_live_state({})


def test_free_form_properties_are_maps_without_schema() -> None:
    assert Shown.free_form_properties() == frozenset({"labels"})
    assert "metadata" in CinderVolume.free_form_properties()
    assert "value_specs" in Net.free_form_properties()


def test_as_given_keeps_the_templates_spelling_of_the_same_object() -> None:
    shown = make(Shown, {}, resource_id="x")
    assert shown.as_given("network", None, "n-1") == "n-1"
    assert shown.as_given("network", "n-1", "n-1") == "n-1"
    assert shown.as_given("network", "n-1", None) is None


def test_neutron_reading_leaves_marks_out() -> None:
    port = make(Port, {"network": "n-1", "name": "p", "tags": ["mine"],
                       "value_specs": {"binding:host_id": "h1"}},
                name="port", resource_id="p-1")
    live = port.parse_live_resource_data(port.properties, {
        "name": "p", "tags": ["mine", attempt_tag("token")], "binding:host_id": "h2",
        "binding:vnic_type": "normal", "device_id": "server-1", "device_owner": "compute:nova",
        "fixed_ips": [{"subnet_id": "s-1", "ip_address": "10.0.0.5"}],
        "qos_policy_id": None, "admin_state_up": True})
    assert live["tags"] == ["mine"]
    assert live["value_specs"] == {"binding:host_id": "h2"}  # only the keys given
    assert live["fixed_ips"] == [{"subnet": "s-1", "subnet_id": "s-1",
                                  "ip_address": "10.0.0.5"}]
    assert "device_id" not in live and "device_owner" not in live  # a server bound it
    assert live["qos_policy"] is None and live["admin_state_up"] is True


def test_net_reading() -> None:
    net = make(Net, {"name": "n"}, name="net", resource_id="n-1")
    live = net.parse_live_resource_data(net.properties, {
        "name": "n", "shared": True, "admin_state_up": False, "qos_policy_id": None})
    assert "shared" not in live and "dhcp_agent_ids" not in live
    assert live["admin_state_up"] is False and live["name"] == "n"


def test_volume_reading() -> None:
    ctx = FakeContext(resource_name="vol", stored={"volume_type": "fast"})
    volume = make(CinderVolume, {"size": 1, "metadata": {"a": "1"}}, ctx=ctx,
                  resource_id="v-1")
    document = {"size": 2, "name": "physical-name", "description": None,
                "volume_type": "fast",
                "metadata": {"a": "1", ATTEMPT_METADATA_KEY: "mark", "readonly": "True"}}
    live = volume.parse_live_resource_data(volume.properties, document)
    assert live == {"size": 2, "metadata": {"a": "1"}, "read_only": True}
    retyped = volume.parse_live_resource_data(volume.properties,
                                              {**document, "volume_type": "slow"})
    assert retyped["volume_type"] == "slow"
    named = make(CinderVolume, {"size": 1, "name": "data"}, ctx=ctx, resource_id="v-1")
    assert named.parse_live_resource_data(named.properties, {"name": "x"})["name"] == "x"


def test_server_reading() -> None:
    server = make(Server, {"image": "img-1", "flavor": "m1.tiny", "name": "web",
                           "metadata": {"role": "web"}, "tags": ["blue"]},
                  name="server", resource_id="s-1")
    live = server.parse_live_resource_data(server.properties, {
        "name": "web", "metadata": {"role": "web"},
        "tags": ["blue", attempt_tag("token")],
        "flavor": {"original_name": "m1.tiny", "vcpus": 1}, "image": {"id": "img-1"}})
    assert live == {"name": "web", "metadata": {"role": "web"}, "tags": ["blue"],
                    "flavor": "m1.tiny", "image": "img-1"}
    from_volume = server.parse_live_resource_data(server.properties, {
        "name": "web", "metadata": {}, "tags": [], "flavor": {"id": "1"}, "image": ""})
    assert "image" not in from_volume
