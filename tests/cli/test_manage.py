"""``heat-manage`` (and ``hotplate manage``) as an operator runs it: the installed script,
in a process of its own, on the database an engine uses (SQLite under the data directory,
or [database]/connection), with heat-manage's verbs, output and errors."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from hotplate.app import Engine, embedded
from hotplate.db import migrate
from hotplate.db.crypt import SecretBox
from hotplate.model.states import Status

KEY = "0123456789abcdef0123456789abcdef"
CTXT: dict[str, Any] = {"project_id": "admin", "tenant_id": "admin", "is_admin": True}
SCRIPT = Path(sys.executable).parent / "heat-manage"


@dataclass
class Running:
    engine: Engine
    data_dir: Path


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """An embedded engine on SQLite in a data directory, with the key of the commands."""
    data_dir = tmp_path_factory.mktemp("manage")
    engine, transport = embedded(f"sqlite:///{data_dir / 'hotplate.sqlite'}", workers=4,
                                 secrets=SecretBox(KEY))
    try:
        yield Running(engine, data_dir)
    finally:
        engine.stop()
        transport.stop()


def manage(*args: str, data_dir: Path, script: bool = True, stdin: str = "",
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``heat-manage ARGS`` (or ``hotplate manage ARGS``) with the data directory given
    the way scripts/heat_functional.sh gives it: HOTPLATE_DATA_DIR."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("HOTPLATE_")}
    command = ([str(SCRIPT)] if script
               else [sys.executable, "-m", "hotplate.cli.main", "manage"])
    done = subprocess.run(
        [*command, *args], input=stdin, capture_output=True, text=True, timeout=120,
        cwd=data_dir, env={**base, "HOME": str(data_dir), "HOTPLATE_DATA_DIR": str(data_dir),
                           "HOTPLATE_AUTH_ENCRYPTION_KEY": KEY, **(env or {})})
    assert "Traceback" not in done.stderr, done.stderr
    return done


def settled(engine: Engine, identity: Any, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        view: dict[str, Any] = engine.service.show_stack(CTXT, identity)[0]
        if view["stack_status"] != "IN_PROGRESS":
            return view
        assert time.monotonic() < deadline, view
        time.sleep(0.05)


def _gone(engine: Engine, stack_id: str) -> None:
    deadline = time.monotonic() + 60
    while engine.store.get_stack(stack_id) is not None:  # live rows only
        assert time.monotonic() < deadline
        time.sleep(0.05)


def created_and_deleted(engine: Engine, name: str) -> str:
    service = engine.service
    identity = service.create_stack(CTXT, name, {
        "heat_template_version": "2021-04-16",
        "resources": {"thing": {"type": "OS::Heat::TestResource"}}}, {}, {},
        {"tags": "foo,bar"})
    assert settled(engine, identity)["stack_status"] == "COMPLETE"
    service.delete_stack(CTXT, identity)
    _gone(engine, str(identity["stack_id"]))
    return str(identity["stack_id"])


def listed_with_deleted(engine: Engine) -> set[str]:
    return {view["stack_identity"]["stack_id"]
            for view in engine.service.list_stacks(CTXT, show_deleted=True)}


def test_heat_manage_is_installed_as_a_script() -> None:
    [found] = [ep for ep in entry_points(group="console_scripts") if ep.name == "heat-manage"]
    assert found.value == "hotplate.cli.manage:main"
    assert SCRIPT.is_file() and os.access(SCRIPT, os.X_OK)


def test_purge_deleted_0_removes_a_deleted_stack_from_the_engines_database(
        running: Running) -> None:
    """Heat's functional test_purge, here: the stack leaves show_deleted listings."""
    engine = running.engine
    stack_id = created_and_deleted(engine, "purged")
    assert stack_id in listed_with_deleted(engine)
    time.sleep(1)  # purge_deleted 0 takes what was deleted before now

    done = manage("purge_deleted", "0", data_dir=running.data_dir)

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert stack_id not in listed_with_deleted(engine)
    assert engine.store.get_stack(stack_id, include_deleted=True) is None


def test_purge_deleted_keeps_what_is_younger_than_the_age(running: Running) -> None:
    engine = running.engine
    stack_id = created_and_deleted(engine, "kept")
    for args in (("1",), ("1", "-g", "hours"), ("60", "--granularity", "seconds")):
        done = manage("purge_deleted", *args, "-b", "5", data_dir=running.data_dir,
                      script=False)
        assert done.returncode == 0, done.stderr
        assert engine.store.get_stack(stack_id, include_deleted=True) is not None
    done = manage("purge_deleted", "0", "-p", "someone-else", data_dir=running.data_dir)
    assert done.returncode == 0, done.stderr
    assert engine.store.get_stack(stack_id, include_deleted=True) is not None
    done = manage("purge_deleted", "0", "--project-id", "admin", data_dir=running.data_dir)
    assert done.returncode == 0, done.stderr
    assert engine.store.get_stack(stack_id, include_deleted=True) is None


@pytest.mark.parametrize(("args", "error"), [
    (("x",), "ERROR: age should be an integer\n"),
    (("-1",), "ERROR: age should be a positive integer\n"),
    (("1", "-b", "many"), "ERROR: batch_size should be an integer\n"),
])
def test_purge_deleted_refuses_what_heat_refuses(running: Running, args: tuple[str, ...],
                                                 error: str) -> None:
    done = manage("purge_deleted", *args, data_dir=running.data_dir)
    assert (done.returncode, done.stderr) == (1, error)


def test_purge_deleted_granularity_is_one_of_heats(running: Running) -> None:
    done = manage("purge_deleted", "1", "-g", "weeks", data_dir=running.data_dir)
    assert done.returncode == 2
    assert "invalid choice: 'weeks'" in done.stderr


def test_db_version_and_db_sync(running: Running, tmp_path: Path) -> None:
    done = manage("db_version", data_dir=running.data_dir)
    assert (done.returncode, done.stdout) == (0, f"{migrate.head()}\n")
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    assert manage("db_version", data_dir=fresh).stdout == "None\n"
    done = manage("db_sync", data_dir=fresh)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert manage("db_version", data_dir=fresh).stdout == f"{migrate.head()}\n"


def test_a_database_behind_the_schema_is_refused_until_db_sync(tmp_path: Path) -> None:
    done = manage("service", "list", data_dir=tmp_path)
    assert done.returncode == 1
    assert done.stderr == (f"ERROR: the database is at schema revision None, not "
                           f"{migrate.head()}: run db_sync first\n")


def test_the_database_is_the_configured_one(running: Running, tmp_path: Path) -> None:
    """[database]/connection from a configuration file wins over the data directory."""
    conf = tmp_path / "hotplate.conf"
    conf.write_text(f"[database]\nconnection = sqlite:///{running.data_dir}/hotplate.sqlite\n")
    done = manage("--config-file", str(conf), "service", "list", data_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert running.engine.deps.engine_id in done.stdout
    done = manage("service", "list", data_dir=tmp_path, env={
        "HOTPLATE_DB_URL": f"sqlite:///{running.data_dir}/hotplate.sqlite"})
    assert running.engine.deps.engine_id in done.stdout
    done = manage("--db-url", f"sqlite:///{running.data_dir}/hotplate.sqlite", "service",
                  "list", data_dir=tmp_path, script=False)
    assert running.engine.deps.engine_id in done.stdout


def test_service_list_and_clean(running: Running) -> None:
    engine = running.engine
    store = engine.store
    dead = "dead0000-0000-4000-8000-000000000000"
    store.register_service(dead, "gone-host", "gone-host", "heat-engine",  # type: ignore[arg-type]
                           "engine", 1)
    time.sleep(2.1)  # two report intervals of the dead one

    done = manage("service", "list", data_dir=running.data_dir)

    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()
    assert header.split() == ["Hostname", "Binary", "Engine_Id", "Host", "Topic", "Status",
                              "Updated", "At"]
    assert header.index("Engine_Id") == 34 and header.index("Host ") == 71
    status = {row.split()[2]: row.split()[5] for row in rows}
    assert status == {engine.deps.engine_id: "up", dead: "down"}

    done = manage("service", "clean", data_dir=running.data_dir)
    assert (done.returncode, done.stdout) == (0, "Dead engines are removed.\n")
    assert [s.engine_id for s in store.list_services()] == [engine.deps.engine_id]


def test_migrate_properties_data_is_heats_deprecated_no_op(running: Running) -> None:
    done = manage("migrate_properties_data", data_dir=running.data_dir)
    assert (done.returncode, done.stdout) == (
        0, "This command has been deprecated and is now a no-op. It will be removed in a "
           "future release.\n")


SLOW = {"heat_template_version": "2021-04-16",
        "resources": {"slow": {"type": "OS::Heat::TestResource",
                               "properties": {"value": "x", "wait_secs": 3}}}}
WARNING = ("Warning: this command is potentially destructive and only intended to recover "
           "from specific crashes.\nIt is advised to shutdown all Heat engines beforehand.\n"
           "Continue ? [y/N]\n")


def test_reset_stack_status_asks_then_fails_a_stack_paused_at_a_hook(running: Running,
                                                                     ) -> None:
    engine = running.engine
    hooked = {"resource_registry": {"resources": {"slow": {"hooks": "pre-create"}}}}
    identity = engine.service.create_stack(CTXT, "paused", SLOW, hooked, {}, {})
    stack_id = str(identity["stack_id"])
    [row] = engine.store.list_resources(stack_id)
    deadline = time.monotonic() + 60
    while "pre-create" not in engine.store.get_resource_data(row.id):
        assert time.monotonic() < deadline
        time.sleep(0.05)

    done = manage("reset_stack_status", stack_id, data_dir=running.data_dir, stdin="n\n")
    assert (done.returncode, done.stdout) == (0, WARNING)
    assert engine.service.show_stack(CTXT, identity)[0]["stack_status"] == "IN_PROGRESS"

    done = manage("reset_stack_status", stack_id, data_dir=running.data_dir, stdin="y\n")
    assert (done.returncode, done.stdout, done.stderr) == (0, WARNING, "")
    view = engine.service.show_stack(CTXT, identity)[0]
    assert (view["stack_status"], view["stack_status_reason"]) == (
        "FAILED", "Stack status manually reset")
    assert "pre-create" not in engine.store.get_resource_data(row.id)
    after = engine.store.get_resource(row.id)
    assert after is not None and after.status is not Status.IN_PROGRESS
    engine.service.delete_stack(CTXT, identity)
    _gone(engine, stack_id)


def test_a_stack_reset_mid_create_is_deleted_while_its_worker_still_waits(
        running: Running) -> None:
    engine = running.engine
    waiting = {**SLOW, "resources": {"slow": {"type": "OS::Heat::TestResource",
                                              "properties": {"value": "x",
                                                             "action_wait_secs": {"create": 30}}}}}
    identity = engine.service.create_stack(CTXT, "stuck", waiting, {}, {}, {})
    stack_id = str(identity["stack_id"])
    done = manage("reset_stack_status", stack_id, data_dir=running.data_dir, stdin="y\n")
    assert done.returncode == 0, done.stderr
    view = engine.service.show_stack(CTXT, identity)[0]
    assert (view["stack_status"], view["stack_status_reason"]) == (
        "FAILED", "Stack status manually reset")
    [row] = engine.service.list_stack_resources(CTXT, identity)
    assert (row["resource_status"], row["resource_status_reason"]) == (
        "FAILED", "Stack status manually reset")
    engine.service.delete_stack(CTXT, identity)  # long before the create's wait is over
    _gone(engine, stack_id)


def test_reset_stack_status_of_no_such_stack(running: Running) -> None:
    done = manage("reset_stack_status", "nope", data_dir=running.data_dir, stdin="yes\n")
    assert (done.returncode, done.stdout, done.stderr) == (
        1, WARNING, "ERROR: Stack with id nope not found\n")


def test_resource_data_list_shows_a_resources_data_decrypted(running: Running) -> None:
    engine = running.engine
    identity = engine.service.create_stack(CTXT, "random", {
        "heat_template_version": "2021-04-16",
        "resources": {"word": {"type": "OS::Heat::RandomString"}}}, {}, {}, {})
    assert settled(engine, identity)["stack_status"] == "COMPLETE"
    [row] = engine.store.list_resources(identity["stack_id"])
    data = engine.store.get_resource_data(row.id)
    assert data["value"] and len(data["value"]) == 32  # RandomString's default length

    done = manage("resource_data_list", str(row.id), data_dir=running.data_dir)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "".join(f"{key:<16} {value:<64}\n" for key, value in data.items())
    assert f"value            {data['value']}" in done.stdout


@pytest.mark.parametrize("resource_id", ["999999", "not-a-number"])
def test_resource_data_list_of_nothing(running: Running, resource_id: str) -> None:
    done = manage("resource_data_list", resource_id, data_dir=running.data_dir)
    assert (done.returncode, done.stderr) == (1, "ERROR: no resource data found\n")


HIDDEN = {"heat_template_version": "2021-04-16",
          "parameters": {"pw": {"type": "string", "hidden": True}},
          "resources": {"thing": {"type": "OS::Heat::None"}}}


def _stored_environments(data_dir: Path) -> list[dict[str, Any]]:
    from sqlalchemy import create_engine, select

    from hotplate.db import schema as s

    engine = create_engine(f"sqlite:///{data_dir / 'hotplate.sqlite'}")
    try:
        with engine.connect() as conn:
            return [env for env in conn.execute(select(s.raw_template.c.environment)).scalars()
                    if (env or {}).get("parameters")]
    finally:
        engine.dispose()


def test_update_params_decrypts_and_encrypts_hidden_parameters(tmp_path: Path) -> None:
    engine, transport = embedded(
        f"sqlite:///{tmp_path / 'hotplate.sqlite'}", workers=2,
        secrets=SecretBox(KEY, encrypt_parameters_and_properties=True))
    try:
        identity = engine.service.create_stack(CTXT, "hidden", HIDDEN,
                                               {"parameters": {"pw": "pa55"}}, {}, {})
        assert settled(engine, identity)["stack_status"] == "COMPLETE"
    finally:
        engine.stop()  # its service row goes: no engine reports any more
        transport.stop()
    [sealed] = _stored_environments(tmp_path)
    assert sealed["encrypted_param_names"] == ["pw"] and "pa55" not in repr(sealed)

    done = manage("update_params", "decrypt", "--verbose-update-params", data_dir=tmp_path)

    assert done.returncode == 0, done.stderr
    assert "templates' hidden parameters: 1\n" in done.stdout
    [plain] = _stored_environments(tmp_path)
    assert plain["parameters"]["pw"] == "pa55" and "encrypted_param_names" not in plain
    done = manage("update_params", "encrypt", data_dir=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    [again] = _stored_environments(tmp_path)
    assert again["encrypted_param_names"] == ["pw"] and "pa55" not in repr(again)


def test_update_params_refuses_while_an_engine_reports(running: Running) -> None:
    done = manage("update_params", "encrypt", data_dir=running.data_dir)
    assert done.returncode == 1
    assert done.stderr.startswith("ERROR: ") and " engine(s) reported to this " in done.stderr
    assert done.stderr.endswith("stop every engine first\n")


CHAIN = {"heat_template_version": "2021-04-16", "resources": {
    "first": {"type": "OS::Heat::TestResource", "properties": {"value": "one"}},
    "second": {"type": "OS::Heat::TestResource",
               "properties": {"value": {"get_attr": ["first", "output"]}}}}}


def _as_legacy(data_dir: Path, stack_id: str) -> None:
    """What the legacy engine leaves: no traversal, rows without template or requires."""
    from sqlalchemy import create_engine, update

    from hotplate.db import schema as s

    engine = create_engine(f"sqlite:///{data_dir / 'hotplate.sqlite'}")
    try:
        with engine.begin() as conn:
            conn.execute(update(s.stack).where(s.stack.c.id == stack_id).values(
                convergence=False, current_traversal=None, current_deps=None))
            conn.execute(update(s.resource).where(s.resource.c.stack_id == stack_id).values(
                current_template_id=None, requires=[]))
    finally:
        engine.dispose()


def test_migrate_convergence_1_then_the_engine_updates_and_deletes_the_stack(
        running: Running) -> None:
    engine = running.engine
    identity = engine.service.create_stack(CTXT, "legacy", CHAIN, {}, {}, {})
    assert settled(engine, identity)["stack_status"] == "COMPLETE"
    stack_id = str(identity["stack_id"])
    _as_legacy(running.data_dir, stack_id)

    done = manage("migrate_convergence_1", stack_id, data_dir=running.data_dir)

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    migrated = engine.store.get_stack(stack_id)
    assert migrated is not None and migrated.convergence
    rows = {row.name: row for row in engine.store.list_resources(stack_id)}
    assert rows["second"].requires == (rows["first"].id,)
    assert rows["first"].current_template_id == migrated.raw_template_id

    changed = {"heat_template_version": "2021-04-16", "resources": {
        "second": {"type": "OS::Heat::TestResource", "properties": {"value": "alone"}}}}
    engine.service.update_stack(CTXT, identity, changed, {}, {}, {})
    view = settled(engine, identity)
    assert (view["stack_action"], view["stack_status"]) == ("UPDATE", "COMPLETE"), view
    # The stack reads COMPLETE before its deleted rows are purged, as in Heat (mark_complete,
    # then purge_db): the purge is waited for.
    deadline = time.monotonic() + 60
    while (names := [r.name for r in engine.store.list_resources(stack_id)]) != ["second"]:
        assert time.monotonic() < deadline, names
        time.sleep(0.05)
    engine.service.delete_stack(CTXT, identity)
    _gone(engine, stack_id)


def test_migrate_convergence_1_refusals_read_as_heats(running: Running) -> None:
    engine = running.engine
    done = manage("migrate_convergence_1", "no-such", data_dir=running.data_dir)
    assert (done.returncode, done.stderr) == (
        1, "ERROR: Stack with id no-such can not be found.\n")
    identity = engine.service.create_stack(CTXT, "busy", SLOW, {}, {}, {})
    _as_legacy(running.data_dir, str(identity["stack_id"]))
    done = manage("migrate_convergence_1", str(identity["stack_id"]),
                  data_dir=running.data_dir)
    assert (done.returncode, done.stderr) == (
        1, "ERROR: Stack busy has an action (CREATE) in progress or failed state.\n")
    done = manage("reset_stack_status", str(identity["stack_id"]), data_dir=running.data_dir,
                  stdin="y\n")  # its create stopped with its traversal: leave it settled
    assert done.returncode == 0, done.stderr
