"""Nodes start from the rows their engine holds (engine/row_memory.py), on every backend.

The engine runs on a DeterministicTransport delivering in order, so each
node's statements can be counted; a second store on the same database
changes rows behind the engine's back, as another engine would.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from typing import Any

import pytest
from sqlalchemy import Engine

from hotplate.app import Engine as HotplateEngine
from hotplate.app import start_engine
from hotplate.db.engine import make_engine
from hotplate.db.store import SqlStore
from hotplate.engine.clock import FakeClock
from hotplate.model.ids import ResourceId, StackId
from hotplate.model.records import ResourceRecord
from hotplate.model.states import Action, Status
from hotplate.rpc.deterministic import DeterministicTransport

CTXT: dict[str, Any] = {"project_id": "rows", "username": "rows", "is_admin": True}


def template(*names: str, gen: int = 0, kind: str = "OS::Heat::Value") -> dict[str, Any]:
    return {"heat_template_version": "2021-04-16",
            "resources": {name: {"type": kind,
                                 "properties": {"value": f"v{gen}"}}
                          for name in names}}


class Running:
    """An engine on the test's database, its messages delivered one at a time, in order."""

    def __init__(self, db_engine: Engine) -> None:
        self.clock = FakeClock()
        self.store = SqlStore(db_engine, self.clock)
        self.transport = DeterministicTransport(0, reorder=False)
        self.engine: HotplateEngine = start_engine(self.store, self.transport,
                                                   clock=self.clock, engine_id="rows-engine")
        self.checks = 0
        """check_resource messages delivered so far."""

    def step(self) -> int:
        """Deliver the next message; the statements its handling ran."""
        pending = self.transport.pending()
        assert pending, "nothing to deliver"
        before = self.store.stats.snapshot()
        assert self.transport.step()
        self.checks += pending[0].method == "check_resource"
        return (self.store.stats.snapshot() - before).statements

    def run(self) -> None:
        for _ in range(1000):
            if not self.transport.pending():
                return
            self.step()
        raise AssertionError("still delivering after 1000 messages")

    def create(self, name: str, tmpl: dict[str, Any]) -> StackId:
        ident = self.engine.service.create_stack(CTXT, name, tmpl, {}, {},
                                                 {"disable_rollback": True})
        return StackId(ident["stack_id"])

    def status(self, stack_id: StackId) -> str:
        stack = self.store.get_stack(stack_id)
        assert stack is not None
        return f"{stack.action}_{stack.status}"

    def rows(self, stack_id: StackId) -> dict[str, ResourceRecord]:
        return {row.name: row for row in self.store.list_resources(stack_id)}

    def stop(self) -> None:
        self.engine.stop()
        self.transport.stop()


@pytest.fixture
def running(store: SqlStore, db_engine: Engine) -> Iterator[Running]:
    """An engine on empty tables (the ``store`` fixture empties them)."""
    engine = Running(db_engine)
    try:
        yield engine
    finally:
        engine.stop()


@pytest.fixture
def other_store(db_url: str) -> Iterator[SqlStore]:
    """Another store on the same database, with its own connections: another engine."""
    engine = make_engine(db_url, pool_size=2)
    try:
        yield SqlStore(engine, FakeClock())
    finally:
        engine.dispose()


def test_a_held_row_is_not_read(running: Running) -> None:
    stack_id = running.create("held", template("a", "b", "c", "d"))
    memory = running.engine.deps.row_memory
    assert len(memory) == 4  # each row kept for its node by the traversal's start
    rows = running.rows(stack_id)
    assert [p.kwargs["resource_id"] for p in running.transport.pending()] == [
        rows[name].id for name in ("a", "b", "c", "d")]

    running.step()  # a (a new connection's own statements may count in the first)
    held = running.step()  # b: from its held row
    memory.forget(rows["c"].id)
    read = running.step()  # c: the same work, its row read first
    assert read == held + 1
    assert len(memory) == 1

    running.run()
    assert running.status(stack_id) == "CREATE_COMPLETE"
    assert len(memory) == 0


def test_a_node_that_acts_outside_the_database_reads_its_row(
        running: Running, other_store: SqlStore) -> None:
    """A plugin that is not ``local_only`` (here TestResource) decides from a fresh read
    even when its row is held: a stack another engine moved on is seen before anything
    outside the database is done (and a row changed behind the engine's back is read)."""
    stack_id = running.create("outside", template("a", "b", kind="OS::Heat::TestResource"))
    memory = running.engine.deps.row_memory
    assert len(memory) == 2  # kept by the start, as for any node
    reads: list[int] = []
    load_node = running.store.load_node

    def counted(resource_id: ResourceId) -> Any:
        reads.append(int(resource_id))
        return load_node(resource_id)

    running.store.load_node = counted  # type: ignore[method-assign]
    rows = running.rows(stack_id)
    running.step()  # a: its row held, read all the same
    running.step()  # b
    assert reads[:2] == [rows["a"].id, rows["b"].id]
    running.run()
    assert running.status(stack_id) == "CREATE_COMPLETE"


def test_an_update_cleanup_starts_from_the_row_its_update_settled(running: Running) -> None:
    stack_id = running.create("cleanup", template("a", "b", "c", "d"))
    running.run()
    running.engine.service.update_stack(CTXT, str(stack_id),
                                        template("a", "b", "c", "d", gen=1), {}, {}, {})
    memory = running.engine.deps.row_memory
    for _ in range(4):  # the update nodes, each from the row the update's start read
        running.step()
    rows = running.rows(stack_id)
    assert len(memory) == 4  # each row as its update settled it, for its cleanup node
    running.step()  # cleanup a
    held = running.step()  # cleanup b
    memory.forget(rows["c"].id)
    read = running.step()  # cleanup c: the same work, its row read first
    assert read == held + 1
    running.run()
    assert running.status(stack_id) == "UPDATE_COMPLETE"
    assert {(row.action, (row.properties_data or {}).get("value"))
            for row in running.rows(stack_id).values()} == {(Action.UPDATE, "v1")}
    assert len(memory) == 0


def test_a_held_row_whose_key_moved_is_decided_again(running: Running,
                                                    other_store: SqlStore) -> None:
    stack_id = running.create("stale", template("a", "b"))
    a = running.rows(stack_id)["a"]
    # Behind the engine's back: the row's key moves (a write that only bumps it).
    assert other_store.update_resource_if_unlocked(a.id, a.atomic_key,
                                                   {"metadata": {"poked": True}}) is not None
    running.run()
    assert running.status(stack_id) == "CREATE_COMPLETE"
    assert running.rows(stack_id)["a"].status is Status.COMPLETE
    assert running.checks == 3  # a's compare-and-swap failed: a sent again, read, created


def test_a_held_row_another_node_moved_on_is_decided_again(running: Running,
                                                          other_store: SqlStore) -> None:
    """The held row is INIT; meanwhile the row was created at this template by a node that
    reported elsewhere. The lost compare-and-swap must not end the node ("whoever moved it
    reports"): sent again, it reads the row, finds it done and reports."""
    stack_id = running.create("moved", template("a", "b"))
    stack = running.store.get_stack(stack_id)
    assert stack is not None
    a = running.rows(stack_id)["a"]
    assert other_store.update_resource_if_unlocked(
        a.id, a.atomic_key, {"action": Action.CREATE, "status": Status.COMPLETE,
                             "current_template_id": stack.raw_template_id,
                             "properties_data": {"value": "v0"}}) is not None
    running.run()
    assert running.status(stack_id) == "CREATE_COMPLETE"
    assert running.checks == 3


def test_a_node_of_a_superseded_traversal_does_not_use_the_new_ones_rows(
        running: Running) -> None:
    stack_id = running.create("superseded", template("a", "b"))
    running.run()
    service = running.engine.service
    service.update_stack(CTXT, str(stack_id), template("a", "b", gen=1), {}, {}, {})
    old = [p.kwargs for p in running.transport.pending()]
    # A second update while the first one's nodes are all still queued.
    service.update_stack(CTXT, str(stack_id), template("a", "b", gen=2), {}, {}, {})
    new = [p.kwargs for p in running.transport.pending()][len(old):]
    assert {k["current_traversal"] for k in old}.isdisjoint(
        {k["current_traversal"] for k in new})
    memory = running.engine.deps.row_memory
    assert len(memory) == 2  # the first update's entries went when the second started

    for _ in old:  # the old traversal's nodes hand over to the new one
        running.step()
    assert len(memory) == 2  # the new traversal's entries are still there for its nodes
    running.run()
    assert running.status(stack_id) == "UPDATE_COMPLETE"
    assert {name: (row.properties_data or {}).get("value")
            for name, row in running.rows(stack_id).items()} == {"a": "v2", "b": "v2"}
    assert len(memory) == 0


def test_a_stale_held_stack_is_not_used_by_a_new_traversal(running: Running) -> None:
    """An entry is handed out only to its own traversal's node."""
    stack_id = running.create("own", template("a"))
    memory = running.engine.deps.row_memory
    [a] = running.rows(stack_id).values()
    stack = running.store.get_stack(stack_id)
    assert stack is not None
    assert memory.take(ResourceId(a.id), stack.current_traversal, False) is None
    assert memory.take(ResourceId(a.id), "another-traversal", True) is None  # type: ignore[arg-type]
    taken = memory.take(ResourceId(a.id), stack.current_traversal, True)
    assert taken is not None and taken[0].id == a.id and taken[1].id == stack_id


def chain(*names: str, gen: int = 0) -> dict[str, Any]:
    body = template(*names, gen=gen)
    for before, name in pairwise(names):
        body["resources"][name]["depends_on"] = before
    return body


@pytest.mark.parametrize("shape", [template, chain])
def test_one_engine_reads_no_node_row(running: Running, shape: Any) -> None:
    """Alone, an engine has every node's row in hand: create, update and delete read none."""
    reads: list[ResourceId] = []
    load_node = running.store.load_node

    def counted(resource_id: ResourceId) -> Any:
        reads.append(resource_id)
        return load_node(resource_id)

    running.store.load_node = counted  # type: ignore[method-assign]
    stack_id = running.create("alone", shape("a", "b", "c"))
    running.run()
    running.engine.service.update_stack(CTXT, str(stack_id), shape("a", "b", "c", gen=1),
                                        {}, {}, {})
    running.run()
    assert running.status(stack_id) == "UPDATE_COMPLETE"
    running.engine.service.delete_stack(CTXT, str(stack_id))
    running.run()
    stack = running.store.get_stack(stack_id, include_deleted=True)
    assert stack is not None and (stack.action, stack.status) == (Action.DELETE,
                                                                  Status.COMPLETE)
    assert reads == []
    assert len(running.engine.deps.row_memory) == 0
