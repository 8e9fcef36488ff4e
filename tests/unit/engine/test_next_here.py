"""NextHere: a local worker keeps one node it made ready, to run it with no message."""

from __future__ import annotations

import threading

from hotplate.engine.worker_client import NextHere
from hotplate.model.ids import TraversalId

T = TraversalId("t1")


def test_a_thread_outside_a_worker_keeps_nothing() -> None:
    here = NextHere()
    assert here.offer((T, 1, True), {"a": 1}) is False
    assert here.take() is None


def test_a_worker_keeps_one_node_and_sends_the_rest() -> None:
    here = NextHere()
    with here.following():
        assert here.offer((T, 1, False), {"1": {"id": 1}}) is True
        assert here.offer((T, 2, True), None) is False  # one kept at a time
        assert here.take() == ((T, 1, False), {"1": {"id": 1}}, None)
        assert here.take() is None
        assert here.offer((T, 2, True), None) is True  # room again once taken
    assert here.take() is None  # forgotten when the worker leaves
    assert here.offer((T, 3, True), None) is False


def test_each_thread_keeps_its_own() -> None:
    here = NextHere()
    seen: list[object] = []

    def other() -> None:
        seen.append(here.offer((T, 9, True), None))  # not following: nothing kept

    with here.following():
        assert here.offer((T, 1, True), None)
        worker = threading.Thread(target=other)
        worker.start()
        worker.join()
        assert here.take() == ((T, 1, True), None, None)
    assert seen == [False]


def test_the_inputs_kept_are_a_copy() -> None:
    here = NextHere()
    inputs = {"k": 1}
    with here.following():
        here.offer((T, 1, True), inputs)
        inputs["k"] = 2
        assert here.take() == ((T, 1, True), {"k": 1}, None)


def test_a_node_kept_may_carry_its_row_and_stack() -> None:
    here = NextHere()
    with here.following():
        here.offer((T, 1, False), None, ("row", "stack"))
        kept = here.take()
        assert kept is not None and kept.loaded == ("row", "stack") and kept.key == (T, 1, False)
