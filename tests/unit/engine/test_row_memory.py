"""RowMemory: the rows an engine holds for the node that starts from them next."""

from __future__ import annotations

import threading

from hotplate.engine.row_memory import RowMemory
from hotplate.model.ids import ResourceId, StackId, TraversalId
from tests.unit.convergence.factories import row, stack

T = TraversalId("t2")
NEWER = TraversalId("t3")


def test_an_entry_serves_its_node_once() -> None:
    memory = RowMemory()
    st = stack(current_traversal=T)
    memory.remember(T, [(row(1), True), (row(2), False)], st)
    assert len(memory) == 2
    assert memory.take(ResourceId(1), T, False) is None  # the update node's, not cleanup's
    assert memory.take(ResourceId(1), T, True) == (row(1), st)
    assert memory.take(ResourceId(1), T, True) is None  # a repeated message reads
    assert memory.take(ResourceId(2), T, False) == (row(2), st)
    assert len(memory) == 0


def test_only_the_entrys_own_traversal_takes_it() -> None:
    memory = RowMemory()
    memory.remember(NEWER, [(row(1), True)], stack(current_traversal=NEWER))
    assert memory.take(ResourceId(1), T, True) is None  # a superseded traversal's node
    assert len(memory) == 1  # left for the newer traversal's own node
    assert memory.take(ResourceId(1), NEWER, True) is not None


def test_a_stack_of_another_traversal_is_never_kept() -> None:
    memory = RowMemory()
    memory.remember(NEWER, [(row(1), True)], stack(current_traversal=T))
    assert len(memory) == 0


def test_a_row_of_another_stack_is_never_kept() -> None:
    memory = RowMemory()
    memory.remember(T, [(row(1, stack_id=StackId("other")), True)], stack(current_traversal=T))
    assert len(memory) == 0


def test_forgetting_a_row_drops_both_its_nodes() -> None:
    memory = RowMemory()
    st = stack(current_traversal=T)
    memory.remember(T, [(row(1), True), (row(1), False), (row(2), True)], st)
    memory.forget(ResourceId(1))
    assert memory.take(ResourceId(1), T, True) is None
    assert memory.take(ResourceId(1), T, False) is None
    assert memory.take(ResourceId(2), T, True) is not None


def test_forgetting_a_stack_drops_its_entries_only() -> None:
    memory = RowMemory()
    mine = stack(current_traversal=T)
    other = stack(id=StackId("s2"), current_traversal=T)
    memory.remember(T, [(row(1), True), (row(2), True)], mine)
    memory.remember(T, [(row(3, stack_id=StackId("s2")), True)], other)
    memory.forget_stack(mine.id)
    assert len(memory) == 1
    assert memory.take(ResourceId(3), T, True) == (row(3, stack_id=StackId("s2")), other)
    memory.forget_stack(mine.id)  # nothing left of it: harmless
    memory.remember(T, [(row(1), True), (row(1), False)], mine)  # kept again after a take
    memory.forget(ResourceId(1))
    memory.remember(T, [(row(1), True), (row(2), False)], mine)
    memory.remember(T, [(row(2), False)], mine)
    memory.forget_stack(mine.id)
    assert len(memory) == 0


def test_the_newest_entry_of_a_node_wins() -> None:
    memory = RowMemory()
    st = stack(current_traversal=T)
    memory.remember(T, [(row(1, atomic_key=1), True)], st)
    memory.remember(T, [(row(1, atomic_key=2), True)], st)
    assert len(memory) == 1
    taken = memory.take(ResourceId(1), T, True)
    assert taken is not None and taken[0].atomic_key == 2


def test_the_oldest_entries_go_past_the_capacity() -> None:
    memory = RowMemory(capacity=3)
    st = stack(current_traversal=T)
    memory.remember(T, [(row(i), True) for i in range(1, 6)], st)
    assert len(memory) == 3
    assert [memory.take(ResourceId(i), T, True) is not None for i in range(1, 6)] == [
        False, False, True, True, True]
    memory.remember(T, [(row(9), True)], st)
    memory.forget_stack(st.id)  # the index follows the evictions
    assert len(memory) == 0


def test_no_capacity_keeps_nothing() -> None:
    memory = RowMemory(capacity=0)
    memory.remember(T, [(row(1), True)], stack(current_traversal=T))
    assert len(memory) == 0


def test_threads_take_each_entry_once() -> None:
    memory = RowMemory()
    st = stack(current_traversal=T)
    ids = range(1, 2001)
    memory.remember(T, [(row(i), True) for i in ids], st)
    taken: list[list[int]] = [[] for _ in range(8)]
    start = threading.Barrier(8)

    def taker(n: int) -> None:
        start.wait()
        for i in ids:
            if memory.take(ResourceId(i), T, True) is not None:
                taken[n].append(i)
            if i % 7 == n:
                memory.remember(T, [(row(10_000 + i), False)], st)

    threads = [threading.Thread(target=taker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(i for got in taken for i in got) == list(ids)
    memory.forget_stack(st.id)
    assert len(memory) == 0


def test_entries_older_than_the_max_age_are_not_handed_out_and_go() -> None:
    now = [100.0]
    memory = RowMemory(max_age=60.0, clock=lambda: now[0])
    st = stack(current_traversal=T)
    memory.remember(T, [(row(1), True), (row(2), True)], st)
    now[0] += 30
    memory.remember(T, [(row(3), True)], st)
    now[0] += 31  # rows 1 and 2 are 61 s old, row 3 31 s
    assert memory.take(ResourceId(1), T, True) is None
    memory.remember(T, [(row(4), True)], st)  # each keeping drops what expired
    assert len(memory) == 2
    assert memory.take(ResourceId(3), T, True) is not None
    now[0] += 61
    assert memory.take(ResourceId(4), T, True) is None
    assert len(memory) == 0
