"""Keystone's types, Glance's and the admin's Nova and Neutron types: schemas, checks,
bodies and diffs, pure (no cloud)."""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

import pytest

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.availability import admin_only
from hotplate.resources.base import Resource
from hotplate.resources.heat_types import HEAT_TYPES
from hotplate.resources.none import NoneResource
from hotplate.resources.openstack.cloud_errors import is_not_found
from hotplate.resources.openstack.glance.api import glance_details, glance_error
from hotplate.resources.openstack.glance.image import GlanceImage, WebImage, patch_operations
from hotplate.resources.openstack.keystone.api import keystone_error
from hotplate.resources.openstack.keystone.catalog import Endpoint, Region, Service
from hotplate.resources.openstack.keystone.domain import Domain
from hotplate.resources.openstack.keystone.group import Group
from hotplate.resources.openstack.keystone.project import Project
from hotplate.resources.openstack.keystone.role import Role
from hotplate.resources.openstack.keystone.role_assignments import (
    Grant,
    GroupRoleAssignment,
    UserRoleAssignment,
    differences,
    grants_of,
)
from hotplate.resources.openstack.keystone.user import User, group_changes
from hotplate.resources.openstack.neutron.quota import NeutronQuota
from hotplate.resources.openstack.nova.flavor import Flavor, tenant_changes
from hotplate.resources.openstack.nova.host_aggregate import (
    HostAggregate,
    host_changes,
    metadata_changes,
)
from hotplate.resources.openstack.nova.quota import NovaQuota
from hotplate.resources.support import Status
from hotplate.resources.translation import Rule
from tests.unit.resources.fakes import FakeContext

WHERE = ("resources", "r", "properties")
TYPES: dict[str, type[Resource]] = {
    "OS::Keystone::Domain": Domain, "OS::Keystone::Project": Project,
    "OS::Keystone::User": User, "OS::Keystone::Group": Group, "OS::Keystone::Role": Role,
    "OS::Keystone::UserRoleAssignment": UserRoleAssignment,
    "OS::Keystone::GroupRoleAssignment": GroupRoleAssignment,
    "OS::Keystone::Region": Region, "OS::Keystone::Service": Service,
    "OS::Keystone::Endpoint": Endpoint, "OS::Glance::WebImage": WebImage,
    "OS::Glance::Image": GlanceImage, "OS::Nova::Flavor": Flavor,
    "OS::Nova::HostAggregate": HostAggregate, "OS::Nova::Quota": NovaQuota,
    "OS::Neutron::Quota": NeutronQuota,
}
IN_PLACE: dict[type[Resource], set[str]] = {
    Domain: {"name", "description", "enabled"},
    Project: {"name", "domain", "description", "enabled", "tags"},
    User: {"name", "domain", "description", "enabled", "email", "password",
           "default_project", "groups", "roles"},
    Group: {"name", "domain", "description", "roles"},
    Role: {"name"},
    UserRoleAssignment: {"user", "roles"}, GroupRoleAssignment: {"group", "roles"},
    Region: {"parent_region", "description", "enabled"},
    Service: {"name", "description", "type", "enabled"},
    Endpoint: {"name", "region", "service", "interface", "url", "enabled"},
    WebImage: {"protected", "tags", "architecture", "kernel_id", "os_distro", "os_version",
               "owner", "extra_properties", "visibility", "ramdisk_id", "active", "members"},
    Flavor: {"tenants", "extra_specs"},
    HostAggregate: {"name", "availability_zone", "hosts", "metadata"},
}
"""Heat 27.0.1's ``update_allowed`` properties of each type (any other change replaces)."""


def _error(cls: type[Resource], raw: dict[str, Any]) -> str:
    with pytest.raises(StackValidationFailed) as caught:
        cls.validate(raw, WHERE)
    return str(caught.value)


def test_types_are_registered_as_heat_has_them() -> None:
    registered = {e.name: e.load() for e in entry_points(group="hotplate.resources")}
    for name, cls in TYPES.items():
        assert registered[name] is cls, name
        known = HEAT_TYPES[name]
        assert (cls.heat_class_name or cls.__name__) == known.heat_class, name
        assert cls.support_status.status == known.status, name
        assert cls.support_status.version == known.version, name
        for rule in cls.translation_rules:
            assert rule.path[0] in cls.properties_schema
            assert rule.rule is not Rule.RESOLVE or rule.finder
        for prop, schema in cls.properties_schema.items():
            assert schema.description or prop == "tenants", (name, prop)
    assert all(admin_only(name) for name in TYPES
               if name.startswith("OS::Keystone::") or "Quota" in name
               or name in ("OS::Nova::Flavor", "OS::Nova::HostAggregate"))
    assert not admin_only("OS::Glance::WebImage")
    assert NeutronQuota.required_service_extension == "quotas"
    assert Domain.support_status.message == "Supported versions: keystone v3"


@pytest.mark.parametrize("cls", list(IN_PLACE), ids=lambda c: c.__name__)
def test_update_allowed_is_heats(cls: type[Resource]) -> None:
    allowed = {k for k, s in cls.properties_schema.items() if s.update_allowed}
    assert allowed == IN_PLACE[cls]


def test_the_placeholder_image_is_hidden_and_takes_anything() -> None:
    status = GlanceImage.support_status
    assert (status.status, status.version) == (Status.HIDDEN, "22.0.0")
    assert status.previous_status is not None
    assert status.previous_status.status is Status.DEPRECATED
    assert issubclass(GlanceImage, NoneResource)
    assert GlanceImage.validate({"location": "x", "is_public": True}, WHERE) == {}


def test_role_assignments_are_checked_as_heat_checks_them() -> None:
    both = {"roles": [{"role": "member", "project": "p", "domain": "d"}]}
    assert _error(User, both) == ("Cannot define the following properties at the same "
                                  "time: project, domain.")
    neither = {"user": "u", "roles": [{"role": "member"}]}
    assert _error(UserRoleAssignment, neither) == \
        "Either project or domain must be specified for role member"
    assert "Property role not assigned" in _error(Group, {"roles": [{"project": "p"}]})
    assert Group.validate({"roles": [{"role": "r", "domain": "d"}]}, WHERE)["roles"] == \
        [{"role": "r", "domain": "d", "project": None}]


def test_roles_change_by_their_difference() -> None:
    old = [{"role": "a", "project": "p"}, {"role": "b", "domain": "d"}]
    new = [{"role": "a", "project": "p"}, {"role": "c", "project": "p"},
           {"role": "c", "project": "p"}]
    assert differences(new, old) == ([Grant("c", project="p")], [Grant("b", domain="d")])
    assert differences(old, old) == ([], [])
    assert differences(None, old)[1] == grants_of(old)
    assert Grant("r", project="p").path("users/u") == "/projects/p/users/u/roles/r"
    assert Grant("r", domain="d").path("groups/g") == "/domains/d/groups/g/roles/r"
    assert group_changes(["a", "b"], ["b", "c"]) == (["a"], ["c"])


def test_keystone_bodies_are_keystoneclients() -> None:
    ctx = FakeContext(resource_name="user")
    props = User.validate({"domain": "d1", "password": "pw", "default_project": "p",
                           "email": "e@x"}, WHERE)
    user = User("user", props, ctx)
    body = user.create_body()
    assert body == {"description": "", "enabled": True, "email": "e@x", "password": "pw",
                    "default_project_id": "p", "domain_id": "d1"}
    assert user.update_body({"description": "new"}) == {"description": "new",
                                                        "domain_id": "d1"}
    assert user.update_body({"name": None}) == {"name": "teststack-user-abcdefghijkl",
                                                "domain_id": "d1"}
    assert user.update_body({"groups": ["g"]}) == {}  # Keystone refuses an empty update
    project = Project("project", Project.validate({"tags": ["a"]}, WHERE), ctx)
    assert project.update_body({"tags": []}) == {"domain_id": "default", "tags": []}
    region = Region("region", Region.validate({"id": "a b/c"}, WHERE), ctx)
    assert region.create_body() == {"id": "a%20b/c", "enabled": True}
    endpoint = Endpoint("ep", Endpoint.validate(
        {"service": "s", "interface": "public", "url": "http://x", "region": "r"}, WHERE), ctx)
    assert endpoint.create_body() == {"region_id": "r", "service_id": "s",
                                      "interface": "public", "url": "http://x",
                                      "enabled": True}


def test_failures_read_as_the_clients_name_them() -> None:
    from hotplate.cloud.errors import CloudConflict, CloudNotFound

    gone = keystone_error(CloudNotFound("Could not find user: x. (HTTP 404)", 404))
    assert type(gone).__name__ == "NotFound" and isinstance(gone, CloudNotFound)
    assert is_not_found(gone) and str(gone) == "Could not find user: x. (HTTP 404)"
    assert type(keystone_error(CloudConflict("dup", 409))).__name__ == "Conflict"
    page = ("<html>\n <head>\n  <title>404 Not Found</title>\n </head>\n <body>\n"
            "  <h1>404 Not Found</h1>\n  No image found with ID x<br /><br />\n </body>\n"
            "</html>")
    details = glance_details("text/html; charset=UTF-8", page)
    assert details == "404 Not Found: No image found with ID x"
    error = glance_error(CloudNotFound("x", 404), details)
    assert type(error).__name__ == "HTTPNotFound"
    assert str(error) == "404 Not Found: No image found with ID x (HTTP 404)"


def test_quotas_need_a_limit() -> None:
    assert _error(NovaQuota, {"project": "p"}).startswith(
        "At least one of the following properties must be specified: cores, fixed_ips, "
        "floating_ips, injected_file_content_bytes, ")
    assert _error(NeutronQuota, {"project": "p", "port": -2}) == \
        "resources.r.properties.port: -2 is out of range (min: -1, max: None)"
    assert NeutronQuota.validate({"project": "p", "port": -1}, WHERE)["port"] == -1
    NovaQuota.validate_known({"project": "p"}, frozenset({"cores"}), WHERE)  # not known yet
    assert not NovaQuota.needs_replacement({"project": "p", "cores": 1},
                                           {"project": "p", "cores": 2})
    assert NovaQuota.needs_replacement({"project": "p", "cores": 1},
                                       {"project": "q", "cores": 1})


def test_web_image_checks_are_heats() -> None:
    base = {"location": "http://x/y", "disk_format": "raw", "container_format": "ami"}
    assert _error(WebImage, base).startswith("Invalid mix of disk and container formats.")
    shared = {**base, "container_format": "bare", "members": ["p"]}
    assert _error(WebImage, shared) == ("members property should only be specified for "
                                        "visibility with value shared.")
    WebImage.validate({**shared, "visibility": "shared"}, WHERE)
    image = {"id": "i", "os_distro": "a", "hp": "1"}
    assert patch_operations(image, {"os_distro": "b", "new": "2", "hp": None, "gone": None}) \
        == [{"op": "replace", "path": "/os_distro", "value": "b"},
            {"op": "add", "path": "/new", "value": "2"}, {"op": "remove", "path": "/hp"}]


def test_nova_admin_diffs() -> None:
    assert tenant_changes(["a", "b", "b"], ["b", "c"]) == (["a"], ["c"])
    assert host_changes([], ["h"]) == ([], ["h"])
    assert metadata_changes({"b": "2"}, {"a": "1", "b": "1"}) == {"a": None, "b": "2"}
    assert Flavor.needs_replacement({"ram": 64, "vcpus": 1}, {"ram": 128, "vcpus": 1})
    assert not Flavor.needs_replacement({"ram": 64, "extra_specs": {}},
                                        {"ram": 64, "extra_specs": {"a": "b"}})
    flavor = Flavor("f", Flavor.validate({"ram": 64, "vcpus": 1}, WHERE),
                    FakeContext(resource_name="f"))
    assert flavor.physical_resource_name() == "teststack-f-abcdefghijkl"
    named = Flavor("f", Flavor.validate({"ram": 64, "vcpus": 1, "name": "n"}, WHERE),
                   FakeContext(resource_name="f"))
    assert named.physical_resource_name() == "n"
