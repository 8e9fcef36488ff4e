"""``hotplate engine`` as heat-engine runs: a parent that forks ``num_engine_workers``
engine processes and keeps that many running, on the real PostgreSQL and RabbitMQ.

Each child is an engine of its own (engine id, RPC servers, service row);
the parent replaces a child that dies, stops them all on SIGTERM, and takes
them with it when it is killed. The command is configured the way an
operator would: a heat.conf-style file, with a flag over it.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, pool, text

from tests.distributed.test_notifications import Inbox

pytestmark = pytest.mark.timeout(180)

START_SECS = 60.0
STOP_SECS = 30.0


@dataclass
class Launched:
    """A running ``hotplate engine`` and what its engine processes announced."""

    proc: subprocess.Popen[str]
    host: str
    log: Path
    lines: queue.Queue[str] = field(default_factory=queue.Queue)

    def announced(self, timeout: float = START_SECS) -> tuple[str, int]:
        """The next engine process to start: (engine id, pid)."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"no engine process started: {self.log.read_text()}")
        words = line.split()
        assert words[:2] == ["hotplate", "engine"], line
        assert f"(host {self.host})" in line
        return words[2], int(words[words.index("pid") + 1])


@pytest.fixture
def launch(broker_url: str, server_db_url: str,
           tmp_path: Path) -> Iterator[Callable[..., Launched]]:
    started: list[Launched] = []

    def start(*flags: str, extra: str = "") -> Launched:
        host = f"procs-{uuid.uuid4().hex[:8]}"
        conf = tmp_path / f"{host}.conf"
        conf.write_text(f"""\
[DEFAULT]
host = {host}
transport_url = {broker_url}
num_engine_workers = 2
executor_thread_pool_size = 2
graceful_shutdown_timeout = 10
debug = true

[database]
connection = {server_db_url}

[keystone_authtoken]
auth_type = password
{extra}""")
        log = tmp_path / f"{host}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("HOTPLATE_")}
        with log.open("w") as sink:
            proc = subprocess.Popen(
                [sys.executable, "-m", "hotplate.cli.main", "engine", "--config-file",
                 str(conf), *flags], env=env, stdout=subprocess.PIPE, stderr=sink, text=True)
        launched = Launched(proc, host, log)
        threading.Thread(target=_pump, args=(proc, launched.lines), daemon=True).start()
        started.append(launched)
        return launched

    yield start
    for launched in started:
        for pid in children_of(launched.proc.pid):
            _kill(pid)
        if launched.proc.poll() is None:
            launched.proc.kill()
            launched.proc.wait(10)
    # The database is the session's: rows of engines killed here would show in the
    # service lists other tests read.
    engine = create_engine(server_db_url, poolclass=pool.NullPool)
    try:
        with engine.begin() as conn:
            for launched in started:
                conn.execute(text("DELETE FROM service WHERE host = :host"),
                             {"host": launched.host})
    finally:
        engine.dispose()


def _pump(proc: subprocess.Popen[str], lines: queue.Queue[str]) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.put(line.strip())
    proc.stdout.close()


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def children_of(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def eventually(check: Callable[[], Any], what: str, timeout: float = STOP_SECS) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def services(db_url: str, host: str) -> dict[str, bool]:
    """engine id -> whether its service row is live (not soft-deleted)."""
    engine = create_engine(db_url, poolclass=pool.NullPool)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT engine_id, deleted_at FROM service "
                                     "WHERE host = :host"), {"host": host}).all()
    finally:
        engine.dispose()
    return {row.engine_id: row.deleted_at is None for row in rows}


def test_two_workers_are_two_engines_each_with_its_service_row(
        launch: Callable[..., Launched], server_db_url: str) -> None:
    launched = launch()
    first, second = launched.announced(), launched.announced()
    assert first[0] != second[0] and first[1] != second[1]
    assert children_of(launched.proc.pid) == {first[1], second[1]}
    eventually(lambda: services(server_db_url, launched.host) == {first[0]: True,
                                                                  second[0]: True},
               "both engines registered")
    # The parent only supervises: it made no thread (oslo.messaging and SQLAlchemy
    # are not fork-safe, so nothing may run beside the fork).
    assert len(os.listdir(f"/proc/{launched.proc.pid}/task")) == 1


def test_a_killed_engine_process_is_replaced_by_a_new_engine(
        launch: Callable[..., Launched], server_db_url: str) -> None:
    launched = launch("--workers", "1")  # the flag over the file's 2: one child still
    engine_id, pid = launched.announced()
    assert pid != launched.proc.pid and children_of(launched.proc.pid) == {pid}
    os.kill(pid, signal.SIGKILL)
    new_id, new_pid = launched.announced(timeout=30)
    assert new_id != engine_id and new_pid != pid
    assert children_of(launched.proc.pid) == {new_pid}
    eventually(lambda: services(server_db_url, launched.host).get(new_id),
               "the new engine registered")
    assert launched.proc.poll() is None
    assert "killed by signal 9" in launched.log.read_text()


def test_sigterm_stops_every_engine_and_their_rows_go(
        launch: Callable[..., Launched], server_db_url: str) -> None:
    launched = launch()
    engines = dict([launched.announced(), launched.announced()])
    eventually(lambda: len(services(server_db_url, launched.host)) == 2, "registered")
    launched.proc.send_signal(signal.SIGTERM)
    assert launched.proc.wait(STOP_SECS) == 0
    assert not any(alive(pid) for pid in engines.values())
    assert services(server_db_url, launched.host) == dict.fromkeys(engines, False)


def test_a_killed_parent_takes_its_engines_with_it(
        launch: Callable[..., Launched], server_db_url: str) -> None:
    launched = launch()
    engines = dict([launched.announced(), launched.announced()])
    eventually(lambda: len(services(server_db_url, launched.host)) == 2, "registered")
    launched.proc.send_signal(signal.SIGKILL)
    launched.proc.wait(10)
    eventually(lambda: not any(alive(pid) for pid in engines.values()),
               "engine processes outlived their parent")
    # They got SIGTERM from the kernel, so they stopped as on any SIGTERM.
    assert services(server_db_url, launched.host) == dict.fromkeys(engines, False)


def test_notifications_configured_in_the_file_reach_the_broker(
        launch: Callable[..., Launched], broker_url: str) -> None:
    """[oslo_messaging_notifications] from the file: each engine process sends Heat's
    notifications through its own notifier, built after the fork."""
    from hotplate.app import api_transport
    from hotplate.rpc.topics import ENGINE_TOPIC

    launched = launch("--workers", "1",
                      extra="[oslo_messaging_notifications]\ndriver = messagingv2\n")
    launched.announced()
    inbox = Inbox(broker_url)
    transport = api_transport(broker_url, workers=1)
    try:
        ident = transport.call(
            {"project_id": "demo", "username": "alice", "is_admin": True}, ENGINE_TOPIC,
            "create_stack", {"stack_name": "told", "template": {
                "heat_template_version": "2021-04-16",
                "resources": {"r": {"type": "OS::Heat::None"}}},
                "params": {}, "files": {}, "args": {}},
            server=launched.host, timeout=60)
        told = inbox.wait_for(ident["stack_id"], "orchestration.stack.create.start",
                              "orchestration.stack.create.end")
    finally:
        transport.stop()
        inbox.close()
    assert {m["publisher_id"] for m in told} == {f"orchestration.{launched.host}"}
