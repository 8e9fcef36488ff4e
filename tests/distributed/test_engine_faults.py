"""No stuck stacks, with real processes: engines killed, paused, stopped and restarted,
the broker cut, database connections terminated and messages lost, on PostgreSQL
and RabbitMQ.

Two ``hotplate engine`` commands (``e1``, ``e2``; one engine process each,
four threads) share a fresh database and a RabbitMQ virtual host of this
module's, reaching the broker through a proxy the tests can cut. Timers are
short (tests/distributed/engine_cluster.py ``TIMERS``): a dead engine is
found in about 4 s, a stalled node is sent again after 3 s. The test creates
stacks through the engine topic, as ``hotplate api`` does, reads what
happened from the database, and never touches a stack after the fault: what
it checks is that the stack ends COMPLETE by itself, that every resource was
made once (one idempotency token per resource, one first try; any other
try says it is a retry), and that no lock is left with a dead engine.
"""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, pool, text

from hotplate.model.ids import StackId
from hotplate.model.records import ResourceRecord
from tests.distributed.broker_proxy import BrokerProxy, private_vhost, via_port
from tests.distributed.engine_cluster import (
    Cluster,
    EngineCommand,
    chain,
    fan,
    pid_alive,
    private_database,
    wait_until,
)
from tests.real_services import POSTGRES, RABBIT, url_or_skip

pytestmark = pytest.mark.timeout(120)

ENGINES = ("e1", "e2")
DETECTION_SECS = 45.0
"""Ample for a dead engine to be found and its work done (about 4 s + the waits)."""


@pytest.fixture(scope="module")
def services() -> tuple[str, str]:
    return url_or_skip(POSTGRES), url_or_skip(RABBIT)


@pytest.fixture(scope="module")
def cluster(services: tuple[str, str],
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    postgres, rabbit = services
    with private_database(postgres, "hotplate_faults") as db_url, \
            private_vhost(rabbit, "hotplate-faults") as broker:
        proxy = BrokerProxy(broker).start()
        made = Cluster(db_url, broker, via_port(broker, proxy.port),
                       tmp_path_factory.mktemp("faults"), proxy=proxy)
        try:
            made.start_all(*ENGINES)
            yield made
        finally:
            made.stop()
            proxy.stop()


def _serving(cluster: Cluster, *names: str) -> Cluster:
    """The cluster with the commands ``names`` running and their current child serving,
    the others stopped."""
    for name in [n for n in cluster.commands if n not in names]:
        cluster.retire(name)
    for name in names:
        command = cluster.commands.get(name)
        if command is None or not command.running():
            cluster.start(name)
            continue
        if not pid_alive(command.current.pid):  # its parent is starting another
            command.child(after=len(command.children))
    wait_until(lambda: cluster.live_engines() <= cluster.registered(),
               "every engine registered", 30)
    return cluster


@pytest.fixture
def engines(cluster: Cluster) -> Cluster:
    """Both engines serving."""
    return _serving(cluster, *ENGINES)


@pytest.fixture
def only_e1(cluster: Cluster) -> Cluster:
    """e1 alone serving: nothing but its own command can finish its work."""
    return _serving(cluster, "e1")


def _takeovers(cluster: Cluster, sid: StackId, dead: str) -> list[str]:
    """Takeover events naming ``dead`` and, as the taker, an engine that ran."""
    return [r for r in cluster.reasons(sid)
            if f"engine {dead} stopped answering" in r and "took over" in r]


def _assert_taken_over_by_the_living(cluster: Cluster, sid: StackId, dead: str,
                                     takers: set[str]) -> None:
    found = _takeovers(cluster, sid, dead)
    assert found, cluster.reasons(sid)
    for reason in found:
        assert "Worker went down during resource" in reason
        taker = reason.split("; engine ", 1)[1].split(" took over")[0]
        assert taker in takers and taker != dead, reason


def _kill_busiest(cluster: Cluster, sid: StackId, at_least: int) -> tuple[str, EngineCommand,
                                                                          int]:
    """SIGKILL the engine holding the most of the stack's locks: its id, its command,
    and how many children that command had announced."""
    victim = cluster.busiest(sid, at_least)
    command = cluster.command_of(victim)
    assert command.current.engine_id == victim
    announced = len(command.children)
    os.kill(command.current.pid, signal.SIGKILL)
    return victim, command, announced


# -- 1. SIGKILL ---------------------------------------------------------------------
def test_an_engine_killed_mid_create_is_taken_over(engines: Cluster) -> None:
    sid = engines.create("kill-create", fan(6, "a", wait_secs=3))
    victim, command, announced = _kill_busiest(engines, sid, 2)
    stack = engines.settle(sid, DETECTION_SECS)
    assert engines.state(sid) == "CREATE_COMPLETE", stack.status_reason
    engines.assert_made_once(sid, 6)
    assert engines.locks_of(sid) == {}
    command.child(after=announced)  # its parent started another
    engines.assert_no_dead_locks()
    _assert_taken_over_by_the_living(engines, sid, victim, engines.live_engines())


def test_an_engine_killed_mid_replacement_is_taken_over(engines: Cluster) -> None:
    sid = engines.create("kill-replace", fan(4, "b", update_replace=True))
    assert engines.settle(sid).status == "COMPLETE"
    old = {r.name: r.uuid for r in engines.store.list_resources(sid)}
    engines.update(sid, fan(4, "b2", update_replace=True, wait_secs=3))
    victim, command, announced = _kill_busiest(engines, sid, 1)
    stack = engines.settle(sid, DETECTION_SECS)
    assert engines.state(sid) == "UPDATE_COMPLETE", stack.status_reason
    rows = {r.name: r for r in engines.store.list_resources(sid)}
    assert sorted(rows) == sorted(old)
    for n in range(4):  # each replaced once: a new row, with the new value
        assert rows[f"r{n}"].uuid != old[f"r{n}"]
        assert (rows[f"r{n}"].properties_data or {}).get("value") == f"b2-{n}"
    engines.assert_made_once(sid, 8)  # 4 originals, 4 replacements
    assert engines.locks_of(sid) == {}
    command.child(after=announced)
    engines.assert_no_dead_locks()
    _assert_taken_over_by_the_living(engines, sid, victim, engines.live_engines())


def test_an_engine_killed_mid_delete_is_taken_over(engines: Cluster) -> None:
    sid = engines.create("kill-delete", fan(4, "c", action_wait_secs={"delete": 3}))
    assert engines.settle(sid).status == "COMPLETE"
    engines.delete(sid)
    victim, command, announced = _kill_busiest(engines, sid, 1)
    stack = engines.settle(sid, DETECTION_SECS)
    assert engines.state(sid) == "DELETE_COMPLETE", stack.status_reason
    # The rows go just after the stack's state says so (traversal.mark_complete).
    wait_until(lambda: engines.store.list_resources(sid) == [], "the rows purged", 10,
               detail=lambda: engines.store.list_resources(sid))
    command.child(after=announced)
    engines.assert_no_dead_locks()
    _assert_taken_over_by_the_living(engines, sid, victim, engines.live_engines())


# -- 2. SIGSTOP past the life check -------------------------------------------------
def test_a_paused_engine_wakes_to_find_its_writes_refused(engines: Cluster) -> None:
    """The paused engine stays stopped until the new holders have finished its
    resources; woken, each of its threads finds its wait long over and may try to
    write the outcome under the lock it had before its lease's watchdog fences it.
    Every such write must be refused: nothing it writes afterwards reaches a row or
    an event."""
    sid = engines.create("pause", fan(4, "s", wait_secs=3))
    victim = engines.busiest(sid, 1)
    command = engines.command_of(victim)
    paused = command.signal_child(signal.SIGSTOP)
    assert paused.engine_id == victim
    try:
        wait_until(lambda: victim not in engines.locks_of(sid).values()
                   and _takeovers(engines, sid, victim),
                   "the paused engine's locks taken over", DETECTION_SECS,
                   detail=lambda: (engines.locks_of(sid), engines.reasons(sid)))
        stack = engines.settle(sid, DETECTION_SECS)
        assert engines.state(sid) == "CREATE_COMPLETE", stack.status_reason
        before = _snapshot(engines, sid)
    finally:
        os.kill(paused.pid, signal.SIGCONT)
    woken = time.time()
    time.sleep(3)  # its runners poll at least once a second: each tries its write now
    assert _snapshot(engines, sid) == before, "a write of the paused engine got through"
    engines.assert_made_once(sid, 4)
    completes = Counter(e.resource_name for e in engines.events(sid)
                        if (e.resource_action, e.resource_status) == ("CREATE", "COMPLETE"))
    assert all(completes[f"r{n}"] == 1 for n in range(4)), completes
    # Its lease ran out while it was stopped: woken, it fenced itself (the process
    # exits) and its parent started another, with a new engine id.
    wait_until(lambda: not pid_alive(paused.pid), "the woken engine fencing itself", 10)
    assert "fenced itself" in command.log_tail(20000)
    replacement = command.child(after=command.children.index(paused) + 1)
    assert replacement.engine_id != victim
    assert not _reported_since(engines, victim, woken), "the fenced engine reported again"
    assert "unexpected error" not in command.log_tail(20000)
    engines.assert_no_dead_locks()


def _snapshot(cluster: Cluster, sid: StackId) -> tuple[object, ...]:
    """Everything a late write could change: each row's state, lock and key, the
    events, the stack."""
    rows = sorted((r.name, str(r.action), str(r.status), r.engine_id, r.atomic_key,
                   r.updated_at) for r in cluster.store.list_resources(sid))
    stack = cluster.stack(sid)
    return (tuple(rows), len(cluster.events(sid)), stack.status, stack.updated_at)


def _reported_since(cluster: Cluster, engine_id: str, since: float) -> bool:
    return any(s.engine_id == engine_id and s.updated_at is not None
               and s.updated_at.timestamp() > since for s in cluster.store.list_services())


def _rows(cluster: Cluster, sid: StackId) -> dict[str, ResourceRecord]:
    return {r.name: r for r in cluster.store.list_resources(sid)}


# -- 3. the broker connection cut ---------------------------------------------------
def test_a_traversal_outlives_its_broker_connections(engines: Cluster) -> None:
    assert engines.proxy is not None
    sid = engines.create("cut", chain(3, "n", wait_secs=1.5))
    wait_until(lambda: _rows(engines, sid)["c1"].status != "INIT",
               "the second resource started", 20)
    before = engines.proxy.accepted
    engines.proxy.cut(3)
    stack = engines.settle(sid, 60)
    assert engines.state(sid) == "CREATE_COMPLETE", stack.status_reason
    assert engines.proxy.accepted > before, "nobody reconnected"
    engines.assert_nothing_failed(sid)
    engines.assert_made_once(sid, 3)


# -- 4. PostgreSQL backends terminated ----------------------------------------------
def test_terminated_database_connections_are_retried(engines: Cluster) -> None:
    sid = engines.create("pg-kill", fan(6, "p", wait_secs=1))
    wait_until(lambda: engines.locks_of(sid), "the resources started", 20, every=0.02)
    terminated = 0
    for _ in range(4):
        terminated += _terminate_backends(engines.db_url)
        time.sleep(0.4)
    assert terminated, "no engine connection was open"
    stack = engines.settle(sid, 60)
    assert engines.state(sid) == "CREATE_COMPLETE", stack.status_reason
    engines.assert_nothing_failed(sid)
    engines.assert_made_once(sid, 6)


def _terminate_backends(db_url: str) -> int:
    admin = create_engine(db_url, poolclass=pool.NullPool, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            return len(conn.execute(text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()")).all())
    finally:
        admin.dispose()


# -- 5. a lost cast -----------------------------------------------------------------
def test_a_lost_cast_is_sent_again_by_the_sweep(engines: Cluster) -> None:
    """e3 loses the first cast it sends: its create's one for the chain's first
    resource. Nothing but the sweep, after stalled_traversal_timeout, sends it again."""
    lossy = engines.start("e3", HOTPLATE_FAULT_DROP_CASTS="check_resource:1,check_resources:1")
    try:
        started = time.monotonic()
        sid = engines.create("lost", chain(2, "l"), host="e3")
        stack = engines.settle(sid, 30)
        took = time.monotonic() - started
        assert engines.state(sid) == "CREATE_COMPLETE", stack.status_reason
        assert took >= float(engines.env["HOTPLATE_STALLED_TRAVERSAL_TIMEOUT"]), took
        assert lossy.log_tail(20000).count("fault switch: dropped cast check_resource") == 1
        engines.assert_made_once(sid, 2)
    finally:
        engines.retire("e3")


# -- 6. a timeout with no message left ----------------------------------------------
def test_a_stack_with_no_message_left_times_out(services: tuple[str, str],
                                                tmp_path: Path) -> None:
    """One engine that loses every check_resource cast: no resource ever runs, the
    sweep's re-sends are lost too, and the sweep still fails the stack at its deadline.

    ``timeout_mins`` is a whole number of minutes (Heat's API), so 1 is the least;
    rather than wait a minute, the test moves the stack's start 56 s back in the
    database and waits out the last few seconds for real.
    """
    postgres, rabbit = services
    with private_database(postgres, "hotplate_timeout") as db_url, \
            private_vhost(rabbit, "hotplate-timeout") as broker:
        alone = Cluster(db_url, broker, broker, tmp_path)
        try:
            lossy = alone.start("t1", HOTPLATE_FAULT_DROP_CASTS="check_resource:*,"
                                                                "check_resources:*")
            sid = alone.create("late", fan(2, "t"), timeout_mins=1)
            deadline = _move_start_back(db_url, sid, seconds=56)
            time.sleep(max(0.0, (deadline - time.time()) - 1.5))
            assert alone.stack(sid).status == "IN_PROGRESS"  # not failed early
            stack = alone.settle(sid, 15)
            assert (alone.state(sid), stack.status_reason) == ("CREATE_FAILED", "Timed out")
            assert time.time() >= deadline
            assert alone.store.list_attempts(sid) == []
            assert {r.status for r in alone.store.list_resources(sid)} <= {"INIT", "COMPLETE"}
            drops = lossy.log_tail(50000).count("fault switch: dropped cast check_resource")
            assert drops >= 2, lossy.log_tail()  # the create's, and the sweep's after it
        finally:
            alone.stop()


def _move_start_back(db_url: str, sid: StackId, seconds: int) -> float:
    """Make the stack's traversal look ``seconds`` older; its deadline (epoch secs)."""
    admin = create_engine(db_url, poolclass=pool.NullPool)
    try:
        with admin.begin() as conn:
            started = conn.execute(text(
                "UPDATE stack SET created_at = created_at - make_interval(secs => :s), "
                "updated_at = updated_at - make_interval(secs => :s) WHERE id = :id "
                "RETURNING extract(epoch FROM coalesce(updated_at, created_at))"),
                {"s": seconds, "id": sid}).scalar_one()
    finally:
        admin.dispose()
    return float(started) + 60.0


# -- 7. SIGTERM, and a rolling restart ----------------------------------------------
def test_a_gracefully_stopped_engine_hands_its_work_over(engines: Cluster) -> None:
    sid = engines.create("sigterm", fan(6, "g", wait_secs=4))
    victim = engines.busiest(sid, 2)
    command = engines.command_of(victim)
    announced = len(command.children)
    command.signal_child(signal.SIGTERM)
    stack = engines.settle(sid, DETECTION_SECS)
    assert engines.state(sid) == "CREATE_COMPLETE", stack.status_reason
    engines.assert_nothing_failed(sid)
    engines.assert_made_once(sid, 6)
    handed = [r for r in engines.reasons(sid)
              if f"engine {victim} stopped gracefully and handed it over" in r]
    assert handed, engines.reasons(sid)  # its waits outlast graceful_shutdown_timeout
    assert victim not in {s.engine_id for s in engines.store.list_services()}
    command.child(after=announced)  # the parent started another
    engines.assert_no_dead_locks()


def test_a_rolling_restart_fails_no_stack(engines: Cluster) -> None:
    sid = engines.create("rolling", chain(6, "r", wait_secs=3))
    wait_until(lambda: engines.locks_of(sid), "the traversal started", 20, every=0.05)
    for name in ENGINES:  # each stopped while the traversal runs, and started again
        assert engines.stack(sid).status == "IN_PROGRESS", "the traversal ended too soon"
        old = engines.commands[name]
        assert old.terminate(30) == 0, old.log_tail()
        engines.start(name)
    stack = engines.settle(sid, 60)
    assert engines.state(sid) == "CREATE_COMPLETE", stack.status_reason
    engines.assert_nothing_failed(sid)
    engines.assert_made_once(sid, 6)
    engines.assert_no_dead_locks()


# -- 8. the engine command's processes killed ---------------------------------------
def test_a_child_killed_under_its_parent_is_replaced_and_finishes(
        only_e1: Cluster) -> None:
    """With e1 the only engine, its killed child can only be finished by the child
    its parent starts in its place."""
    engines = only_e1
    sid = engines.create("orphan", fan(4, "o", wait_secs=3))
    victim, command, announced = _kill_busiest(engines, sid, 1)
    replacement = command.child(after=announced)
    assert replacement.engine_id != victim
    stack = engines.settle(sid, DETECTION_SECS)
    assert engines.state(sid) == "CREATE_COMPLETE", stack.status_reason
    engines.assert_made_once(sid, 4)
    _assert_taken_over_by_the_living(engines, sid, victim, {replacement.engine_id})
    engines.assert_no_dead_locks()


def test_a_killed_engine_command_takes_its_engines_and_another_finishes(
        only_e1: Cluster) -> None:
    """e1's whole command is SIGKILLed while it is the only engine: its engine
    process dies with it, and a second command, started afterwards, finishes."""
    engines = only_e1
    sid = engines.create("headless", fan(4, "h", wait_secs=4))
    engines.busiest(sid, 1)
    command = engines.commands["e1"]
    child = command.current
    command.kill_parent()
    wait_until(lambda: not pid_alive(child.pid), "the engine process died with its parent",
               20)
    assert engines.stack(sid).status == "IN_PROGRESS"
    second = engines.start("e2")
    stack = engines.settle(sid, DETECTION_SECS)
    assert engines.state(sid) == "CREATE_COMPLETE", stack.status_reason
    engines.assert_made_once(sid, 4)
    engines.assert_nothing_failed(sid)
    assert second.current.engine_id in engines.live_engines()
    assert child.engine_id not in engines.holders()
    # SIGTERMed by the kernel as its parent died, it stopped gracefully and handed its
    # work over (or, had it died before that, was found dead and taken over).
    assert any(f"engine {child.engine_id} stopped" in r for r in engines.reasons(sid))
