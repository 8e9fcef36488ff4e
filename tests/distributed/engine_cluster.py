"""Real ``hotplate engine`` processes for the fault tests.

- ``EngineCommand``: one ``hotplate engine`` command (a parent and its one
  child engine process) in a process group of its own, so that a test can
  signal the child, the parent, or, when cleaning up, all of them at once.
  The parent prints one line per child it starts; a reader thread keeps
  them, so a test knows each child's engine id and pid, and sees a
  replacement arrive.
- ``Cluster``: named commands on one database and one broker, with the
  short timers the faults need, the test's own way in (an EngineRpc on the
  broker, as hotplate api has; a Store on the database, to read what
  happened) and the checks every test makes (made once, no lock left).
- ``private_database``: a PostgreSQL database of the caller's, named afresh
  each time (several runs of these tests may share the machine), so no row
  of another run's engines ever reaches these; removed afterwards
  (broker_proxy.py has the broker's counterpart, and the proxy that cuts it).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hotplate.api.rpc import EngineRpc
from hotplate.app import api_transport
from hotplate.db.engine import make_engine
from hotplate.db.store import SqlStore
from hotplate.engine.clock import SystemClock
from hotplate.model.ids import EngineId, StackId
from hotplate.model.records import EventRecord, StackRecord
from tests.distributed.broker_proxy import BrokerProxy
from tests.distributed.databases import drop_database, fresh_database

CTXT = {"project_id": "demo", "username": "demo", "is_admin": False}

TIMERS = {
    "HOTPLATE_PERIODIC_INTERVAL": "1",
    "HOTPLATE_ENGINE_LIFE_CHECK_TIMEOUT": "1",
    "HOTPLATE_STALLED_TRAVERSAL_TIMEOUT": "3",
    "HOTPLATE_GRACEFUL_SHUTDOWN_TIMEOUT": "2",
}
"""Short timers: a dead engine is found within about 4 s, a lost cast sent again
after 3 s, a stopping engine hands over what runs after 2 s."""

THREADS = 4
START_TIMEOUT = 60.0


def wait_until(check: Callable[[], Any], what: str, timeout: float = 60.0,
               every: float = 0.1, detail: Callable[[], Any] | None = None) -> Any:
    """Poll ``check`` until it answers something true, and return that; on timeout,
    fail saying ``what`` (and ``detail()``, what was seen instead)."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            seen = f": {detail()}" if detail is not None else ""
            raise AssertionError(f"{what}: not within {timeout:g} s{seen}")
        time.sleep(every)


# -- a database of its own ---------------------------------------------------------
@contextlib.contextmanager
def private_database(server_url: str, prefix: str) -> Iterator[str]:
    """A migrated database made for the caller on ``server_url``'s server; dropped
    afterwards, with any connection a killed engine left open."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    url = fresh_database(server_url, name)
    try:
        yield url
    finally:
        drop_database(server_url, name)


# -- engine processes ---------------------------------------------------------------
@dataclass(frozen=True)
class Child:
    """One engine process, as its parent announced it."""

    engine_id: str
    pid: int


class EngineCommand:
    """One ``hotplate engine --workers 1`` command, in a process group of its own."""

    def __init__(self, name: str, env: Mapping[str, str], log: Path,
                 prefix: Sequence[str] = ()) -> None:
        self.name = name
        self.log = log
        self.children: list[Child] = []
        self._changed = threading.Condition()
        with log.open("a") as sink:  # the processes keep their own copy of the descriptor
            self.proc = subprocess.Popen(
                [*prefix, sys.executable, "-m", "hotplate.cli.main", "engine",
                 "--engine-host", name,
                 "--workers", "1", "--threads", str(THREADS)],
                env=dict(env), stdout=subprocess.PIPE, stderr=sink, text=True,
                start_new_session=True, preexec_fn=_stop_with_the_test)
        self._reader = threading.Thread(target=self._read, name=f"announce-{name}",
                                        daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            words = line.split()
            if words[:2] == ["hotplate", "engine"] and "pid" in words:
                child = Child(words[2], int(words[words.index("pid") + 1]))
                with self._changed:
                    self.children.append(child)
                    self._changed.notify_all()

    def child(self, *, after: int = 0, timeout: float = START_TIMEOUT) -> Child:
        """The child announced after the first ``after`` ones (waiting for it)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while len(self.children) <= after:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError(f"engine {self.name} announced no child "
                                         f"#{after + 1}: {self.log_tail()}")
                self._changed.wait(min(left, 0.5))
            return self.children[after]

    @property
    def current(self) -> Child:
        return self.child(after=len(self.children) - 1 if self.children else 0)

    def running(self) -> bool:
        return self.proc.poll() is None

    def signal_child(self, signum: int) -> Child:
        child = self.current
        os.kill(child.pid, signum)
        return child

    def terminate(self, timeout: float = 30.0) -> int:
        """SIGTERM to the parent (its children stop gracefully); its exit status."""
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def kill_parent(self) -> None:
        """SIGKILL the parent alone: its children must notice by themselves."""
        self.proc.kill()
        self.proc.wait(10)

    def destroy(self) -> None:
        """SIGKILL the whole process group (cleanup: whatever is left of it)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)
        for child in self.children:  # a child outlives its group only if it moved away
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(child.pid, signal.SIGCONT)
                os.kill(child.pid, signal.SIGKILL)
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def log_tail(self, chars: int = 3000) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return text[-chars:]


def _stop_with_the_test() -> None:
    """In the forked command, before it runs: SIGTERM when the test process dies, however
    it dies (Linux), so that a killed test run leaves no engine behind (the command's
    own children then die with it)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


_PR_SET_PDEATHSIG = 1


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


class Cluster:
    """Engine commands by name on one database and broker; see the module docstring."""

    def __init__(self, db_url: str, broker_url: str, engine_broker_url: str,
                 root: Path, *, proxy: BrokerProxy | None = None) -> None:
        self.db_url = db_url
        self.proxy = proxy
        """What stands between the engines and the broker, if anything."""
        self.root = root
        self.commands: dict[str, EngineCommand] = {}
        self._retired: list[EngineCommand] = []
        base = {k: v for k, v in os.environ.items() if not k.startswith("HOTPLATE_")}
        self.env = {**base, **TIMERS, "HOTPLATE_DB_URL": db_url,
                    "HOTPLATE_TRANSPORT_URL": engine_broker_url}
        # Pre-ping: a test terminates the database's connections, ours among them.
        self._db = make_engine(db_url, pool_size=2, pre_ping=True)
        self.store = SqlStore(self._db, SystemClock())
        self._transport = api_transport(broker_url, workers=2)
        self.rpc = EngineRpc(self._transport, timeout=60)

    # -- processes ----------------------------------------------------------------
    def start(self, name: str, *, prefix: Sequence[str] = (), **extra_env: str,
              ) -> EngineCommand:
        """Start (or start again) the command ``name``; returns once its child announced.
        ``prefix``: what runs it (``ip netns exec NS``: in a namespace, netns.py)."""
        old = self.commands.pop(name, None)
        if old is not None:
            self._retired.append(old)
        command = EngineCommand(name, {**self.env, **extra_env},
                                self.root / f"{name}.log", prefix)
        self.commands[name] = command
        command.child()
        return command

    def start_all(self, *names: str) -> None:
        """Start several at once (their start-ups overlap), then wait for each."""
        for name in names:
            old = self.commands.pop(name, None)
            if old is not None:
                self._retired.append(old)
            self.commands[name] = EngineCommand(name, self.env, self.root / f"{name}.log")
        for name in names:
            self.commands[name].child()

    def retire(self, name: str) -> None:
        """Stop the command ``name`` gracefully (SIGTERM) and forget it."""
        command = self.commands.pop(name)
        self._retired.append(command)
        if command.running():
            command.terminate()

    def live_engines(self) -> set[str]:
        """Engine ids of the engine processes running now."""
        return {child.engine_id for command in self.commands.values()
                for child in command.children if pid_alive(child.pid)}

    def registered(self) -> set[str]:
        """Engine ids with a service row."""
        return {str(s.engine_id) for s in self.store.list_services()}

    def command_of(self, engine_id: str) -> EngineCommand:
        for command in self.commands.values():
            if any(child.engine_id == engine_id for child in command.children):
                return command
        raise KeyError(engine_id)

    def stop(self) -> None:
        for command in [*self.commands.values(), *self._retired]:
            command.destroy()
        self._transport.stop()
        self._db.dispose()

    # -- stacks -------------------------------------------------------------------
    def create(self, name: str, template: Mapping[str, Any], *, host: str | None = None,
               timeout_mins: int | None = None) -> StackId:
        rpc = self.rpc if host is None else EngineRpc(self._transport, host=host, timeout=60)
        args: dict[str, Any] = {"disable_rollback": True}
        if timeout_mins is not None:
            args["timeout_mins"] = timeout_mins
        made = rpc.call(CTXT, "create_stack", stack_name=name, template=dict(template),
                        params={}, files={}, args=args)
        return StackId(made["stack_id"])

    def update(self, sid: StackId, template: Mapping[str, Any]) -> None:
        self.rpc.call(CTXT, "update_stack", stack_identity=sid, template=dict(template),
                      params={}, files={}, args={"disable_rollback": True})

    def delete(self, sid: StackId) -> None:
        self.rpc.call(CTXT, "delete_stack", stack_identity=sid)

    def stack(self, sid: StackId) -> StackRecord:
        found = self.store.get_stack(sid, include_deleted=True)
        assert found is not None, sid
        return found

    def state(self, sid: StackId) -> str:
        stack = self.stack(sid)
        return f"{stack.action}_{stack.status}"

    def settle(self, sid: StackId, timeout: float = 60.0) -> StackRecord:
        """The stack once it is no longer IN_PROGRESS."""
        wait_until(lambda: self.stack(sid).status != "IN_PROGRESS",
                   f"stack {sid} settling ({self.state(sid)}; {self.holders()})", timeout)
        return self.stack(sid)

    def locks_of(self, sid: StackId) -> dict[str, str]:
        """Resource name -> the engine holding its lock, for the locked ones."""
        return {r.name: str(r.engine_id) for r in self.store.list_resources(sid)
                if r.engine_id is not None}

    def holders(self) -> set[str]:
        """Every engine id in ``resource.engine_id``, across all stacks."""
        return {str(e) for e in self.store.lock_holders()}

    def busiest(self, sid: StackId, at_least: int = 1) -> str:
        """Wait until one engine holds ``at_least`` of the stack's locks; that engine."""
        def found() -> str | None:
            per: dict[str, int] = defaultdict(int)
            for holder in self.locks_of(sid).values():
                per[holder] += 1
            best = max(per, key=lambda e: per[e], default=None)
            return best if best is not None and per[best] >= at_least else None
        return str(wait_until(found, f"{at_least} locks on one engine in {sid}", 30,
                              every=0.05))

    def events(self, sid: StackId) -> list[EventRecord]:
        return list(self.store.list_events(sid))

    def reasons(self, sid: StackId) -> list[str]:
        return [e.resource_status_reason or "" for e in self.events(sid)]

    def tokens(self, sid: StackId) -> dict[str, set[str]]:
        """resource uuid -> every idempotency token its creates were given."""
        found: dict[str, set[str]] = defaultdict(set)
        for attempt in self.store.list_attempts(sid):
            if attempt.action == "CREATE":
                found[attempt.resource_uuid].add(attempt.token)
        return found

    def assert_made_once(self, sid: StackId, resources: int) -> None:
        """``resources`` distinct resources were created, each with exactly one token,
        and each started once as a first try (every other try says it is a retry)."""
        tokens = self.tokens(sid)
        assert len(tokens) == resources, sorted(tokens)
        assert all(len(t) == 1 for t in tokens.values()), tokens
        first_tries: dict[str, int] = defaultdict(int)
        for attempt in self.store.list_attempts(sid):
            if attempt.action == "CREATE" and not attempt.retry:
                first_tries[attempt.resource_uuid] += 1
        assert set(first_tries.values()) == {1}, first_tries

    def assert_no_dead_locks(self) -> None:
        """No resource of any stack is locked by an engine that is not running."""
        dead = self.holders() - self.live_engines()
        if dead:
            rows = self.store.resources_locked_by
            locked = {e: [(r.stack_id, r.name, r.status) for r in rows(EngineId(e))]
                      for e in dead}
            children = {n: [(c, pid_alive(c.pid)) for c in cmd.children]
                        for n, cmd in self.commands.items()}
            raise AssertionError(f"locks held by dead engines: {locked}; engines: {children}")

    def assert_nothing_failed(self, sid: StackId) -> None:
        failed = [(e.resource_name, e.resource_status_reason) for e in self.events(sid)
                  if e.resource_status == "FAILED"]
        assert not failed, failed


# -- templates ----------------------------------------------------------------------
def testres(value: str, **properties: Any) -> dict[str, Any]:
    return {"type": "OS::Heat::TestResource", "properties": {"value": value, **properties}}


def fan(count: int, value: str, **properties: Any) -> dict[str, Any]:
    """``count`` TestResources side by side and one that joins their outputs."""
    resources: dict[str, Any] = {f"r{n}": testres(f"{value}-{n}", **properties)
                                 for n in range(count)}
    resources["join"] = {"type": "OS::Heat::Value", "properties": {"value": {
        "list_join": [",", [{"get_attr": [f"r{n}", "output"]} for n in range(count)]]}}}
    return {"heat_template_version": "2021-04-16", "resources": resources}


def chain(count: int, value: str, **properties: Any) -> dict[str, Any]:
    """``count`` TestResources, each depending on the one before."""
    resources: dict[str, Any] = {}
    for n in range(count):
        resources[f"c{n}"] = testres(f"{value}-{n}", **properties)
        if n:
            resources[f"c{n}"]["depends_on"] = [f"c{n - 1}"]
    return {"heat_template_version": "2021-04-16", "resources": resources}
