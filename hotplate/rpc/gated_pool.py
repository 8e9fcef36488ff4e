"""A thread pool whose threads take work only while holding a gate.

An engine on SQLite lets one worker at a time do its bookkeeping (the
database has one writer and the interpreter one running thread). With an
ordinary pool every queued message is picked up by its own thread, which
then queues for the gate: each message costs a hand-over between threads.
Here a thread takes messages only while it holds the gate and keeps taking
them until the queue is empty, or until another thread asks for the gate
(a worker whose plugin has finished waiting and wants to settle its
resource), so messages flow through one thread with no hand-over.
A thread that waits on a plugin gives the gate back (the engine's
``released``), and another thread carries on with the queue.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import AbstractContextManager
from typing import Any, Protocol


class Gate(Protocol):
    def held(self) -> AbstractContextManager[None]: ...

    def contended(self) -> bool:
        """True when another thread is waiting for the gate."""
        ...


_Item = tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]


class GatedPool:
    """The subset of ThreadPoolExecutor the transport uses: submit and shutdown."""

    def __init__(self, size: int, gate: Gate, *, initializer: Callable[..., None],
                 initargs: tuple[Any, ...] = ()) -> None:
        self._size = size
        self._gate = gate
        self._initializer = initializer
        self._initargs = initargs
        self._items: deque[_Item] = deque()
        self._cond = threading.Condition()
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._stopped = False

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        with self._cond:
            if self._stopped:
                raise RuntimeError("cannot submit after shutdown")
            self._items.append((future, fn, args))
            if self._idle == 0 and len(self._threads) < self._size:
                thread = threading.Thread(target=self._work, daemon=True)
                self._threads.append(thread)
                thread.start()
            else:
                self._cond.notify()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._cond:
            self._stopped = True
            dropped = list(self._items) if cancel_futures else []
            if cancel_futures:
                self._items.clear()
            self._cond.notify_all()
            threads = list(self._threads)
        for future, _, _ in dropped:
            future.cancel()
        if wait:
            current = threading.current_thread()
            for thread in threads:
                if thread is not current:
                    thread.join()

    # -- the threads ---------------------------------------------------------------
    def _work(self) -> None:
        self._initializer(*self._initargs)
        while self._wait_for_work():
            finished: list[tuple[Future[Any], Any, BaseException | None]] = []
            try:
                with self._gate.held():
                    for future, fn, args in self._drain():
                        if not future.set_running_or_notify_cancel():
                            continue
                        try:
                            finished.append((future, fn(*args), None))
                        except BaseException as exc:  # the future carries it to the caller
                            finished.append((future, None, exc))
            finally:
                # Only now, the gate given up: what the work wrote is committed (the
                # gate's holder may commit its writes together, db/write_batch.py), so
                # whoever waits on a future, or on the pool going idle, reads it.
                for future, result, error in finished:
                    if error is not None:
                        future.set_exception(error)
                    else:
                        future.set_result(result)

    def _wait_for_work(self) -> bool:
        with self._cond:
            while not self._items:
                if self._stopped:
                    return False
                self._idle += 1
                self._cond.wait()
                self._idle -= 1
            return True

    def _drain(self) -> Iterator[_Item]:
        """Queued items, one at a time, until none is left or someone wants the gate."""
        while True:
            with self._cond:
                if not self._items:
                    return
                item = self._items.popleft()
            yield item
            if self._gate.contended():
                return
