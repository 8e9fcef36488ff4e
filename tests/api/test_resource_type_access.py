"""Which resource types a caller may see and use, through python-heatclient, answered in
Heat's words (each text below is what Heat 27.0.1 answered heatclient on the project's
cloud): a type whose service is not in the caller's catalog (the standalone mode has no
catalog) is not listed and is refused with HEAT-E99001, an admin-only type is neither
listed for nor usable by a non-admin (403), and custom constraints are checked when Heat
checks them (on create, not on ``template validate``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from heatclient import exc

from hotplate.api import EngineRpc, create_app
from hotplate.api.background import BackgroundServer
from hotplate.app import open_store, start_engine
from hotplate.db.auth_store import AuthStore
from hotplate.db.engine import make_engine
from hotplate.engine.clock import SystemClock
from hotplate.resources import Resource
from hotplate.resources.registry import Registry
from hotplate.rpc.inprocess import InProcessTransport
from tests.api.helpers import VERSION

E99001 = "ERROR: HEAT-E99001 Service {} is not available for resource type {}, reason: {}"


class ComputeThing(Resource):
    """A plugin whose service is compute: usable only where the catalog has nova's."""

    default_client_name = "nova"


class AdminThing(Resource):
    """Stands for an admin-only type the engine implements (no service needed)."""


REGISTRY = Registry.with_extra({"Test::Compute": ComputeThing,
                                "OS::Nova::Flavor": AdminThing})


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One engine with the extra types, behind a token API: admin and member tokens."""
    url = f"sqlite:///{Path(tmp_path_factory.mktemp('types')) / 'hotplate.sqlite'}"
    clock = SystemClock()
    transport = InProcessTransport(workers_per_server=4)
    engine = start_engine(open_store(url, clock), transport, clock=clock, work_slots=1,
                          registry=REGISTRY)
    db = make_engine(url, pool_size=2)
    store = AuthStore(db)
    tokens = {"admin": store.create_token("admin", "admin"),
              "member": store.create_token("demo", "member")}
    app = create_app(EngineRpc(transport, host=engine.deps.host), auth=store)
    try:
        with BackgroundServer(app) as base:
            yield {"base": base, "tokens": tokens}
    finally:
        engine.stop()
        transport.stop()
        db.dispose()


def _client(servers: dict[str, Any], who: str) -> Any:
    from heatclient.client import Client

    project = "admin" if who == "admin" else "demo"
    return Client("1", endpoint=f"{servers['base']}/v1/{project}",
                  token=servers["tokens"][who])


@pytest.fixture
def admin(servers: dict[str, Any]) -> Any:
    return _client(servers, "admin")


@pytest.fixture
def member(servers: dict[str, Any]) -> Any:
    return _client(servers, "member")


def _template(type_name: str, **properties: Any) -> dict[str, Any]:
    resource: dict[str, Any] = {"type": type_name}
    if properties:
        resource["properties"] = properties
    return {"heat_template_version": VERSION, "resources": {"r": resource}}


def _error(call: Any, kind: type[Exception] = exc.HTTPBadRequest) -> str:
    with pytest.raises(kind) as caught:
        call()
    return str(caught.value)


def _names(client: Any) -> set[str]:
    return {t.resource_type for t in client.resource_types.list()}


def test_a_type_without_its_service_is_not_listed(admin: Any) -> None:
    listed = _names(admin)
    assert "OS::Heat::None" in listed
    assert not listed & {"Test::Compute", "OS::Nova::Server", "OS::Neutron::Net",
                         "OS::Swift::Container", "OS::Sahara::Cluster"}


def test_show_refuses_a_type_without_its_service(admin: Any) -> None:
    for type_name, service in (("OS::Swift::Container", "swift"),
                               ("OS::Nova::Server", "nova"), ("Test::Compute", "nova")):
        assert _error(lambda t=type_name: admin.resource_types.get(t)) == E99001.format(
            service, type_name, "Service endpoint not in service catalog.")
    assert _error(lambda: admin.resource_types.get("OS::Sahara::Cluster")) == (
        "ERROR: OS::Sahara::Cluster is not supported.")
    assert _error(lambda: admin.resource_types.get("OS::No::Such"), exc.HTTPNotFound) == (
        "ERROR: The Resource Type (OS::No::Such) could not be found.")


@pytest.mark.parametrize(("type_name", "service", "service_type"), [
    ("OS::Swift::Container", "swift", "object-store"),
    ("OS::Nova::Server", "nova", "compute"),
    ("OS::Neutron::Net", "neutron", "network"),
    ("OS::Cinder::Volume", "cinder", "volumev3"),
    ("Test::Compute", "nova", "compute"),
])
def test_validate_and_create_refuse_a_type_without_its_service(
        admin: Any, type_name: str, service: str, service_type: str) -> None:
    expected = E99001.format(service, type_name,
                             f"{service} {service_type} endpoint is not in service catalog.")
    template = _template(type_name)
    assert _error(lambda: admin.stacks.validate(template=template)) == expected
    assert _error(lambda: admin.stacks.create(stack_name="nope", template=template)) == expected
    assert _error(lambda: admin.stacks.preview(stack_name="nope", template=template)) == expected


def test_validate_may_ignore_an_unavailable_type(admin: Any) -> None:
    template = _template("OS::Nova::Server")
    template["resources"]["v"] = {"type": "OS::Heat::Value", "properties": {"value": 1}}
    shown = admin.stacks.validate(template=template, ignore_errors="99001")
    assert shown["Parameters"] == {}


def test_a_nested_template_with_an_unavailable_type_is_refused_at_the_root(admin: Any) -> None:
    child = {"heat_template_version": VERSION,
             "resources": {"s": {"type": "OS::Nova::Server"}}}
    template = _template("OS::Heat::ResourceGroup", count=1,
                         resource_def={"type": "child.yaml"})
    expected = E99001.format("nova", "OS::Nova::Server",
                             "nova compute endpoint is not in service catalog.")
    assert _error(lambda: admin.stacks.create(
        stack_name="nested", template=template,
        files={"child.yaml": json.dumps(child)})) == expected


def test_admin_only_types_are_hidden_from_and_refused_to_non_admins(
        admin: Any, member: Any) -> None:
    assert "OS::Nova::Flavor" in _names(admin)
    assert "OS::Nova::Flavor" not in _names(member)
    forbidden = "ERROR: You are not authorized to use resource_types:OS::Nova::Flavor."
    assert _error(lambda: member.resource_types.get("OS::Nova::Flavor"),
                  exc.HTTPForbidden) == forbidden
    assert _error(lambda: member.stacks.create(
        stack_name="flavor", template=_template("OS::Nova::Flavor")),
        exc.HTTPForbidden) == forbidden
    # A namespace rule names the type itself.
    assert _error(lambda: member.resource_types.get("OS::Keystone::Project"),
                  exc.HTTPForbidden) == (
        "ERROR: You are not authorized to use OS::Keystone::Project.")
    assert admin.resource_types.get("OS::Nova::Flavor")["resource_type"] == "OS::Nova::Flavor"


def _constrained(constraint: str, default: str) -> dict[str, Any]:
    return {"heat_template_version": VERSION,
            "parameters": {"p": {"type": "string", "default": default,
                                 "constraints": [{"custom_constraint": constraint}]}},
            "resources": {"n": {"type": "OS::Heat::None"}}}


def test_parameter_custom_constraints_are_checked_on_create_not_on_validate(
        member: Any) -> None:
    template = _constrained("ip_addr", "not-an-ip")
    assert member.stacks.validate(template=template)["Parameters"]["p"]["Default"] == (
        "not-an-ip")
    assert _error(lambda: member.stacks.create(stack_name="ip", template=template)) == (
        "ERROR: Parameter 'p' is invalid: Error validating value 'not-an-ip': "
        "Invalid IP address")
    assert _error(lambda: member.stacks.create(
        stack_name="cidr", template=_constrained("net_cidr", "10.0.0.0"))) == (
        "ERROR: Parameter 'p' is invalid: Error validating value '10.0.0.0': "
        "'10.0.0.0' is not a valid IP subnet")
    assert _error(lambda: member.stacks.create(
        stack_name="odd", template=_constrained("no.such", "x"))) == (
        "ERROR: Parameter 'p' is invalid: \"x\" does not validate no.such "
        "(constraint not found)")
    created = member.stacks.create(stack_name="fine", template=_constrained("ip_addr",
                                                                             "10.0.0.1"))
    assert created["stack"]["id"]


def test_a_cloud_constraint_without_a_catalog_fails(member: Any) -> None:
    with pytest.raises(exc.HTTPInternalServerError) as caught:
        member.stacks.create(stack_name="img", template=_constrained("glance.image", "cirros"))
    assert str(caught.value) == "ERROR: Internal Error"
