"""A resource type becomes available with its service in the caller's catalog: listed,
shown and accepted for a caller whose token lists the service, refused in Heat's words
when the catalog lacks it (the cloud has no object-store) or the caller has no catalog."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hotplate.app import Engine
from hotplate.model.errors import ResourceTypeUnavailable
from hotplate.resources import Resource
from hotplate.resources.registry import Registry
from tests.cloud.clients import token_context
from tests.cloud.engine import engine_on
from tests.cloud.locate import Cloud


class ComputeThing(Resource):
    """A plugin registered with its service: all it takes to be usable with a catalog."""

    default_client_name = "nova"


class ObjectThing(Resource):
    default_client_name = "swift"


REGISTRY = Registry.with_extra({"Test::Compute": ComputeThing, "Test::Object": ObjectThing})


@pytest.fixture(scope="module")
def engine(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with engine_on(Path(tmp_path_factory.mktemp("types")), cloud.region, REGISTRY) as running:
        yield running


def _template(type_name: str) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": {"r": {"type": type_name}}}


def test_a_type_is_listed_once_its_service_is_in_the_catalog(
        cloud: Cloud, user_conn: Any, engine: Engine) -> None:
    with_catalog = engine.service.list_resource_types(token_context(cloud, user_conn))
    without = engine.service.list_resource_types({"project_id": "demo"})
    assert "Test::Compute" in with_catalog
    assert "Test::Compute" not in without
    assert "Test::Object" not in with_catalog  # no object-store in this cloud
    assert "OS::Heat::None" in with_catalog and "OS::Heat::None" in without


def test_a_type_is_usable_once_its_service_is_in_the_catalog(
        cloud: Cloud, user_conn: Any, engine: Engine) -> None:
    ctxt = token_context(cloud, user_conn)
    shown = engine.service.resource_schema(ctxt, "Test::Compute")
    assert shown["resource_type"] == "Test::Compute"
    preview = engine.service.preview_stack(ctxt, "compute", _template("Test::Compute"),
                                           {}, {}, {})
    assert [r["resource_type"] for r in preview["resources"]] == ["Test::Compute"]


def test_a_type_whose_service_is_missing_is_refused(cloud: Cloud, user_conn: Any,
                                                    engine: Engine) -> None:
    ctxt = token_context(cloud, user_conn)
    with pytest.raises(ResourceTypeUnavailable) as caught:
        engine.service.preview_stack(ctxt, "obj", _template("OS::Swift::Container"), {}, {}, {})
    assert str(caught.value) == (
        "HEAT-E99001 Service swift is not available for resource type OS::Swift::Container, "
        "reason: swift object-store endpoint is not in service catalog.")
    with pytest.raises(ResourceTypeUnavailable) as caught:
        engine.service.resource_schema(ctxt, "Test::Object")
    assert str(caught.value).endswith("reason: Service endpoint not in service catalog.")


def test_a_type_heat_has_and_no_plugin_implements_says_so(
        cloud: Cloud, user_conn: Any, engine: Engine) -> None:
    ctxt = token_context(cloud, user_conn)
    with pytest.raises(ResourceTypeUnavailable) as caught:
        engine.service.preview_stack(ctxt, "vpc", _template("AWS::EC2::VPC"), {}, {}, {})
    assert str(caught.value) == (
        "HEAT-E99001 Service neutron is not available for resource type AWS::EC2::VPC, "
        "reason: this engine does not implement it yet")


def test_an_extension_the_service_lacks_hides_the_type(cloud: Cloud, user_conn: Any,
                                                       engine: Engine) -> None:
    class VpnThing(Resource):
        default_client_name = "neutron"
        required_service_extension = "vpnaas"

    from hotplate.engine.service.type_access import TypeAccess

    access = TypeAccess.for_context(token_context(cloud, user_conn), engine.deps.clouds)
    assert not access.listed("Test::Vpn", VpnThing)
    with pytest.raises(ResourceTypeUnavailable) as caught:
        access.check_available("Test::Vpn", VpnThing)
    assert str(caught.value).endswith(
        "reason: Required extension vpnaas in neutron service is not available.")
