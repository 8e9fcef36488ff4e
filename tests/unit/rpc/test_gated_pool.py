"""GatedPool: work only under the gate, drain without hand-overs, yield when asked."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from hotplate.rpc.gated_pool import GatedPool


class OneAtATime:
    """A gate of one slot that a worker can give back while it waits."""

    def __init__(self) -> None:
        self._sem = threading.Semaphore(1)
        self._local = threading.local()
        self.waiting = 0
        self._lock = threading.Lock()

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._sem:
            self._local.held = True
            yield
            self._local.held = False

    @contextmanager
    def released(self) -> Iterator[None]:
        self._sem.release()
        try:
            yield
        finally:
            with self._lock:
                self.waiting += 1
            self._sem.acquire()
            with self._lock:
                self.waiting -= 1

    def contended(self) -> bool:
        return self.waiting > 0


def noop(*_: object) -> None:
    pass


def test_results_and_errors_reach_the_futures() -> None:
    pool = GatedPool(4, OneAtATime(), initializer=noop)
    assert pool.submit(lambda x: x * 2, 21).result(5) == 42
    failing = pool.submit(lambda: 1 / 0)
    try:
        failing.result(5)
    except ZeroDivisionError:
        pass
    else:
        raise AssertionError("the error was lost")
    pool.shutdown()


def test_a_future_is_set_only_once_the_gate_is_given_up() -> None:
    """What the work wrote is committed as its holder gives the gate up (a batch of
    writes, db/write_batch.py): nobody must read the work as done before that."""
    events: list[str] = []

    class Recording(OneAtATime):
        @contextmanager
        def held(self) -> Iterator[None]:
            with super().held():
                yield
            events.append("gate given up")

    pool = GatedPool(1, Recording(), initializer=noop)
    first = threading.Event()
    futures = [pool.submit(first.wait, 5), pool.submit(lambda: events.append("second ran"))]
    for future in futures:
        future.add_done_callback(lambda _f: events.append("future set"))
    first.set()
    for future in futures:
        future.result(5)
    pool.shutdown()
    assert events == ["second ran", "gate given up", "future set", "future set"]


def test_never_two_at_once_under_one_slot() -> None:
    pool = GatedPool(8, OneAtATime(), initializer=noop)
    running = 0
    most = 0
    lock = threading.Lock()

    def work() -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.001)
        with lock:
            running -= 1

    futures = [pool.submit(work) for _ in range(200)]
    for future in futures:
        future.result(10)
    pool.shutdown()
    assert most == 1


def test_a_waiting_worker_lets_the_queue_move_on() -> None:
    gate = OneAtATime()
    pool = GatedPool(4, gate, initializer=noop)
    release = threading.Event()

    def slow() -> str:
        with gate.released():  # like a plugin waiting on its resource
            release.wait(5)
        return "slow"

    slow_future = pool.submit(slow)
    quick = [pool.submit(lambda i=i: i) for i in range(20)]
    assert [f.result(5) for f in quick] == list(range(20))
    assert not slow_future.done()
    release.set()
    assert slow_future.result(5) == "slow"
    pool.shutdown()


def test_shutdown_cancels_queued_work_and_ends_the_threads() -> None:
    baseline = threading.active_count()
    gate = OneAtATime()
    pool = GatedPool(3, gate, initializer=noop)
    started = threading.Event()
    finish = threading.Event()

    def blocker() -> None:
        started.set()
        finish.wait(5)

    first = pool.submit(blocker)
    started.wait(5)
    queued = [pool.submit(noop) for _ in range(5)]
    finish.set()
    pool.shutdown(wait=True, cancel_futures=True)
    assert first.done()
    assert all(f.cancelled() or f.done() for f in queued)
    assert threading.active_count() <= baseline
