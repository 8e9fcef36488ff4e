"""Drift against the project's real cloud: ``hotplate stack drift`` and an update that
converges (``openstack stack update --existing --converge``).

A stack of a network, a subnet, a port and a volume is made through hotplate; the
test then changes some of them behind hotplate's back with openstacksdk (a port's
name, a volume's name and metadata, a network's ``admin_state_up``). ``hotplate
stack drift`` (the CLI over hotplate's own REST route) must list exactly those
properties, with the template's and the cloud's values; an update with
``--converge`` and the same template must put them back, after which nothing
drifts. Before the changes nothing may drift either: what the cloud fills in by
itself (addresses, defaults, hotplate's attempt marks) is no difference.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from typing import Any

import pytest

from hotplate.resources.openstack.attempt_marks import (
    ATTEMPT_METADATA_KEY,
    metadata_without_marks,
)
from tests.cloud.leaks import cloud_leaks  # noqa: F401  (a fixture)
from tests.cloud.serving import PORT, Serving
from tests.cloud.stacks import (
    delete_stack,
    drift,
    drift_statuses,
    physical_ids,
    show_stack,
    stack_action,
    template_file,
)

pytestmark = pytest.mark.usefixtures("cloud_leaks")
LEAK_PREFIX = "dr-"
"""Every volume this module makes is named so (``cloud_leaks``)."""

TEMPLATE = """heat_template_version: 2021-04-16
parameters:
  prefix: {type: string}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: {list_join: ["-", [{get_param: prefix}, net]]}}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.47.0.0/24}
  port:
    type: OS::Neutron::Port
    properties:
      name: {list_join: ["-", [{get_param: prefix}, port]]}
      network: {get_resource: net}
      fixed_ips: [{subnet: {get_resource: subnet}}]
      tags: [drift]
  vol:
    type: OS::Cinder::Volume
    properties:
      name: {list_join: ["-", [{get_param: prefix}, vol]]}
      size: 1
      metadata: {purpose: test}
  note:
    type: OS::Heat::Value
    properties: {value: {get_resource: port}}
"""

CHANGED = {("net", "admin_state_up"), ("port", "name"), ("vol", "name"), ("vol", "metadata")}


def _until_available(conn: Any, ident: str) -> None:
    deadline = time.monotonic() + 60
    while conn.block_storage.get_volume(ident).status != "available":
        assert time.monotonic() < deadline, "the volume did not settle"
        time.sleep(0.5)


def test_drift_listed_then_converged(served: Serving, user_conn: Any) -> None:
    name = f"dr-{uuid.uuid4().hex[:8]}"
    template = template_file(served, TEMPLATE)
    try:
        created = stack_action(served, "create", "-t", template, "--parameter", f"prefix={name}",
                               name, stack=name)
        assert created == "CREATE_COMPLETE", show_stack(served, name)
        ids = physical_ids(served, name)
        _until_available(user_conn, ids["vol"])

        code, report, err = drift(served, user_conn, name)
        assert code == 0, err
        assert report["differences"] == [], report
        assert drift_statuses(report) == {"net": "IN_SYNC", "subnet": "IN_SYNC",
                                     "port": "IN_SYNC", "vol": "IN_SYNC",
                                     "note": "NOT_CHECKED"}

        # Behind hotplate's back.
        user_conn.network.update_port(ids["port"], name="renamed-port")
        user_conn.network.update_network(ids["net"], admin_state_up=False)
        user_conn.block_storage.update_volume(ids["vol"], name="renamed-vol")
        user_conn.block_storage.set_volume_metadata(ids["vol"], extra="added")

        code, report, err = drift(served, user_conn, name)
        assert code == 0, err
        found = {(d["resource"], d["property"]): d for d in report["differences"]}
        assert set(found) == CHANGED, report
        assert found[("port", "name")]["expected"] == f"{name}-port"
        assert found[("port", "name")]["actual"] == "renamed-port"
        assert found[("net", "admin_state_up")]["expected"] is True
        assert found[("net", "admin_state_up")]["actual"] is False
        assert found[("vol", "name")]["actual"] == "renamed-vol"
        assert found[("vol", "metadata")]["expected"] == {"purpose": "test"}
        assert found[("vol", "metadata")]["actual"] == {"purpose": "test", "extra": "added"}
        assert found[("vol", "metadata")]["type"] == "OS::Cinder::Volume"
        assert drift_statuses(report)["subnet"] == "IN_SYNC"
        assert drift_statuses(report)["port"] == "DRIFTED"

        # The table names each drifted property.
        url = f"http://127.0.0.1:{PORT}/v1/{user_conn.current_project_id}"
        table = subprocess.run(
            [sys.executable, "-m", "hotplate.cli.main", "stack", "drift", name,
             "--url", url, "--token", user_conn.auth_token],
            capture_output=True, text=True, timeout=120)
        assert table.returncode == 0, table.stderr
        assert "admin_state_up" in table.stdout and "renamed-port" in table.stdout

        # Without converge (and observe_on_update off) an update looks at the stored
        # properties only: nothing changed, nothing is set back.
        updated = stack_action(served, "update", "--existing", name, stack=name)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name)
        assert user_conn.network.get_port(ids["port"]).name == "renamed-port"
        _, report, _ = drift(served, user_conn, name)
        assert {(d["resource"], d["property"]) for d in report["differences"]} == CHANGED

        # An update with the same template that converges puts them back.
        updated = stack_action(served, "update", "--existing", "--converge", name, stack=name)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name)
        assert physical_ids(served, name) == ids  # in place, nothing replaced
        assert user_conn.network.get_port(ids["port"]).name == f"{name}-port"
        assert user_conn.network.get_network(ids["net"]).is_admin_state_up is True
        volume = user_conn.block_storage.get_volume(ids["vol"])
        assert volume.name == f"{name}-vol"
        # The template's metadata back, and the create's mark kept (attempt_marks.py).
        assert metadata_without_marks(volume.metadata) == {"purpose": "test"}
        assert ATTEMPT_METADATA_KEY in volume.metadata, volume.metadata

        code, report, err = drift(served, user_conn, name)
        assert code == 0, err
        assert report["differences"] == [], report
    finally:
        delete_stack(served, name)


def test_gone_resource_is_deleted_in_drift(served: Serving, user_conn: Any) -> None:
    """A port deleted behind hotplate's back reads DELETED (not a difference); an update
    that converges replaces it, as Heat's does."""
    name = f"dr-{uuid.uuid4().hex[:8]}"
    template = template_file(served, TEMPLATE)
    try:
        created = stack_action(served, "create", "-t", template, "--parameter", f"prefix={name}",
                               name, stack=name)
        assert created == "CREATE_COMPLETE", show_stack(served, name)
        ids = physical_ids(served, name)
        user_conn.network.delete_port(ids["port"])

        code, report, err = drift(served, user_conn, name)
        assert code == 0, err
        assert drift_statuses(report)["port"] == "DELETED"
        assert report["differences"] == []

        updated = stack_action(served, "update", "--existing", "--converge", name, stack=name)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name)
        after = physical_ids(served, name)
        assert after["port"] != ids["port"] and after["net"] == ids["net"]
        assert user_conn.network.get_port(after["port"]).name == f"{name}-port"
    finally:
        delete_stack(served, name)


SERVER = """heat_template_version: 2021-04-16
parameters:
  prefix: {type: string}
resources:
  net:
    type: OS::Neutron::Net
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.48.0.0/24}
  server:
    type: OS::Nova::Server
    properties:
      name: {list_join: ["-", [{get_param: prefix}, server]]}
      image: cirros-fake
      flavor: m1.tiny
      networks: [{network: {get_resource: net}}]
      metadata: {role: web}
      tags: [blue]
    depends_on: subnet
"""


def test_server_drift(served: Serving, user_conn: Any) -> None:
    """A server spelt with an image and a flavor by name reads back in sync (Nova shows
    ids and the flavor's name); its name, metadata and tags changed behind hotplate's
    back drift, and converge back."""
    name = f"dr-{uuid.uuid4().hex[:8]}"
    template = template_file(served, SERVER)
    try:
        created = stack_action(served, "create", "-t", template, "--parameter", f"prefix={name}",
                               name, stack=name)
        assert created == "CREATE_COMPLETE", show_stack(served, name)
        ids = physical_ids(served, name)
        code, report, err = drift(served, user_conn, name)
        assert code == 0, err
        assert report["differences"] == [], report
        assert drift_statuses(report)["server"] == "IN_SYNC"

        compute = user_conn.compute
        compute.update_server(ids["server"], name="renamed-server")
        compute.set_server_metadata(ids["server"], extra="added")
        compute.add_tag_to_server(ids["server"], "green")
        code, report, err = drift(served, user_conn, name)
        assert code == 0, err
        found = {(d["resource"], d["property"]): d for d in report["differences"]}
        assert set(found) == {("server", "name"), ("server", "metadata"),
                              ("server", "tags")}, report
        assert sorted(found[("server", "tags")]["actual"]) == ["blue", "green"]

        updated = stack_action(served, "update", "--existing", "--converge", name, stack=name)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name)
        assert physical_ids(served, name) == ids
        server = compute.get_server(ids["server"])
        assert server.name == f"{name}-server" and server.metadata == {"role": "web"}
        code, report, err = drift(served, user_conn, name)
        assert report["differences"] == [], report
    finally:
        delete_stack(served, name)


INNER = """heat_template_version: 2021-04-16
parameters:
  prefix: {type: string}
resources:
  net:
    type: OS::Neutron::Net
  port:
    type: OS::Neutron::Port
    properties:
      name: {list_join: ["-", [{get_param: prefix}, port]]}
      network: {get_resource: net}
outputs:
  port: {value: {get_resource: port}}
"""

NESTED = """heat_template_version: 2021-04-16
parameters:
  prefix: {type: string}
resources:
  inner:
    type: @INNER@
    properties: {prefix: {get_param: prefix}}
outputs:
  port: {value: {get_attr: [inner, port]}}
"""


def test_converge_reaches_nested_stacks(served: Serving, user_conn: Any) -> None:
    """A nested stack (a template resource's) is not checked by the parent's drift (its
    own drift reads it); an update of the parent that converges converges the nested
    stack too, as Heat's StackResource passes ``converge`` on to it."""
    name = f"dr-{uuid.uuid4().hex[:8]}"
    inner = served.tmp / f"inner-{uuid.uuid4().hex[:8]}.yaml"
    inner.write_text(INNER)
    template = template_file(served, NESTED.replace("@INNER@", inner.name))
    try:
        created = stack_action(served, "create", "-t", template, "--parameter", f"prefix={name}",
                               name, stack=name)
        assert created == "CREATE_COMPLETE", show_stack(served, name)
        port = next(o["output_value"] for o in show_stack(served, name)["outputs"]
                    if o["output_key"] == "port")
        user_conn.network.update_port(port, name="renamed-port")
        code, report, err = drift(served, user_conn, name)
        assert code == 0, err
        assert drift_statuses(report) == {"inner": "NOT_CHECKED"}
        child = physical_ids(served, name)["inner"]
        code, report, err = drift(served, user_conn, child)
        assert code == 0, err
        assert [(d["resource"], d["property"]) for d in report["differences"]] == [
            ("port", "name")]

        updated = stack_action(served, "update", "--existing", "--converge", name, stack=name)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name)
        assert user_conn.network.get_port(port).name == f"{name}-port"
    finally:
        delete_stack(served, name)
