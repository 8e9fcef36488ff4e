"""Keystone's types against the project's real Keystone, through ``openstack stack ...``.

hotplate serves in Keystone mode with Heat's ``[trustee]``; the admin drives it with
the unchanged openstack CLI (Heat's policy gives ``OS::Keystone::*`` to admins only:
the demo user is refused) and the test reads the result back from Keystone. Every
object these stacks make is named with ``LEAK_PREFIX`` (the stack's name starts the
physical names); the catalog types make a region, service and endpoint of their own
and never touch the entries other suites rely on. ``admin_leaks`` fails a test that
leaves one behind (and deletes it).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.cloud.admin_leaks import admin_leaks  # noqa: F401  (a fixture)
from tests.cloud.serving import Serving
from tests.cloud.stacks import (
    cli,
    delete_stack,
    gone,
    outputs_of,
    physical_ids,
    show_stack,
    stack_action,
    template_file,
    unique_name,
)

pytestmark = pytest.mark.usefixtures("admin_leaks")
LEAK_PREFIX = "hpk-"

IDENTITY = """heat_template_version: 2021-04-16
parameters:
  prefix: {type: string}
  description: {type: string, default: first}
  domain_enabled: {type: boolean, default: true}
  project_roles: {type: comma_delimited_list, default: reader}
  domain_roles: {type: comma_delimited_list, default: reader}
  group_role: {type: string, default: reader}
  role_name: {type: string, default: ""}
resources:
  domain:
    type: OS::Keystone::Domain
    properties:
      name: {list_join: ['-', [{get_param: prefix}, dom]]}
      description: {get_param: description}
      enabled: {get_param: domain_enabled}
  project:
    type: OS::Keystone::Project
    properties:
      domain: {get_attr: [domain, show, name]}          # a name to resolve
      description: {get_param: description}
      tags: [one]
  role:
    type: OS::Keystone::Role
    properties: {name: {get_param: role_name}}
  group:
    type: OS::Keystone::Group
    properties:
      domain: {get_resource: domain}
      description: {get_param: description}
      roles: [{role: {get_param: group_role}, project: {get_resource: project}}]
  user:
    type: OS::Keystone::User
    properties:
      domain: {get_resource: domain}
      description: {get_param: description}
      password: s3cret-pw
      email: someone@example.test
      default_project: {get_resource: project}
      groups: [{get_resource: group}]
      roles:
        list_concat:
          - repeat:
              for_each: {<%r%>: {get_param: project_roles}}
              template: {role: <%r%>, project: {get_resource: project}}
          - repeat:
              for_each: {<%r%>: {get_param: domain_roles}}
              template: {role: <%r%>, domain: {get_resource: domain}}
  assignment:
    type: OS::Keystone::UserRoleAssignment
    properties:
      user:                                             # name{domain}
        list_join: ['', [{get_attr: [user, name]}, '{', {get_attr: [domain, show, name]}, '}']]
      roles: [{role: {get_attr: [role, show, name]}, project: {get_resource: project}}]
outputs:
  user_domain: {value: {get_attr: [user, domain_id]}}
  user_project: {value: {get_attr: [user, default_project_id]}}
  project_domain: {value: {get_attr: [project, domain_id]}}
  project_tags: {value: {get_attr: [project, show, tags]}}
  domain_show: {value: {get_attr: [domain, show]}}
"""


def _roles(conn: Any, role_names: dict[str, str], **actor: str) -> set[tuple[str, str, str]]:
    """(role name, 'project'|'domain', scope id) of each direct assignment."""
    found = set()
    for item in conn.identity.role_assignments(**actor):
        scope = item.scope or {}
        kind = "project" if "project" in scope else "domain"
        role_id = item.role["id"]
        found.add((role_names.get(role_id, role_id), kind, scope[kind]["id"]))
    return found


def _role_names(conn: Any) -> dict[str, str]:
    return {r.id: r.name for r in conn.identity.roles()}


def test_identity_stack_create_update_delete(served: Serving, admin_conn: Any) -> None:
    admin = served.cloud.admin
    name = unique_name(LEAK_PREFIX)
    template = template_file(served, IDENTITY)
    ids: dict[str, str] = {}
    base = ["--parameter", f"prefix={name}"]
    try:
        created = stack_action(served, "create", "-t", template, *base, name, stack=name,
                               cloud=admin)
        assert created == "CREATE_COMPLETE", show_stack(served, name, admin)
        ids = physical_ids(served, name, admin)
        identity = admin_conn.identity
        domain = identity.get_domain(ids["domain"])
        assert domain.name == f"{name}-dom" and domain.description == "first"
        assert domain.is_enabled is True
        project = identity.get_project(ids["project"])
        assert project.domain_id == domain.id and project.name.startswith(f"{name}-project-")
        assert project.tags == ["one"]
        role = identity.get_role(ids["role"])
        assert role.name.startswith(f"{name}-role-")  # an empty name is the physical name
        user = identity.get_user(ids["user"])
        assert user.domain_id == domain.id and user.email == "someone@example.test"
        assert user.default_project_id == project.id
        assert [g.id for g in identity.user_groups(user)] == [ids["group"]]
        assert ids["assignment"] in ("", None)  # Heat's role assignments have no id
        names = _role_names(admin_conn)
        assert _roles(admin_conn, names, user_id=user.id) == {
            ("reader", "domain", domain.id), ("reader", "project", project.id),
            (role.name, "project", project.id)}
        assert _roles(admin_conn, names, group_id=ids["group"]) == {
            ("reader", "project", project.id)}
        outputs = outputs_of(show_stack(served, name, admin))
        assert outputs["user_domain"] == domain.id and outputs["user_project"] == project.id
        assert outputs["project_domain"] == domain.id and outputs["project_tags"] == ["one"]
        assert outputs["domain_show"]["id"] == domain.id

        # In place: new descriptions, a named role, the user's roles changed by their
        # difference (reader on the project revoked, member granted, reader on the
        # domain kept), the group's role replaced.
        updated = stack_action(served, "update", "-t", template, *base, "--parameter",
                               "description=second", "--parameter", "project_roles=member",
                               "--parameter", "group_role=member", "--parameter",
                               f"role_name={name}-custom", name, stack=name, cloud=admin)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name, admin)
        assert physical_ids(served, name, admin) == ids
        assert identity.get_domain(ids["domain"]).description == "second"
        assert identity.get_project(ids["project"]).description == "second"
        assert identity.get_group(ids["group"]).description == "second"
        assert identity.get_user(ids["user"]).description == "second"
        assert identity.get_role(ids["role"]).name == f"{name}-custom"
        names = _role_names(admin_conn)
        assert _roles(admin_conn, names, user_id=user.id) == {
            ("reader", "domain", domain.id), ("member", "project", project.id),
            (f"{name}-custom", "project", project.id)}
        assert _roles(admin_conn, names, group_id=ids["group"]) == {
            ("member", "project", project.id)}

        # The domain role changes: reader goes, member comes; and the domain is disabled
        # so that the stack's delete can delete it (Keystone's rule, as with Heat).
        disabled = stack_action(served, "update", "-t", template, *base, "--parameter",
                                "description=second", "--parameter", "project_roles=member",
                                "--parameter", "domain_roles=member",
                                "--parameter", "group_role=member", "--parameter",
                                f"role_name={name}-custom", "--parameter", "domain_enabled=false",
                                name, stack=name, cloud=admin)
        assert disabled == "UPDATE_COMPLETE", show_stack(served, name, admin)
        assert identity.get_domain(ids["domain"]).is_enabled is False
        assert _roles(admin_conn, names, user_id=user.id) == {
            ("member", "domain", domain.id), ("member", "project", project.id),
            (f"{name}-custom", "project", project.id)}
        assert stack_action(served, "delete", name, stack=name, cloud=admin) == "DELETE_COMPLETE"
    finally:
        delete_stack(served, name, admin)
    for kind in ("user", "group", "role", "project", "domain"):
        assert gone(getattr(admin_conn.identity, f"get_{kind}"), ids[kind]), kind


CATALOG = """heat_template_version: 2021-04-16
parameters:
  prefix: {type: string}
  region_suffix: {type: string, default: r1}
  url_suffix: {type: string, default: a}
  description: {type: string, default: first}
resources:
  region:
    type: OS::Keystone::Region
    properties:
      id: {list_join: ['-', [{get_param: prefix}, {get_param: region_suffix}]]}
      description: {get_param: description}
  service:
    type: OS::Keystone::Service
    properties:
      type: {list_join: ['-', [{get_param: prefix}, svc]]}
      description: {get_param: description}
  endpoint:
    type: OS::Keystone::Endpoint
    properties:
      service: {get_attr: [service, show, name]}        # a name to resolve
      region: {get_resource: region}
      interface: public
      url:
        list_join: ['', ['http://127.0.0.1:9/', {get_param: prefix}, '-',
                         {get_param: url_suffix}]]
  kept:
    type: OS::Keystone::Role
    deletion_policy: Retain
outputs:
  endpoint_show: {value: {get_attr: [endpoint, show]}}
"""


def test_catalog_types_and_retain(served: Serving, admin_conn: Any) -> None:
    admin = served.cloud.admin
    name = unique_name(LEAK_PREFIX)
    template = template_file(served, CATALOG)
    ids: dict[str, str] = {}
    try:
        created = stack_action(served, "create", "-t", template, "--parameter", f"prefix={name}",
                               name, stack=name, cloud=admin)
        assert created == "CREATE_COMPLETE", show_stack(served, name, admin)
        ids = physical_ids(served, name, admin)
        identity = admin_conn.identity
        assert ids["region"] == f"{name}-r1"
        assert identity.get_region(ids["region"]).description == "first"
        service = identity.get_service(ids["service"])
        assert service.type == f"{name}-svc" and service.name.startswith(f"{name}-service-")
        endpoint = identity.get_endpoint(ids["endpoint"])
        assert (endpoint.service_id, endpoint.region_id, endpoint.interface, endpoint.url) == \
            (service.id, ids["region"], "public", f"http://127.0.0.1:9/{name}-a")
        assert outputs_of(show_stack(served, name, admin))["endpoint_show"]["id"] == endpoint.id

        # In place: descriptions and the URL. A new region id is a new region, which the
        # endpoint moves to in place; the old region goes.
        updated = stack_action(served, "update", "-t", template, "--parameter", f"prefix={name}",
                               "--parameter", "description=second", "--parameter", "url_suffix=b",
                               "--parameter", "region_suffix=r2", name, stack=name, cloud=admin)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name, admin)
        after = physical_ids(served, name, admin)
        assert after["region"] == f"{name}-r2" and gone(identity.get_region, ids["region"])
        assert {k: v for k, v in after.items() if k != "region"} == \
            {k: v for k, v in ids.items() if k != "region"}
        endpoint = identity.get_endpoint(ids["endpoint"])
        assert (endpoint.region_id, endpoint.url) == (f"{name}-r2",
                                                       f"http://127.0.0.1:9/{name}-b")
        assert identity.get_service(ids["service"]).description == "second"
        ids = after

        # A delete finds the endpoint already gone: fine. The retained role stays.
        identity.delete_endpoint(ids["endpoint"])
        assert stack_action(served, "delete", name, stack=name, cloud=admin) == "DELETE_COMPLETE"
        assert gone(identity.get_service, ids["service"])
        assert gone(identity.get_region, ids["region"])
        assert identity.get_role(ids["kept"]).name.startswith(f"{name}-kept-")
    finally:
        delete_stack(served, name, admin)
        if ids.get("kept"):
            admin_conn.identity.delete_role(ids["kept"], ignore_missing=True)


REFUSED = """heat_template_version: 2021-04-16
resources:
  role: {type: OS::Keystone::Role}
"""


def test_keystone_types_are_for_admins_only(served: Serving) -> None:
    name = unique_name(LEAK_PREFIX)
    refused = cli(served, "stack", "create", "-t", template_file(served, REFUSED), name,
                  check=False)
    assert refused.returncode != 0
    assert "You are not authorized to use OS::Keystone::Role." in refused.stderr, \
        refused.stderr
    listed = cli(served, "orchestration", "resource", "type", "list", "-f", "json")
    assert not [t for t in listed if str(t["Resource Type"]).startswith("OS::Keystone::")]
    as_admin = cli(served, "orchestration", "resource", "type", "list", "-f", "json",
                   cloud=served.cloud.admin)
    assert "OS::Keystone::UserRoleAssignment" in [t["Resource Type"] for t in as_admin]


BAD_ROLES = """heat_template_version: 2021-04-16
resources:
  group:
    type: OS::Keystone::Group
    properties:
      roles: [{role: member, project: admin, domain: default}]
"""


def test_a_role_on_both_a_project_and_a_domain_is_refused(served: Serving) -> None:
    name = unique_name(LEAK_PREFIX)
    refused = cli(served, "stack", "create", "-t", template_file(served, BAD_ROLES), name,
                  check=False, cloud=served.cloud.admin)
    assert refused.returncode != 0
    assert "Cannot define the following properties at the same time: project, domain." in \
        refused.stderr, refused.stderr
