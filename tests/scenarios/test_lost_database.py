"""The database lost under a worker's operation fails nothing: the node is handed on.

A Store call whose connection dies before its COMMIT is run again by the
Store (db/tx.py); one whose COMMIT got no answer may or may not have
happened, and the Store says so with StoreUnavailable. Here one chosen call
raises it, after its write committed or before, at each step of a create.
Whatever the truth, the stack ends CREATE_COMPLETE with no resource made
twice: a row the worker still held is handed on and its action resumed as
a retry with the same token; an unlocked row's node is sent again; and
what a lost report had made ready is found by the recovery sweep.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from hotplate.ports import StoreUnavailable

from .harness import Harness
from .templates import res, tmpl


class LosesTheDatabase:
    """The ``nth`` call of one Store method raises StoreUnavailable, after its write
    (``committed``: the answer to its COMMIT was lost) or instead of it."""

    def __init__(self, store: Any, method: str, nth: int, *, committed: bool) -> None:
        self.calls = 0
        real = getattr(store, method)

        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            if self.calls != nth:
                return real(*args, **kwargs)
            if committed:
                real(*args, **kwargs)
            raise StoreUnavailable(f"the database connection was lost during {method}")

        setattr(store, method, call)


STEPS = {
    # method: (its nth call to fail, the template's wait)
    "acquire_resource": (2, 1),  # taking the lock
    "record_attempt": (2, 1),  # inside handle_create, through the plugin's context
    "update_resource_locked": (2, 1),  # what handle_create did, made durable before waiting
    "release_and_sync": (2, 1),  # the outcome, the lock's release and the reports
    "settle_resource": (1, 1),  # lock, outcome and release in one commit (the Value)
}


def _template(wait: float) -> dict[str, Any]:
    """Three TestResources and a Value joining them (a local-only plugin, settled in
    one commit)."""
    resources: dict[str, Any] = {f"r{i}": res(f"v{i}", wait_secs=wait) for i in range(3)}
    resources["join"] = {"type": "OS::Heat::Value", "properties": {"value": {
        "list_join": [",", [{"get_attr": [f"r{i}", "output"]} for i in range(3)]]}}}
    return tmpl(resources)


@pytest.mark.parametrize("committed", [True, False], ids=["committed", "not-committed"])
@pytest.mark.parametrize("method", sorted(STEPS))
def test_a_create_outlives_its_database_going_away(tmp_path: Any, method: str,
                                                    committed: bool) -> None:
    h = Harness(tmp_path, seed=5)
    nth, wait = STEPS[method]
    fault = LosesTheDatabase(h.store, method, nth, committed=committed)
    sid = h.create("lost-db", _template(wait))
    h.run()
    assert fault.calls >= nth, f"{method} was called {fault.calls} times"
    # A lost answer to the report that made a node (or the stack) ready leaves nobody
    # told: the engine's sweep finds it, as after a crash between commit and cast.
    assert h.engine.recovery is not None
    h.engine.recovery.sweep(None)
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE", h.stack(sid)["stack_status_reason"]
    rows = h.rows(sid)
    assert all(r.engine_id is None for r in rows)
    tokens: dict[str, set[str]] = defaultdict(set)
    for attempt in h.store.list_attempts(sid):
        tokens[attempt.resource_uuid].add(attempt.token)
    assert set(tokens) == {r.uuid for r in rows if r.name != "join"}
    assert all(len(found) == 1 for found in tokens.values()), tokens
    events = h.events(sid)
    assert not [e for e in events if e["resource_status"] == "FAILED"]
    handed = [e for e in events
              if "lost its database connection and handed it over"
              in (e["resource_status_reason"] or "")]
    held = method in ("record_attempt", "update_resource_locked") or (
        method == "acquire_resource" and committed) or (
        method == "release_and_sync" and not committed)
    assert len(handed) == (1 if held else 0), [e["resource_status_reason"] for e in events]


class CommitsThenRefuses:
    """The ``nth`` ``acquire_resource`` takes the lock, then answers as if it had not:
    the store ran the write again after a COMMIT whose answer was lost, and the rerun's
    compare-and-swap found the key moved (by the first run)."""

    def __init__(self, store: Any, nth: int) -> None:
        self.calls = 0
        real = store.acquire_resource

        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            first = real(*args, **kwargs)
            if self.calls != nth or first is None:
                return first
            return real(*args, **kwargs)  # the same key again: refused

        store.acquire_resource = call


def test_a_lock_taken_unknowingly_is_handed_on_at_once(tmp_path: Any) -> None:
    h = Harness(tmp_path, seed=5)
    fault = CommitsThenRefuses(h.store, 2)
    sid = h.create("own-lock", _template(1))
    h.run()
    assert fault.calls >= 2
    assert h.status(sid) == "CREATE_COMPLETE", h.stack(sid)["stack_status_reason"]
    assert all(r.engine_id is None for r in h.rows(sid))
    reasons = [e["resource_status_reason"] or "" for e in h.events(sid)]
    assert sum("lost its database connection and handed it over" in r
               for r in reasons) == 1, reasons


def test_a_hand_on_the_database_refuses_too_is_done_by_a_later_round(tmp_path: Any) -> None:
    h = Harness(tmp_path, seed=5)
    LosesTheDatabase(h.store, "acquire_resource", 2, committed=True)
    reads = LosesTheDatabase(h.store, "get_resource", 1, committed=False)
    sid = h.create("hand-on-later", _template(1))
    h.run()
    assert reads.calls >= 1
    assert len(h.engine.deps.retry_later) == 1  # a row still locked by this engine
    assert h.status(sid) == "CREATE_IN_PROGRESS"
    assert h.engine.recovery is not None
    h.engine.recovery.run_once()
    h.run()
    assert len(h.engine.deps.retry_later) == 0
    assert h.status(sid) == "CREATE_COMPLETE", h.stack(sid)["stack_status_reason"]
    assert all(r.engine_id is None for r in h.rows(sid))


def test_a_lock_of_this_engine_no_work_stands_behind_is_reclaimed(tmp_path: Any) -> None:
    h = Harness(tmp_path, seed=5)
    sid = h.create("forgotten", _template(1))
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"
    deps = h.engine.deps
    recovery = h.engine.recovery
    assert recovery is not None
    r0, r1 = (r for r in h.rows(sid) if r.name in ("r0", "r1"))
    for row in (r0, r1):  # locked as a lost answer would leave them
        assert h.store.acquire_resource(row.id, deps.engine_id, row.atomic_key, {}) is not None
    with deps.busy.row(int(r1.id)):  # r1: some work of this engine is on it
        assert recovery.reclaim_forgotten() == 0  # first look: only suspected
        assert recovery.reclaim_forgotten() == 1  # second look, same key: r0 handed on
    locks = {r.name: r.engine_id for r in h.rows(sid)}
    assert locks["r0"] is None and locks["r1"] == deps.engine_id
    assert recovery.reclaim_forgotten() == 0  # r1 idle now: suspected first
    assert recovery.reclaim_forgotten() == 1
    h.run()
    assert all(r.engine_id is None for r in h.rows(sid))
