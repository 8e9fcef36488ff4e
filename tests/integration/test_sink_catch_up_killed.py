"""A real ``hotplate serve`` killed with SIGKILL before it handed its events to the outbox:
the next one sends them, each once, to a real HTTP receiver (PostgreSQL and MariaDB).

The test holds a lock on the outbox table while the first server creates a
stack with a webhook sink, so every event is written but none can be handed
over; the server is then killed (its uncommitted hand-over dies with it) and
the lock released. SQLite has no lock on one table that would keep the
events' own writes going, so it is left out here (test_sink_catch_up.py
covers it).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, pool, text

from hotplate.api.background import free_port
from hotplate.db.outbox import OutboxStore
from hotplate.db.store import SqlStore
from tests.api.conftest import Api
from tests.api.helpers import VERSION, create_complete, wait_until_serving
from tests.api.sink_receiver import Receiver
from tests.integration.helpers import FakeClock

TEMPLATE = {
    "heat_template_version": VERSION,
    "resources": {
        "first": {"type": "OS::Heat::None"},
        "second": {"type": "OS::Heat::None", "depends_on": "first"},
    },
}


@contextmanager
def serve(db_url: str, tmp_path: Path) -> Iterator[tuple[Api, subprocess.Popen[str]]]:
    port = free_port()
    log = tmp_path / f"serve-{port}.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "hotplate.cli.main", "--db-url", db_url, "serve",
             "--port", str(port), "--cfn-port", "0", "--noauth"],
            stdout=subprocess.DEVNULL, stderr=out, text=True, env=os.environ.copy())
    try:
        api = Api(f"http://127.0.0.1:{port}")
        wait_until_serving(f"{api.endpoint}/build_info", proc, timeout=60,
                           log=log.read_text)
        yield api, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(30)


@contextmanager
def outbox_locked(db_url: str) -> Iterator[None]:
    """No one may write the outbox table until the block ends (reads go on, on
    PostgreSQL; on MariaDB they wait too)."""
    engine = create_engine(db_url, poolclass=pool.NullPool)
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "postgresql":
                conn.execute(text("LOCK TABLE event_outbox IN EXCLUSIVE MODE"))
                yield
                conn.rollback()
            else:
                conn.execute(text("LOCK TABLES event_outbox WRITE"))
                yield
                conn.execute(text("UNLOCK TABLES"))
    finally:
        engine.dispose()


def test_events_of_a_killed_server_reach_the_webhook_after_a_restart(
        db_url: str, store: SqlStore, tmp_path: Path) -> None:
    if db_url.startswith("sqlite"):
        pytest.skip("SQLite cannot lock the outbox alone (see test_sink_catch_up.py)")
    outbox = OutboxStore(store.engine, FakeClock())
    with Receiver() as receiver:
        env = {"event_sinks": [{"type": "webhook", "url": receiver.url}]}
        with outbox_locked(db_url), serve(db_url, tmp_path) as (api, proc):
            hc = api.client()
            stack_id = create_complete(hc, TEMPLATE, name="killed", environment=env)
            events = [e.id for e in hc.events.list(stack_id)]
            time.sleep(0.5)  # its delivery thread is waiting for the lock by now
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
        assert len(events) == 6
        assert outbox.pending(stack_id) == []
        assert receiver.bodies == []

        with serve(db_url, tmp_path):
            bodies = receiver.wait_for(lambda got: {b["id"] for b in got} >= set(events),
                                       timeout=60)
            time.sleep(1.0)  # room for a repeat to show
        counts = Counter(b["id"] for b in receiver.bodies)
        assert set(counts) == set(events)
        assert all(n == 1 for n in counts.values()), counts
        assert [h["Idempotency-Key"] for h in receiver.headers] == [b["id"] for b in bodies]
