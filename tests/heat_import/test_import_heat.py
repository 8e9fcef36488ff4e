"""``hotplate manage import-heat`` on a real Heat 27.0.1's database (MariaDB and PostgreSQL):
every live stack comes over as Heat left it, hotplate then updates and deletes them
(keeping what an update keeps), a second import changes nothing, changes made in Heat
since are brought over, and what cannot come is refused by name."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from hotplate.app import Engine, embedded
from hotplate.db.crypt import SecretBox
from hotplate.heat_import.translate import HeatKey
from tests.cli.test_manage import CTXT, KEY, manage, settled
from tests.heat_import.shapes import EXPECTED, PLAIN, ShapedSource

pytestmark = pytest.mark.timeout(900)


@dataclass
class Imported:
    shaped: ShapedSource
    data_dir: Path
    engine: Engine
    first: str
    """The first import's output."""

    def heat_rows(self, sql: str, **params: Any) -> list[Any]:
        engine = create_engine(self.shaped.source.url)
        try:
            with engine.connect() as conn:
                return list(conn.execute(text(sql), params))
        finally:
            engine.dispose()

    def identity(self, shape: str) -> dict[str, str]:
        stack_id = self.shaped.stacks[shape]
        view = self.engine.service.show_stack(CTXT, {"stack_id": stack_id})[0]
        return dict(view["stack_identity"])


def import_heat(shaped: ShapedSource, data_dir: Path, *extra: str) -> Any:
    return manage("import-heat", "--from", shaped.source.url, "--heat-auth-encryption-key",
                  shaped.source.auth_encryption_key, *extra, data_dir=data_dir)


@pytest.fixture(scope="module")
def imported(heat_source: ShapedSource, tmp_path_factory: pytest.TempPathFactory,
             ) -> Iterator[Imported]:
    data_dir = tmp_path_factory.mktemp("imported")
    assert manage("db_sync", data_dir=data_dir).returncode == 0
    done = import_heat(heat_source, data_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    engine, transport = embedded(f"sqlite:///{data_dir / 'hotplate.sqlite'}", workers=4,
                                 secrets=SecretBox(KEY))
    try:
        yield Imported(heat_source, data_dir, engine, done.stdout)
    finally:
        engine.stop()
        transport.stop()


def outputs(imported: Imported, shape: str) -> dict[str, Any]:
    view = imported.engine.service.show_stack(CTXT, imported.identity(shape))[0]
    return {o["output_key"]: o.get("output_value") for o in view.get("outputs") or []}


def resources(imported: Imported, shape: str) -> dict[str, tuple[str, str]]:
    views = imported.engine.service.list_stack_resources(CTXT, imported.identity(shape))
    return {v["resource_name"]: (v["physical_resource_id"],
                                 f"{v['resource_action']}_{v['resource_status']}")
            for v in views}


def heat_value(imported: Imported, shape: str, resource: str) -> str:
    """A RandomString's value as Heat stored it (decrypted with Heat's key)."""
    [row] = imported.heat_rows(
        "SELECT d.value, d.decrypt_method FROM resource_data d JOIN resource r "
        "ON r.id = d.resource_id WHERE r.stack_id = :s AND r.name = :n AND d.key = 'value'",
        s=imported.shaped.stacks[shape], n=resource)
    if row.decrypt_method is None:
        return str(row.value)
    return HeatKey(imported.shaped.source.auth_encryption_key, source="Heat's").decrypt(
        row.decrypt_method, row.value, what="value")


def test_every_live_stack_comes_over_as_heat_left_it(imported: Imported) -> None:
    lines = imported.first.splitlines()
    for shape, stack_id in imported.shaped.stacks.items():
        mine = [line for line in lines if f"({stack_id})" in line]
        if shape == "deleted":
            assert mine == []
            continue
        assert len(mine) == 1 and mine[0].startswith("imported"), imported.first
    listed = {v["stack_name"]: f"{v['stack_action']}_{v['stack_status']}"
              for v in imported.engine.service.list_stacks(CTXT)}
    heat_names = {row.id: row.name for row in imported.heat_rows("SELECT id, name FROM stack")}
    for shape, status in EXPECTED.items():
        name = heat_names[imported.shaped.stacks[shape]]
        if shape == "deleted":
            assert name not in listed
        else:
            assert listed[name] == status, (shape, listed)
    for shape in ("plain", "legacy", "nested", "failed", "updated", "legacy_updated"):
        heat_side = {row.name: (row.nova_instance or "", f"{row.action}_{row.status}")
                     for row in imported.heat_rows(
                         "SELECT name, nova_instance, action, status FROM resource "
                         "WHERE stack_id = :s", s=imported.shaped.stacks[shape])}
        assert resources(imported, shape) == heat_side, shape
        heat_events = imported.heat_rows("SELECT uuid FROM event WHERE stack_id = :s "
                                         "ORDER BY id", s=imported.shaped.stacks[shape])
        ours = imported.engine.service.list_events(CTXT, imported.identity(shape))
        assert sorted(e["event_identity"]["path"].rsplit("/", 1)[-1] for e in ours) == sorted(
            row.uuid for row in heat_events), shape


def test_outputs_and_attributes_read_what_heat_stored(imported: Imported) -> None:
    for shape in ("plain", "legacy"):
        name = heat_value(imported, shape, "name")
        assert outputs(imported, shape) == {  # the hidden parameter Heat stored encrypted
            "greeting": f"hi-{name}", "kept": PLAIN.parameters["secret"]}, shape
        shown = imported.engine.service.describe_stack_resource(
            CTXT, imported.identity(shape), "name")
        assert shown["attributes"]["value"] == name
    assert outputs(imported, "nested")["thing"] == "provided"
    assert len(outputs(imported, "nested")["group"]) == 3
    assert outputs(imported, "updated")["name"] == heat_value(imported, "updated", "name")


def test_legacy_stacks_stay_legacy(imported: Imported) -> None:
    from sqlalchemy import select

    from hotplate.db import schema as s

    with imported.engine.store.engine.connect() as conn:  # type: ignore[attr-defined]
        flags = dict(conn.execute(select(s.stack.c.id, s.stack.c.convergence)).all())
    assert flags[imported.shaped.stacks["legacy"]] is False
    assert flags[imported.shaped.stacks["legacy_updated"]] is False
    assert flags[imported.shaped.stacks["plain"]] is True


@pytest.mark.parametrize("shape", ["plain", "legacy"])
def test_hotplate_updates_an_imported_stack_in_place_then_deletes_it(
        imported: Imported, shape: str) -> None:
    service = imported.engine.service
    identity = imported.identity(shape)
    before = resources(imported, shape)
    template = service.get_template(CTXT, identity)
    service.update_stack(CTXT, identity, template, {"greeting": "bye"}, {},
                         {"existing": True})
    assert settled(imported.engine, identity)["stack_status"] == "COMPLETE"
    assert settled(imported.engine, identity)["stack_action"] == "UPDATE"
    after = resources(imported, shape)
    assert after["name"][0] == before["name"][0]  # the same object, not a replacement
    name = heat_value(imported, shape, "name")
    assert outputs(imported, shape)["greeting"] == f"bye-{name}"
    service.delete_stack(CTXT, identity)
    deadline = time.monotonic() + 120
    while imported.engine.store.get_stack(identity["stack_id"]) is not None:
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_a_group_grows_keeping_its_members(imported: Imported) -> None:
    service = imported.engine.service
    identity = imported.identity("nested")
    members = outputs(imported, "nested")["group"]
    template = service.get_template(CTXT, identity)
    template["resources"]["group"]["properties"]["count"] = 4
    service.update_stack(CTXT, identity, template, {}, {}, {"existing": True})
    view = settled(imported.engine, identity)
    assert (view["stack_action"], view["stack_status"]) == ("UPDATE", "COMPLETE"), view
    grown = outputs(imported, "nested")["group"]
    assert grown[:3] == members and len(grown) == 4


def test_snapshots_and_software_come_over(imported: Imported) -> None:
    service = imported.engine.service
    snapshots = service.stack_list_snapshots(CTXT, imported.identity("snapshotted"))
    assert [snap["id"] for snap in snapshots] == [imported.shaped.snapshot]
    assert snapshots[0]["status"] == "COMPLETE"
    identity = imported.identity("snapshotted")
    before = resources(imported, "snapshotted")
    service.stack_restore(CTXT, identity, imported.shaped.snapshot)
    view = settled(imported.engine, identity)
    assert (view["stack_action"], view["stack_status"]) == ("RESTORE", "COMPLETE"), view
    assert resources(imported, "snapshotted").keys() == before.keys()
    config = service.show_software_config(CTXT, imported.shaped.software["config"])
    assert config["name"] == "made-through-the-api"
    deployment = service.show_software_deployment(CTXT, imported.shaped.software["deployment"])
    assert deployment["config_id"] == imported.shaped.software["config"]


def test_a_second_import_leaves_every_stack_alone(imported: Imported) -> None:
    again = import_heat(imported.shaped, imported.data_dir)
    assert again.returncode == 0, again.stdout + again.stderr
    verdicts = {line.split()[0] for line in again.stdout.splitlines()}
    assert verdicts == {"unchanged"}, again.stdout


def test_changes_in_heat_come_over_and_changes_on_both_sides_are_refused(
        imported: Imported) -> None:
    service = imported.engine.service
    service.stack_check(CTXT, imported.identity("failed"))  # hotplate acts on it...
    settled(imported.engine, imported.identity("failed"))
    source = imported.shaped.source
    source.start()
    try:
        running = import_heat(imported.shaped, imported.data_dir)
        assert running.returncode == 1 and "still report alive" in running.stderr
        hc = source.client()
        hc.actions.resume(imported.shaped.stacks["suspended"])
        hc.actions.check(imported.shaped.stacks["failed"])  # ...and so does Heat
        hc.stacks.delete(imported.shaped.stacks["software"])
        _await_heat(hc, imported.shaped.stacks["suspended"], "RESUME_COMPLETE")
        _await_heat(hc, imported.shaped.stacks["failed"], "CHECK_")
        _await_heat(hc, imported.shaped.stacks["software"], None)
    finally:
        source.stop()
    done = import_heat(imported.shaped, imported.data_dir)
    by_id = {line.split("(")[1].split(")")[0]: line for line in done.stdout.splitlines()}
    stacks = imported.shaped.stacks
    assert by_id[stacks["suspended"]].startswith("updated"), done.stdout
    assert by_id[stacks["software"]].startswith("removed"), done.stdout
    assert by_id[stacks["failed"]].startswith("refused"), done.stdout
    assert "changed in Heat and in hotplate" in by_id[stacks["failed"]]
    assert by_id[stacks["nested"]].startswith("unchanged"), done.stdout
    assert done.returncode == 1 and "1 of" in done.stderr
    view = service.show_stack(CTXT, {"stack_id": stacks["suspended"]})[0]
    assert view["stack_status"] == "COMPLETE" and view["stack_action"] == "RESUME"


def _await_heat(hc: Any, stack_id: str, status: str | None, timeout: float = 120) -> None:
    from heatclient import exc as heat_exc

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            stack = hc.stacks.get(stack_id)
        except heat_exc.HTTPNotFound:
            if status is None:
                return
            raise
        now = stack.stack_status
        if status is None and now == "DELETE_COMPLETE":
            return
        if status is not None and now.startswith(status) and not now.endswith("IN_PROGRESS"):
            return
        time.sleep(0.3)
    raise AssertionError(f"Heat's stack {stack_id} did not reach {status}")


def test_what_cannot_come_is_refused_by_name_and_the_rest_imported(
        heat_source: ShapedSource, tmp_path: Path) -> None:
    """A type this hotplate cannot serve, and a stack name hotplate already has in the
    project, each refuse their stack, saying so; every other stack comes over."""
    from datetime import UTC, datetime

    from hotplate.app import resource_types
    from hotplate.engine.options import EngineOptions
    from hotplate.heat_import.run import Importer
    from hotplate.heat_import.source import HeatDatabase

    real = resource_types(EngineOptions())

    class WithoutNone:
        """The installed plugins less one: as a hotplate without that type would be."""

        def for_resource(self, env: Any, name: str, type_name: str, files: Any) -> Any:
            if type_name == "OS::Heat::None":
                raise LookupError("The Resource Type (OS::Heat::None) could not be found.")
            return real.for_resource(env, name, type_name, files)

    heat = HeatDatabase(heat_source.source.url)
    names = {row["id"]: row["name"] for row in heat.live_stacks()}
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    engine, transport = embedded(url, workers=2, secrets=SecretBox(KEY))
    try:
        mine = engine.service.create_stack(CTXT, names[heat_source.stacks["failed"]], {
            "heat_template_version": "2021-04-16",
            "resources": {"x": {"type": "OS::Heat::None"}}}, {}, {}, {})
        settled(engine, mine)
        outcomes = Importer(heat, engine.store.engine,  # type: ignore[attr-defined]
                            HeatKey(heat_source.source.auth_encryption_key, source="Heat's"),
                            SecretBox(KEY), WithoutNone(), None,
                            clock=lambda: datetime.now(UTC)).run()
    finally:
        heat.close()
        engine.stop()
        transport.stop()
    verdicts = {o.stack_id: o for o in outcomes}
    typeless = verdicts[heat_source.stacks["plain"]]
    assert typeless.verdict == "refused"
    assert "plain" in typeless.line() or heat_source.stacks["plain"] in typeless.line()
    assert "nothing: type OS::Heat::None" in typeless.detail
    clash = verdicts[heat_source.stacks["failed"]]
    assert clash.verdict == "refused"
    assert f"already has a stack named {names[heat_source.stacks['failed']]}" in clash.detail
    assert verdicts[heat_source.stacks["updated"]].verdict == "imported"
