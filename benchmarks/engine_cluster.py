"""Real ``hotplate engine`` commands on a private database and broker vhost, for the
benchmarks that kill engines (``chaos.py``).

Each command runs one engine process (``--workers 1``), so killing the pid it
announces kills exactly one engine; its parent then forks another with a new
engine id. Killing the whole command (its process group) takes the parent
too, and the benchmark starts a new command in its slot. A reader thread per
command follows its announcements, so the slot always knows its current
engine id and pid.

The database and the vhost are made fresh for a run and removed after it:
the machine's PostgreSQL and RabbitMQ are shared, so nothing of another
run's (queues, rows) can reach these engines, and nothing of ours is left.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from tests.distributed.broker_proxy import private_vhost as vhost_of_our_own
from tests.distributed.databases import drop_database, fresh_postgres_database

REPO = Path(__file__).resolve().parent.parent
"""The engines run the code the benchmark runs (``python -m`` from here)."""
ANNOUNCEMENT = "hotplate engine "
"""How an engine process's line starts: ``hotplate engine <id> pid <pid> (host <h>) ...``."""


@dataclass(frozen=True, slots=True)
class EngineProcess:
    """One engine as its command announced it."""

    engine_id: str
    pid: int
    started: float
    """``time.monotonic()`` when the announcement was read."""


def parse_announcement(line: str) -> tuple[str, int] | None:
    """(engine id, pid) from an engine's announcement; None for any other line."""
    if not line.startswith(ANNOUNCEMENT):
        return None
    words = line.split()
    try:
        return words[2], int(words[words.index("pid") + 1])
    except (IndexError, ValueError):
        return None


class EngineCommand:
    """One ``hotplate engine --workers 1`` command, in a process group of its own
    (so the whole command, parent and child, can be SIGKILLed at once)."""

    def __init__(self, host: str, env: Mapping[str, str], threads: int, log: Path) -> None:
        self.host = host
        self._changed = threading.Condition()
        self._current: EngineProcess | None = None
        self.engine_ids: list[str] = []
        """Every engine id this command has announced, oldest first."""
        with log.open("a") as sink:  # the child keeps its own copy of the descriptor
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "hotplate.cli.main", "engine", "--engine-host", host,
                 "--workers", "1", "--threads", str(threads)],
                env=dict(env), cwd=REPO, stdout=subprocess.PIPE, stderr=sink, text=True,
                start_new_session=True)
        assert self.proc.stdout is not None
        self._reader = threading.Thread(target=self._follow, args=(self.proc.stdout,),
                                        daemon=True, name=f"follow-{host}")
        self._reader.start()

    def _follow(self, stdout: IO[str]) -> None:
        for line in stdout:
            found = parse_announcement(line)
            if found is None:
                continue
            with self._changed:
                self._current = EngineProcess(found[0], found[1], time.monotonic())
                self.engine_ids.append(found[0])
                self._changed.notify_all()
        with self._changed:  # the command ended
            self._current = None
            self._changed.notify_all()

    @property
    def current(self) -> EngineProcess | None:
        """The engine now running, None while none is (or is not announced yet)."""
        with self._changed:
            return self._current

    def wait_engine(self, timeout: float, *, not_id: str | None = None) -> EngineProcess:
        """The running engine, waiting up to ``timeout`` for one (other than ``not_id``).

        Raises:
            TimeoutError: none announced in time, or the command ended.
        """
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = self._current
                if found is not None and found.engine_id != not_id:
                    return found
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise TimeoutError(f"engine {self.host}: no engine announced")
                self._changed.wait(min(left, 0.5))

    def kill_engine(self) -> EngineProcess | None:
        """SIGKILL the running engine process (its parent forks another); what was killed."""
        found = self.current
        if found is None:
            return None
        with contextlib.suppress(ProcessLookupError):
            os.kill(found.pid, signal.SIGKILL)
        with self._changed:
            if self._current == found:
                self._current = None
        return found

    def kill_command(self) -> EngineProcess | None:
        """SIGKILL the parent and its engine at once; what engine was killed."""
        found = self.current
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(30)
        self._reader.join(10)
        return found

    def stop(self, timeout: float = 60.0) -> None:
        """SIGTERM (a graceful stop), SIGKILL after ``timeout``."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(30)
        self._reader.join(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


class Cluster:
    """``count`` engine commands, one per slot, each slot refilled when its command dies."""

    def __init__(self, count: int, env: Mapping[str, str], threads: int, logs: Path,
                 prefix: str = "bench",
                 slot_env: Callable[[int], Mapping[str, str]] | None = None) -> None:
        self._env = dict(env)
        self._slot_env = slot_env
        """What a slot's commands get on top of ``env`` (their own links, say)."""
        self._threads = threads
        self._logs = logs
        self._prefix = prefix
        self.retired: list[EngineCommand] = []
        self.commands = [self._start(slot) for slot in range(count)]

    def _start(self, slot: int) -> EngineCommand:
        host = f"{self._prefix}-{slot}"
        env = {**self._env, **(self._slot_env(slot) if self._slot_env else {})}
        return EngineCommand(host, env, self._threads, self._logs / f"{host}.log")

    def wait_all(self, timeout: float = 60.0) -> list[EngineProcess]:
        return [command.wait_engine(timeout) for command in self.commands]

    def replace(self, slot: int) -> EngineCommand:
        """A new command in ``slot`` (after its old one was killed)."""
        self.retired.append(self.commands[slot])
        self.commands[slot] = self._start(slot)
        return self.commands[slot]

    def live_engine_ids(self) -> set[str]:
        return {e.engine_id for c in self.commands if (e := c.current) is not None}

    def all_engine_ids(self) -> list[str]:
        return [i for c in (*self.retired, *self.commands) for i in c.engine_ids]

    def stop(self, timeout: float = 60.0) -> None:
        for command in self.commands:
            if command.proc.poll() is None:
                command.proc.terminate()
        for command in (*self.commands, *self.retired):
            command.stop(timeout)


# -- the private database and vhost ---------------------------------------------------
@contextlib.contextmanager
def private_vhost(broker_url: str, prefix: str = "hotplate-bench") -> Iterator[str]:
    """The fault tests' private vhost, required here: a benchmark run on the machine's
    shared vhost could take another run's messages, so it stops instead."""
    with vhost_of_our_own(broker_url, prefix) as url:
        if url == broker_url:
            raise SystemExit("rabbitmqctl could not make a private vhost: one is needed "
                             "for each run")
        yield url


@contextlib.contextmanager
def scratch_database(server_url: str, name: str, *, keep: bool = False) -> Iterator[str]:
    """A fresh, migrated PostgreSQL database, dropped afterwards (``keep``: left for a
    look at what happened, until the next run of the same name); yields its URL."""
    url = fresh_postgres_database(server_url, name)
    try:
        yield url
    finally:
        if keep:
            print(f"database kept: {url}", file=sys.stderr, flush=True)
        else:
            drop_database(server_url, name)


def utc_now() -> datetime:
    """Now, as the engines write it in the database (aware UTC)."""
    return datetime.now(UTC)
