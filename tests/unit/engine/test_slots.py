import threading
import time

from hotplate.engine.deps import Slots


def test_one_slot_admits_one_worker_until_it_waits() -> None:
    slots = Slots(1)
    entered: list[str] = []

    def other() -> None:
        with slots.held():
            entered.append("other")

    with slots.held():
        worker = threading.Thread(target=other)
        worker.start()
        worker.join(0.2)
        assert entered == []  # blocked: the slot is ours
        with slots.released():  # we wait on a plugin: the other may work
            worker.join(5)
            assert entered == ["other"]


def test_nested_held_and_released_are_no_ops_where_they_should_be() -> None:
    slots = Slots(1)
    with slots.released():  # not held: nothing to give back
        pass
    with slots.held(), slots.held():  # re-entrant for the holder
        pass
    with slots.held():
        pass  # the slot came back after the nested use


def test_no_limit() -> None:
    slots = Slots(None)
    with slots.held(), slots.held(), slots.released():
        pass


class Recorder:
    """A store's write batching, as the slot drives it."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def begin_write_batch(self) -> None:
        self.calls.append("begin")

    def end_write_batch(self) -> None:
        self.calls.append("end")


def test_the_slot_holder_batches_its_writes_and_commits_them_before_it_waits() -> None:
    batching = Recorder()
    slots = Slots(1, batching=batching)
    with slots.held():
        with slots.held():  # nested: the same batch
            assert batching.calls == ["begin"]
        with slots.released():  # a plugin runs: what led to it is committed first
            assert batching.calls == ["begin", "end"]
        assert batching.calls == ["begin", "end", "begin"]
    assert batching.calls == ["begin", "end", "begin", "end"]


def test_writes_are_batched_only_under_a_single_slot() -> None:
    batching = Recorder()
    for slots in (Slots(None, batching=batching), Slots(4, batching=batching)):
        with slots.held(), slots.released():
            pass
    assert batching.calls == []


def test_a_worker_coming_back_from_a_wait_gets_the_slot_before_the_drainer_again() -> None:
    """Unfair locks let the drainer that just gave its slot up take it back at once,
    round after round, each round committing a batch of one write."""
    slots = Slots(1)
    order: list[str] = []
    waiting_again = threading.Event()
    plugin_done = threading.Event()

    def worker() -> None:
        with slots.held():
            with slots.released():  # a plugin runs
                waiting_again.set()
                plugin_done.wait(5)
            order.append("came back")

    thread = threading.Thread(target=worker)
    thread.start()
    assert waiting_again.wait(5)
    with slots.held():  # the drainer takes the slot the plugin's worker gave back
        plugin_done.set()
        deadline = time.monotonic() + 5
        while not slots.contended() and time.monotonic() < deadline:
            time.sleep(0.001)
        assert slots.contended()
    with slots.held():  # the drainer, straight back for its next message
        order.append("drainer")
    thread.join(5)
    assert order == ["came back", "drainer"]
