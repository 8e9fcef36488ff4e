"""Drift of Keystone's types against the real Keystone (an admin's stack, as Heat's
policy wants): properties Keystone holds as ids (a project's domain given by name, a
user's groups and default project) read back in sync; a description and an email
changed behind hotplate's back drift, and an update with ``--converge`` sets them back.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.cloud.admin_leaks import admin_leaks  # noqa: F401  (a fixture)
from tests.cloud.serving import Serving
from tests.cloud.stacks import (
    delete_stack,
    drift,
    drift_statuses,
    physical_ids,
    show_stack,
    stack_action,
    template_file,
)

pytestmark = pytest.mark.usefixtures("admin_leaks")
LEAK_PREFIX = "hpd-"

IDENTITY = """heat_template_version: 2021-04-16
parameters:
  prefix: {type: string}
  domain_enabled: {type: boolean, default: true}
resources:
  domain:
    type: OS::Keystone::Domain
    properties:
      name: {list_join: ['-', [{get_param: prefix}, dom]]}
      description: first
      enabled: {get_param: domain_enabled}
  project:
    type: OS::Keystone::Project
    properties:
      domain: {get_attr: [domain, show, name]}          # a name, Keystone holds the id
      description: first
  group:
    type: OS::Keystone::Group
    properties: {domain: {get_resource: domain}, description: first}
  user:
    type: OS::Keystone::User
    properties:
      domain: {get_resource: domain}
      email: someone@example.test
      default_project: {get_resource: project}
      groups: [{get_resource: group}]
"""


def test_keystone_drift(served: Serving, admin_conn: Any) -> None:
    admin = served.cloud.admin
    name = f"{LEAK_PREFIX}{uuid.uuid4().hex[:8]}"
    template = template_file(served, IDENTITY)
    try:
        created = stack_action(served, "create", "-t", template, "--parameter", f"prefix={name}",
                               name, stack=name, cloud=admin)
        assert created == "CREATE_COMPLETE", show_stack(served, name, admin)
        ids = physical_ids(served, name, admin)
        code, report, err = drift(served, admin_conn, name)
        assert code == 0, err
        assert report["differences"] == [], report
        assert set(drift_statuses(report).values()) == {"IN_SYNC"}

        admin_conn.identity.update_project(ids["project"], description="changed")
        admin_conn.identity.update_user(ids["user"], email="else@example.test")
        code, report, err = drift(served, admin_conn, name)
        assert code == 0, err
        found = {(d["resource"], d["property"]): (d["expected"], d["actual"])
                 for d in report["differences"]}
        assert found == {("project", "description"): ("first", "changed"),
                         ("user", "email"): ("someone@example.test", "else@example.test")}

        updated = stack_action(served, "update", "--existing", "--converge", name, stack=name,
                               cloud=admin)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name, admin)
        assert admin_conn.identity.get_project(ids["project"]).description == "first"
        assert admin_conn.identity.get_user(ids["user"]).email == "someone@example.test"

        # Keystone deletes only a disabled domain (so does Heat's template author).
        disabled = stack_action(served, "update", "--existing", "--parameter",
                                "domain_enabled=false", name, stack=name, cloud=admin)
        assert disabled == "UPDATE_COMPLETE", show_stack(served, name, admin)
    finally:
        delete_stack(served, name, admin)
