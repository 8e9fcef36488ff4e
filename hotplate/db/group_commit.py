"""Group commit: many threads' small write transactions committed as one.

Every resource an engine settles is a short transaction (its row, its events,
its reports to the dependants' sync points), and with hundreds of resources a
second the fixed cost around each (a pooled connection checked out and back,
BEGIN, COMMIT, the server's log flush) outweighs the statements. Here the
writes of the threads that arrive while one transaction is being written wait
in a queue, and the next transaction takes them all (up to ``MAX_BATCH``).

Leader and followers, no thread of its own: a caller that finds a lane free
(one on SQLite, a few elsewhere: ``LANES``) writes at once; one that finds them
all busy queues and sleeps until its write is committed, or until it is handed
the lead of the next batch, which is everything queued meanwhile. So a lone
write goes at once, with nothing added but a lock (a chain of resources is not
slowed by waiting for company), and a batch closes on size or when a lane is
free: there is no timer.

What each caller gets is exactly what its own transaction would have given:

- Released only after the COMMIT that holds its write (never before: nothing
  is acknowledged that a crash could lose), with its function's result.
- A write whose compare-and-swap fails alone. The store's row writes put
  their condition in their first statement and write nothing when it is
  false, so most lose with nothing to undo. One that raises ``Rollback``
  after writing, or any other error, is taken out with that outcome and the
  batch runs again without it, in a new transaction. That costs a rerun, but
  only then: a savepoint around every write would cost two statements each,
  every time (on MariaDB, two round trips), and some servers cannot go on in
  a transaction a failed statement aborted anyway.
- Rows are written in one order, the callers' ``order`` keys ascending, so
  two engines' batches lock their resource rows in the same order. A batch
  the server still picks as a deadlock victim (the sync points two batches
  both report to) is run again whole, as any transaction is (tx.py).
- A connection lost under the batch gives every caller what a lone
  transaction would have given: run again when nothing can have committed,
  else ``StoreUnavailable`` to each, to re-read rather than guess.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from sqlalchemy.pool import PoolProxiedConnection

if TYPE_CHECKING:
    from hotplate.db.tx import Transactions

T = TypeVar("T")

MAX_BATCH = 64
"""Writes per transaction at most: enough to spread a COMMIT thin, few enough
that the row locks a batch takes are held for milliseconds."""

LANES = {"sqlite": 1}
"""Transactions of grouped writes open at once, by backend. SQLite takes one
writer at a time. Elsewhere a transaction's round trips leave the engine idle,
so several run side by side, and writes queue (and group) only when all are busy."""
DEFAULT_LANES = 4


def lanes_for(dialect: str) -> int:
    return LANES.get(dialect, DEFAULT_LANES)


class _Write(Generic[T]):
    """One caller's write: its function, its place in the order, its outcome."""

    __slots__ = ("batch", "done", "error", "fn", "order", "result")

    def __init__(self, fn: Callable[[PoolProxiedConnection], T], order: int) -> None:
        self.fn = fn
        self.order = order
        self.done: threading.Event | None = None
        """Set for a write that queued: its caller sleeps on it."""
        self.batch: list[_Write[Any]] | None = None
        """Set when this write's caller is handed the lead of the next batch."""
        self.result: Any = None
        self.error: BaseException | None = None


class _TakenOut(Exception):
    """One write of a batch rolled back (``result``) or failed (``error``): the batch
    is undone and run again without it."""

    def __init__(self, write: _Write[Any], *, result: Any = None,
                 error: Exception | None = None) -> None:
        super().__init__(str(error) if error is not None else "rolled back")
        self.write = write
        self.result = result
        self.error = error


class GroupCommit:
    """The queue of one database's grouped writes (one per engine process)."""

    def __init__(self, tx: Transactions, lanes: int = 1, max_batch: int = MAX_BATCH) -> None:
        self._tx = tx
        self._lanes = lanes
        self._max = max_batch
        self._lock = threading.Lock()
        self._queue: list[_Write[Any]] = []
        self._leaders = 0

    def write(self, fn: Callable[[PoolProxiedConnection], T], order: int) -> T:
        """Run ``fn`` in a write transaction, perhaps with other callers' writes; return
        once that transaction has committed (or raise what ``fn``, or the transaction,
        raised). ``fn`` follows ``Transactions.write_raw``'s rules."""
        write = _Write(fn, order)
        with self._lock:
            if self._leaders < self._lanes:  # a free lane: the queue is empty
                self._leaders += 1
                batch: list[_Write[Any]] | None = [write]
            else:
                write.done = done = threading.Event()
                self._queue.append(write)
                batch = None
        if batch is None:
            done.wait()
            batch = write.batch  # handed the lead of a batch that holds this write
        if batch is not None:
            self._lead(batch)
        if write.error is not None:
            raise write.error
        return write.result  # type: ignore[no-any-return]

    def _lead(self, batch: list[_Write[Any]]) -> None:
        """Write the batch, then hand the next one, everything queued meanwhile, to
        the oldest of its callers."""
        try:
            self._commit(batch)
        finally:
            with self._lock:
                following, self._queue = self._queue[:self._max], self._queue[self._max:]
                if not following:
                    self._leaders -= 1
            for write in batch:
                if write.done is not None:
                    write.done.set()
            if following:
                leader = following[0]
                leader.batch = following
                assert leader.done is not None  # it queued
                leader.done.set()

    def _commit(self, batch: list[_Write[Any]]) -> None:
        """Commit the batch; a write that rolls back or fails is taken out, given its
        outcome, and the others are committed again without it."""
        pending = sorted(batch, key=lambda w: w.order)
        while pending:
            try:
                results = self._tx.write_raw(partial(self._run, batch=pending))
            except _TakenOut as out:
                out.write.result, out.write.error = out.result, out.error
                pending = [w for w in pending if w is not out.write]
                continue
            except BaseException as exc:  # the transaction's own end: every caller's
                for write in pending:
                    write.error = exc
                return
            for write, result in zip(pending, results, strict=True):
                write.result = result
            return

    def _run(self, raw: PoolProxiedConnection, *, batch: list[_Write[Any]]) -> list[Any]:
        from hotplate.db.tx import Rollback, is_retryable

        if len(batch) == 1:  # alone: its own transaction, exactly as write_raw runs it
            try:
                return [batch[0].fn(raw)]
            except Rollback as rollback:
                raise Rollback([rollback.value]) from None
        results: list[Any] = []
        for write in batch:
            try:
                results.append(write.fn(raw))
            except Rollback as rollback:
                raise _TakenOut(write, result=rollback.value) from None
            except Exception as exc:
                if is_retryable(exc) or self._tx.connection_lost(raw, exc):
                    raise  # the whole batch: run again, or lost, as one transaction
                raise _TakenOut(write, error=exc) from exc
        return results
