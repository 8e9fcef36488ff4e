"""Heat's type table and the availability rule over it (a catalog here is a set of
service types: the rule asks nothing else of it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hotplate.resources import Resource
from hotplate.resources.availability import (
    admin_only,
    forbidden_message,
    needs_of,
    unavailable_reason,
)
from hotplate.resources.heat_types import ADMIN_ONLY_TYPES, HEAT_TYPES
from hotplate.resources.none import NoneResource
from hotplate.resources.registry import Registry
from hotplate.resources.support import Status

ROOT = Path(__file__).resolve().parents[3]
MIRROR = os.environ.get("HEAT_MIRROR", "/work/.mirror/openstack+heat/repo")


class Catalog:
    def __init__(self, *service_types: str, extensions: tuple[str, ...] = ()) -> None:
        self.types = set(service_types)
        self.extensions = set(extensions)
        self.asked: list[str] = []

    def endpoint_exists(self, client: str, service_type: str) -> bool:
        self.asked.append(service_type)
        return service_type in self.types

    def has_extension(self, client: str, alias: str) -> bool:
        return alias in self.extensions


def test_every_type_heat_registers_is_known() -> None:
    assert len(HEAT_TYPES) == 201
    assert HEAT_TYPES["OS::Nova::Server"].client == "nova"
    assert HEAT_TYPES["OS::Neutron::Port"].client == "neutron"
    assert HEAT_TYPES["OS::Cinder::Volume"].client == "cinder"
    assert HEAT_TYPES["OS::Glance::WebImage"].client == "glance"
    assert HEAT_TYPES["OS::Keystone::Project"].client == "keystone"
    assert HEAT_TYPES["OS::Swift::Container"].client == "swift"
    assert HEAT_TYPES["OS::Neutron::Trunk"].extension == "trunk"
    assert HEAT_TYPES["OS::Aodh::Alarm"].status is Status.DEPRECATED
    assert HEAT_TYPES["OS::Sahara::Cluster"].placeholder
    assert HEAT_TYPES["OS::Heat::None"].client is None


@pytest.mark.skipif(not Path(MIRROR).exists(), reason=f"no Heat mirror at {MIRROR}")
def test_the_table_is_what_the_generator_writes() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "heat_types.py"), "--check"],
                          env={**os.environ, "HEAT_MIRROR": MIRROR}, check=False)
    assert done.returncode == 0, "run scripts/heat_types.py to regenerate the table"


def test_admin_only_types() -> None:
    assert admin_only("OS::Nova::Flavor") and admin_only("OS::Keystone::User")
    assert not admin_only("OS::Nova::Server")
    assert "OS::Keystone::*" in ADMIN_ONLY_TYPES
    assert forbidden_message("OS::Nova::Flavor") == (
        "You are not authorized to use resource_types:OS::Nova::Flavor.")
    assert forbidden_message("OS::Keystone::User") == (
        "You are not authorized to use OS::Keystone::User.")


def test_the_engines_own_types_ask_nothing_of_the_catalog() -> None:
    catalog = Catalog()
    assert unavailable_reason("OS::Heat::None", NoneResource, catalog) is None
    assert catalog.asked == []


def test_a_plugin_with_its_service_is_available_with_the_catalog() -> None:
    class Server(Resource):
        default_client_name = "nova"

    assert unavailable_reason("X::Server", Server, Catalog("compute")) is None
    assert unavailable_reason("X::Server", Server, Catalog("network")) == (
        "nova", "nova compute endpoint is not in service catalog.")


def test_an_extension_is_required_too() -> None:
    class Trunk(Resource):
        default_client_name = "neutron"
        required_service_extension = "trunk"

    assert unavailable_reason("X::Trunk", Trunk, Catalog("network", extensions=("trunk",))) \
        is None
    assert unavailable_reason("X::Trunk", Trunk, Catalog("network")) == (
        "neutron", "Required extension trunk in neutron service is not available.")


def test_an_unimplemented_heat_type() -> None:
    assert needs_of("OS::Nova::Server", None).implemented is False
    assert unavailable_reason("OS::Nova::Server", None, Catalog()) == (
        "nova", "nova compute endpoint is not in service catalog.")
    assert unavailable_reason("OS::Nova::Server", None, Catalog("compute")) == (
        "nova", "this engine does not implement it yet")
    assert unavailable_reason("OS::Heat::Delay", None, Catalog()) == (
        "heat", "this engine does not implement it yet")


def test_an_unknown_client_is_not_available() -> None:
    class Odd(Resource):
        default_client_name = "oddity"

    assert unavailable_reason("X::Odd", Odd, Catalog()) == (
        "oddity", "The client (oddity) is not available.")


def test_retired_types_load_as_hidden_placeholders() -> None:
    cls = Registry.default().get("OS::Senlin::Cluster")
    assert issubclass(cls, NoneResource)
    assert cls.support_status.status is Status.HIDDEN
