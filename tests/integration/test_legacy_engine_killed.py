"""A real ``hotplate serve`` with ``convergence_engine = false`` killed (SIGKILL) while
its thread creates a legacy stack: another live server's recovery round, not a restart,
marks the stack CREATE_FAILED "Engine went down during stack CREATE" and lets its lock
go, and an update through that server then works. Stopped by SIGTERM instead, the
server does it itself before it exits, once its grace period is over.

Both servers share one SQLite database (each its own in-process transport: they know of
each other only through the service table, and a probe of the dead one finds nobody).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hotplate.api.background import free_port
from hotplate.app import open_store
from hotplate.db.store import SqlStore
from hotplate.engine.clock import SystemClock
from hotplate.model.ids import StackId
from tests.api.conftest import Api
from tests.api.helpers import VERSION, wait_status, wait_until_serving

INTERVAL = 2
"""periodic_interval of both servers: the killed one reads dead 2 intervals after its
last report, and the live one looks every half interval."""


def template(create_secs: int, value: str) -> dict[str, Any]:
    return {
        "heat_template_version": VERSION,
        "resources": {
            "fast": {"type": "OS::Heat::TestResource", "properties": {"value": value}},
            "slow": {"type": "OS::Heat::TestResource", "depends_on": "fast",
                     "properties": {"value": value,
                                    "action_wait_secs": {"create": create_secs}}},
        },
        "outputs": {"value": {"value": {"get_attr": ["slow", "output"]}}},
    }


@contextmanager
def serve(db_url: str, tmp_path: Path, name: str, **options: str,
          ) -> Iterator[tuple[Api, subprocess.Popen[str]]]:
    """A server on ``db_url``; ``options``: more HOTPLATE_<OPTION> variables."""
    port = free_port()
    log = tmp_path / f"serve-{name}.log"
    env = {**os.environ, "HOTPLATE_CONVERGENCE_ENGINE": "false",
           "HOTPLATE_PERIODIC_INTERVAL": str(INTERVAL), **options}
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "hotplate.cli.main", "--db-url", db_url, "serve",
             "--port", str(port), "--cfn-port", "0", "--noauth"],
            stdout=subprocess.DEVNULL, stderr=out, text=True, env=env)
    try:
        api = Api(f"http://127.0.0.1:{port}")
        wait_until_serving(f"{api.endpoint}/build_info", proc, timeout=60, log=log.read_text)
        yield api, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(30)


def poll(what: Any, timeout: float, message: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = what()
        if found:
            return found
        assert time.monotonic() < deadline, message
        time.sleep(0.1)


def test_a_killed_legacy_holders_stack_is_reset_by_a_live_engine(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'hotplate.sqlite'}"
    with serve(db_url, tmp_path, "a") as (a, a_proc), serve(db_url, tmp_path, "b") as (b, _):
        store: SqlStore = open_store(db_url, SystemClock(), migrate=False)
        created = a.client().stacks.create(stack_name="legacy-killed",
                                           template=template(600, "one"))
        sid = StackId(created["stack"]["id"])
        assert store.get_stack(sid).convergence is False
        holder = store.stack_lock_holder(sid)
        assert holder is not None

        def slow_creating() -> bool:
            rows = {r.name: r for r in store.list_resources(sid)}
            slow = rows.get("slow")
            return slow is not None and str(slow.status) == "IN_PROGRESS"

        poll(slow_creating, 60, "the slow resource never started")
        a_proc.send_signal(signal.SIGKILL)
        a_proc.wait(30)
        assert store.stack_lock_holder(sid) == holder  # the dead engine's lock stays

        hc = b.client()
        failed = poll(lambda: (s := hc.stacks.get(sid)).stack_status != "CREATE_IN_PROGRESS"
                      and s, 60, "no live engine reset the stack")
        assert failed.stack_status == "CREATE_FAILED"
        assert failed.stack_status_reason == "Engine went down during stack CREATE"
        states = {r.resource_name: (r.resource_status, r.resource_status_reason)
                  for r in hc.resources.list(sid)}
        assert states == {"fast": ("CREATE_COMPLETE", "state changed"),
                          "slow": ("CREATE_FAILED", "Engine went down during stack CREATE")}
        assert store.stack_lock_holder(sid) is None
        assert not any(r.engine_id for r in store.list_resources(sid))

        hc.stacks.update(sid, template=template(0, "two"))
        done = wait_status(hc, sid, timeout=60)
        assert done.stack_status == "UPDATE_COMPLETE", done.stack_status_reason
        assert {o["output_key"]: o["output_value"] for o in done.outputs} == {"value": "two"}
        poll(lambda: store.stack_lock_holder(sid) is None, 30, "the update kept the lock")
        store.engine.dispose()


def test_a_legacy_holder_stopped_by_sigterm_resets_what_it_did_not_finish(
        tmp_path: Path) -> None:
    """SIGTERM: the server lets its legacy operations run for graceful_shutdown_timeout;
    the create that ends meanwhile completes, the other ends CREATE_FAILED "Engine went
    down during stack CREATE" with its lock released before the server exits (the other
    server's recovery rounds are minutes apart: nobody else did it), and the other
    server updates it at once."""
    db_url = f"sqlite:///{tmp_path / 'hotplate.sqlite'}"
    grace, rare = 8, {"HOTPLATE_PERIODIC_INTERVAL": "600"}
    with serve(db_url, tmp_path, "a", HOTPLATE_GRACEFUL_SHUTDOWN_TIMEOUT=str(grace),
               **rare) as (a, a_proc), serve(db_url, tmp_path, "b", **rare) as (b, _):
        store: SqlStore = open_store(db_url, SystemClock(), migrate=False)
        ha = a.client()
        stuck = StackId(ha.stacks.create(stack_name="legacy-stuck",
                                         template=template(600, "one"))["stack"]["id"])

        def slow_creating() -> bool:
            rows = {r.name: r for r in store.list_resources(stuck)}
            slow = rows.get("slow")
            return slow is not None and str(slow.status) == "IN_PROGRESS"

        poll(slow_creating, 60, "the slow resource never started")
        quick = StackId(ha.stacks.create(stack_name="legacy-quick",
                                         template=template(2, "one"))["stack"]["id"])
        a_proc.send_signal(signal.SIGTERM)
        assert a_proc.wait(grace + 30) == 0

        done = store.get_stack(quick)
        assert (str(done.action), str(done.status)) == ("CREATE", "COMPLETE"), (
            done.status_reason)
        reset = store.get_stack(stuck)
        assert (str(reset.action), str(reset.status), reset.status_reason) == (
            "CREATE", "FAILED", "Engine went down during stack CREATE")
        assert store.stack_lock_holder(stuck) is None
        assert store.stack_lock_holder(quick) is None
        assert not any(r.engine_id for r in store.list_resources(stuck))

        hb = b.client()
        hb.stacks.update(stuck, template=template(0, "two"))
        updated = wait_status(hb, stuck, timeout=60)
        assert updated.stack_status == "UPDATE_COMPLETE", updated.stack_status_reason
        assert {o["output_key"]: o["output_value"] for o in updated.outputs} == {
            "value": "two"}
        store.engine.dispose()
