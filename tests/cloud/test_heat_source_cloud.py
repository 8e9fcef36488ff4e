"""Real Heat 27 as an import source, checked against the cloud it made its objects in.

``heat_source`` runs Heat on a database of its own; this module makes both shapes
of ``heat_shapes`` with it and reads Heat's rows with SQLAlchemy, as an importer
will: each resource's physical id is a live object of the cloud, of the test
user's project, wired as the template says (the server on its port, the volume
attached to it); the stacks' stored credentials hold a trust from the test user
to Heat's trustee. Once Heat is stopped, no engine counts as alive in its
``service`` table. Then the cleanup deletes what the stacks made, and the cloud's
admin finds none of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from hotplate.db.crypt import SecretBox
from tests.cloud import heat_leftovers
from tests.cloud.heat_fixtures import MadeByHeat
from tests.cloud.heat_shapes import MadeStack
from tests.cloud.heat_source import HeatSource

TRUSTEE = "heat"
"""Heat's ``[trustee]`` user in the cloud's heat.conf."""


@pytest.fixture
def heat_rows(heat_source: HeatSource) -> Iterator[Any]:
    """A connection to Heat's database."""
    engine = create_engine(heat_source.url)
    with engine.connect() as conn:
        yield conn
    engine.dispose()


def rows(conn: Any, query: str, **params: Any) -> list[dict[str, Any]]:
    return [dict(r) for r in conn.execute(text(query), params).mappings().all()]


def physical_ids(conn: Any, stack_id: str) -> dict[str, str]:
    """Each resource of the stack's tree (nested stacks too) by name, its physical id."""
    found = rows(conn, "SELECT name, nova_instance FROM resource WHERE root_stack_id = :s",
                 s=stack_id)
    return {r["name"]: r["nova_instance"] for r in found}


def check_server_volume(admin: Any, made: MadeStack, ids: dict[str, str], project: str) -> None:
    """The first shape's rows name live objects of ``project``, wired as templated."""
    server = admin.compute.get_server(ids["server"])
    assert server.status == "ACTIVE" and server.project_id == project
    port = admin.network.get_port(ids["port"])
    assert port.device_id == ids["server"] and port.network_id == ids["net"]
    assert admin.network.get_subnet(ids["subnet"]).network_id == ids["net"]
    volume = admin.block_storage.get_volume(ids["volume"])
    assert volume.size == 1 and volume.project_id == project
    assert [a["server_id"] for a in volume.attachments] == [ids["server"]]
    assert ids["attachment"] == ids["volume"]  # Nova's attachment id is the volume's
    assert made.outputs["server_id"] == ids["server"]
    assert made.outputs["port_id"] == ids["port"]
    assert made.outputs["volume_id"] == ids["volume"]
    assert made.outputs["first_address"] == port.fixed_ips[0]["ip_address"]


def check_nested_server(admin: Any, conn: Any, made: MadeStack, ids: dict[str, str],
                        project: str) -> None:
    """The second shape: its nested stack is a row owned by the top stack, holding a
    live server on the top stack's network."""
    nested = rows(conn, "SELECT id, parent_resource_name FROM stack WHERE owner_id = :s",
                  s=made.id)
    assert [(n["id"], n["parent_resource_name"]) for n in nested] == [(ids["member"], "member")]
    server = admin.compute.get_server(ids["server"])
    assert server.status == "ACTIVE" and server.project_id == project
    ports = list(admin.network.ports(device_id=ids["server"]))
    assert [p.network_id for p in ports] == [ids["net"]]
    assert made.outputs["server_id"] == ids["server"]


def check_trusts(admin: Any, conn: Any, source: HeatSource, stack_ids: list[str]) -> None:
    """Each top stack's credentials hold an encrypted trust from the test user to
    Heat's trustee that Keystone still has."""
    project, user = source.identity()
    box = SecretBox(source.auth_encryption_key)
    for stack_id in stack_ids:
        (creds,) = rows(conn, "SELECT c.* FROM user_creds c JOIN stack s "
                              "ON s.user_creds_id = c.id WHERE s.id = :s", s=stack_id)
        assert creds["tenant_id"] == project and creds["trustor_user_id"] == user
        assert creds["password"] is None and creds["decrypt_method"] == "cryptography_decrypt_v1"
        trust = admin.identity.get_trust(box.decrypt(creds["decrypt_method"], creds["trust_id"]))
        assert trust.trustor_user_id == user and trust.project_id == project
        assert admin.identity.get_user(trust.trustee_user_id).name == TRUSTEE


def test_heat_source_stacks_match_the_cloud_and_leave_nothing(
        heat_source: HeatSource, made_by_heat_source: MadeByHeat, admin_conn: Any,
        heat_rows: Any) -> None:
    made = made_by_heat_source
    shapes = made.make()
    for stack in shapes.stacks:
        assert stack.status == "CREATE_COMPLETE", (stack.name, stack.reason)
    project, _ = heat_source.identity()

    live = rows(heat_rows, "SELECT id FROM stack WHERE deleted_at IS NULL")
    assert len(live) == 3  # both top stacks and the provider template's nested stack
    check_server_volume(admin_conn, shapes.server_volume,
                        physical_ids(heat_rows, shapes.server_volume.id), project)
    check_nested_server(admin_conn, heat_rows, shapes.nested_server,
                        physical_ids(heat_rows, shapes.nested_server.id), project)
    check_trusts(admin_conn, heat_rows, heat_source, made.stack_ids)
    heat_rows.rollback()  # the next reads see what the stop wrote

    heat_source.stop()
    assert heat_source.engines_alive() == 0
    services = rows(heat_rows, "SELECT deleted_at FROM service")
    assert services and all(s["deleted_at"] is not None for s in services)

    found = made.cleanup()
    for kind in ("server", "port", "subnet", "network", "volume", "trust", "user", "project"):
        assert found[kind], f"the cleanup looked for no {kind}"
    assert heat_leftovers.existing(admin_conn, found) == heat_leftovers.empty()
    heat_rows.rollback()
    assert rows(heat_rows, "SELECT id FROM stack WHERE deleted_at IS NULL") == []
    print(f"\nheat source timings: {heat_source.timings} {made.timings}")
