"""The Heat source harness does what the import tests count on: every shape is in Heat's
own database as Heat wrote it, nothing of Heat is left running, and Heat starts again."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Connection, create_engine, pool, text

from tests.heat_import.shapes import EXPECTED, LEGACY_SHAPES, ShapedSource


@pytest.fixture
def heat_db(heat_source: ShapedSource) -> Iterator[Connection]:
    """A connection to Heat's database (read only: nothing here writes)."""
    engine = create_engine(heat_source.source.url, poolclass=pool.NullPool)
    try:
        with engine.connect() as conn:
            yield conn
    finally:
        engine.dispose()


def _rows(conn: Connection, sql: str, **params: Any) -> list[Any]:
    return list(conn.execute(text(sql), params).mappings())


def test_every_shape_has_its_stack_row(heat_source: ShapedSource, heat_db: Connection) -> None:
    assert set(heat_source.stacks) == set(EXPECTED)
    for name, stack_id in heat_source.stacks.items():
        [row] = _rows(heat_db, "SELECT * FROM stack WHERE id = :id", id=stack_id)
        assert (row["name"], f"{row['action']}_{row['status']}") == (name, EXPECTED[name])
        assert bool(row["convergence"]) is (name not in LEGACY_SHAPES), name
        assert (row["deleted_at"] is not None) is (name == "deleted"), name
        assert row["tenant"] == heat_source.source.project_id
        assert row["owner_id"] is None


def test_nested_stacks_hang_under_their_parents(heat_source: ShapedSource,
                                               heat_db: Connection) -> None:
    children = _rows(heat_db, "SELECT name FROM stack WHERE owner_id = :id",
                     id=heat_source.stacks["nested"])
    prefixes = sorted({row["name"].rsplit("-", 1)[0] for row in children})
    assert prefixes == ["nested-chain", "nested-group", "nested-scaled", "nested-thing"]


def test_snapshot_and_software_rows(heat_source: ShapedSource, heat_db: Connection) -> None:
    [snapshot] = _rows(heat_db, "SELECT * FROM snapshot WHERE id = :id",
                       id=heat_source.snapshot)
    assert (snapshot["stack_id"], snapshot["status"]) == (heat_source.stacks["snapshotted"],
                                                          "COMPLETE")
    [deployment] = _rows(heat_db, "SELECT * FROM software_deployment WHERE id = :id",
                         id=heat_source.software["deployment"])
    assert deployment["config_id"] == heat_source.software["config"]
    assert deployment["tenant"] == heat_source.source.project_id
    configs = {row["id"]: row["name"] for row in _rows(
        heat_db, "SELECT id, name FROM software_config")}
    assert configs[heat_source.software["config"]] == "made-through-the-api"
    made_by_stack = sorted(name.rsplit("-", 1)[0] for name in configs.values()
                           if name.startswith("software-"))
    assert made_by_stack == ["software-cloud", "software-parts", "software-script"]


def test_legacy_stacks_keep_parameters_and_properties_encrypted(
        heat_source: ShapedSource, heat_db: Connection) -> None:
    for name, encrypted in (("legacy", True), ("plain", False)):
        [stack] = _rows(heat_db, "SELECT raw_template_id FROM stack WHERE id = :id",
                        id=heat_source.stacks[name])
        [template] = _rows(heat_db, "SELECT environment FROM raw_template WHERE id = :id",
                           id=stack["raw_template_id"])
        environment = template["environment"]
        if isinstance(environment, str):  # MariaDB's JSON is text
            environment = json.loads(environment)
        assert bool(environment.get("encrypted_param_names")) is encrypted, name
        flags = _rows(heat_db, "SELECT rpd.encrypted FROM resource r JOIN "
                      "resource_properties_data rpd ON rpd.id = r.rsrc_prop_data_id "
                      "WHERE r.stack_id = :id", id=heat_source.stacks[name])
        assert flags and {bool(row["encrypted"]) for row in flags} == {encrypted}, name


def test_no_heat_engine_is_left_alive(heat_source: ShapedSource, heat_db: Connection) -> None:
    services = _rows(heat_db, "SELECT deleted_at FROM service")
    assert services and all(row["deleted_at"] is not None for row in services)


def test_heat_starts_again_and_stops(heat_source: ShapedSource) -> None:
    source = heat_source.source
    source.start()
    try:
        listed = {stack.id for stack in source.client().stacks.list()}
    finally:
        source.stop()
    live = {sid for name, sid in heat_source.stacks.items() if name != "deleted"}
    assert live <= listed and heat_source.stacks["deleted"] not in listed
    assert source.live_services() == 0
