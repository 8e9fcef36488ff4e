"""SQLite: one worker's successive writes committed together.

An engine on SQLite lets one worker thread at a time do its bookkeeping (the
engine's work slot), and that thread settles one resource after another.
Each settle was its own transaction, and its BEGIN IMMEDIATE and COMMIT (the
WAL frames written, the shared-memory locks taken and dropped) cost about
80 us: a fifth of a resource's time. While the thread holds its slot, its
hot-path writes (``write_raw``, ``write_grouped``) now share one open
transaction, each in a savepoint of its own, so a write that rolls back or
fails undoes itself alone, exactly as its own transaction would have.

The batch is committed:

- when the thread gives its slot up: its queue is empty, another worker
  wants the slot, or it is about to wait (a plugin runs, a hook pauses, it
  asks whether another engine lives). So nothing outside this process (a
  cloud API above all) is ever acted on before the writes that led to it
  are committed;
- before the thread runs any other transaction (SQLAlchemy's, which takes
  another connection and would not see the batch);
- when it holds ``MAX_WRITES`` writes or is ``MAX_AGE`` seconds old, or
  another thread waits to write (the API, the event sinks, the heartbeat):
  at the batch's next write. Until then they wait, as they would behind
  any write transaction;
- by a writer of another thread that has waited ``RESCUE_AFTER`` seconds
  for it, when the batching thread is between two statements: that thread
  may itself be waiting for the writer (an in-process call it made), and
  would otherwise never reach its next write. Committing early is always
  safe: the batch is closed for its thread, which begins a new one.

Reads of the hot path (``read_raw``) on the batching thread run inside the
batch, so the thread sees its own writes; other threads see only what is
committed, a few milliseconds late.

What a crash can lose is what it always could: writes not committed, which
nothing outside the process has seen. In-process messages sent meanwhile
are lost with the process too, and recovery re-sends the nodes whose
reports never arrived. A COMMIT that fails (the disk full) loses the batch
whole: it is logged, and the nodes it held are re-sent by the same
recovery, their rows being as they were before it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.pool import PoolProxiedConnection

from hotplate.db.kept_writer import KeptWriter

LOG = logging.getLogger(__name__)

T = TypeVar("T")

MAX_WRITES = 64
"""Writes in one batch at most: enough to spread the COMMIT thin."""
MAX_AGE = 0.05
"""Seconds a batch stays open at most (checked at its next write)."""
GIVE_WAY_SECS = 0.05
"""How long a new batch waits at most for the writers that waited for the last one."""
RESCUE_AFTER = 0.05
"""Seconds a writer of another thread waits for an open batch before committing it."""


class _Open:
    """A batching thread's open transaction. ``mutex`` is held while a statement runs
    on it: whoever commits it (its thread, or a writer rescuing it) holds it then."""

    __slots__ = ("closed", "generation", "mutex", "raw", "since", "writes")

    def __init__(self, raw: PoolProxiedConnection, generation: int) -> None:
        self.raw = raw
        self.generation = generation
        self.writes = 0
        self.since = time.monotonic()
        self.mutex = threading.Lock()
        self.closed = False


class WriteBatches:
    """Per engine: which threads batch their writes, and the open batch (at most one:
    it holds the engine's write lock)."""

    def __init__(self, write_lock: threading.Lock, kept: KeptWriter,
                 on_commit: Callable[[], None] = lambda: None) -> None:
        self._write_lock = write_lock
        self._kept = kept
        self._on_commit = on_commit
        self._local = threading.local()
        self._waiting = 0
        self._waiting_lock = threading.Lock()
        self._taken = 0
        """Times the write lock was taken (under it): a waiter got it when this moves."""
        self._open_batch: _Open | None = None

    # -- the scope ---------------------------------------------------------------
    def begin(self) -> None:
        """From now on this thread's hot-path writes join a batch."""
        self._local.on = True

    def end(self) -> None:
        """Commit this thread's batch; its writes go alone again."""
        self._local.on = False
        self.flush()

    def batching(self) -> bool:
        return getattr(self._local, "on", False) is True

    def read(self, fn: Callable[[PoolProxiedConnection], T]) -> tuple[bool, T | None]:
        """``(True, fn(connection))`` inside this thread's open batch, so that it reads
        its own writes; ``(False, None)`` when it has none."""
        batch: _Open | None = getattr(self._local, "batch", None)
        if batch is None:
            return False, None
        with batch.mutex:
            if batch.closed:  # committed by a writer that rescued it
                self._local.batch = None
                return False, None
            return True, fn(batch.raw)

    # -- the write lock, for every writer of the engine -----------------------------
    def acquire(self) -> None:
        """Take the engine's write lock. One who must wait says so, so that an open
        batch is committed at its next write rather than when it is full; one who
        waits long commits the batch itself (the module's docstring says why)."""
        if not self._write_lock.acquire(blocking=False):
            with self._waiting_lock:
                self._waiting += 1
            try:
                while not self._write_lock.acquire(timeout=RESCUE_AFTER):
                    if self._rescue():
                        break  # the batch's hold of the lock is ours now
            finally:
                with self._waiting_lock:
                    self._waiting -= 1
        self._taken += 1

    def release(self) -> None:
        self._write_lock.release()

    def _rescue(self) -> bool:
        """Commit the open batch for its thread, if that thread is between statements;
        True if done (the caller then holds the write lock the batch held)."""
        batch = self._open_batch
        if batch is None or not batch.mutex.acquire(blocking=False):
            return False
        try:
            if batch.closed:
                return False
            LOG.debug("a writer waited %.2f s for a batch of %d writes: committing it",
                      RESCUE_AFTER, batch.writes)
            self._commit(batch)
            return True
        finally:
            batch.mutex.release()

    def _give_way(self) -> None:
        """Before a new batch: let the writers who waited for the last one go first.
        The lock is not fair: the batching thread, which released it a moment ago
        and still runs, would take it again before any of them woke."""
        if not self._waiting:
            return
        taken = self._taken
        deadline = time.monotonic() + GIVE_WAY_SECS
        while self._waiting and self._taken == taken and time.monotonic() < deadline:
            time.sleep(0.0002)

    # -- writes --------------------------------------------------------------------
    def write(self, fn: Callable[[PoolProxiedConnection], T],
              begin: Callable[[PoolProxiedConnection], None],
              rollback_value: Callable[[BaseException], tuple[bool, Any]]) -> T:
        """Run ``fn`` in this thread's batch, in a savepoint: undone alone when it
        raises. ``begin`` starts a new batch's transaction; ``rollback_value`` says
        whether an exception is a Rollback, and its value."""
        while True:
            batch: _Open | None = getattr(self._local, "batch", None)
            if batch is not None and (batch.writes >= MAX_WRITES or self._waiting
                                      or time.monotonic() - batch.since > MAX_AGE):
                self.flush()
                batch = None
            if batch is None:
                batch = self._open(begin)
            with batch.mutex:
                if batch.closed:  # committed by a writer that rescued it: a new one
                    self._local.batch = None
                    continue
                return self._write_in(batch, fn, rollback_value)

    def _write_in(self, batch: _Open, fn: Callable[[PoolProxiedConnection], T],
                  rollback_value: Callable[[BaseException], tuple[bool, Any]]) -> T:
        driver: Any = batch.raw.driver_connection
        driver.execute("SAVEPOINT hotplate_write").close()
        try:
            result = fn(batch.raw)
        except BaseException as exc:
            self._undo(batch, driver)
            rolled_back, value = rollback_value(exc)
            if rolled_back:
                return value  # type: ignore[no-any-return]
            raise
        driver.execute("RELEASE hotplate_write").close()
        batch.writes += 1
        return result

    def _open(self, begin: Callable[[PoolProxiedConnection], None]) -> _Open:
        self._give_way()
        self.acquire()
        try:
            raw, generation = self._kept.take()
        except BaseException:
            self.release()
            raise
        try:
            begin(raw)
        except BaseException:
            self._kept.give_back(raw, generation)
            self.release()
            raise
        batch = self._local.batch = self._open_batch = _Open(raw, generation)
        return batch

    def _undo(self, batch: _Open, driver: Any) -> None:
        """Undo the failed write's savepoint; if even that fails, the whole batch."""
        try:
            driver.execute("ROLLBACK TO hotplate_write").close()
            driver.execute("RELEASE hotplate_write").close()
        except Exception:
            LOG.exception("a batched write could not be undone alone; its batch is lost")
            self._commit(batch, commit=False)
            self.release()

    def flush(self) -> None:
        """Commit this thread's open batch, if any (its failure is logged: see the
        module's docstring)."""
        batch: _Open | None = getattr(self._local, "batch", None)
        if batch is None:
            return
        self._local.batch = None
        with batch.mutex:
            if batch.closed:  # a writer rescued it, and holds the lock now
                return
            self._commit(batch)
        self.release()

    def _commit(self, batch: _Open, *, commit: bool = True) -> None:
        """End ``batch`` (its mutex held), leaving the write lock held."""
        batch.closed = True
        if self._open_batch is batch:
            self._open_batch = None
        driver: Any = batch.raw.driver_connection
        try:
            driver.execute("COMMIT" if commit else "ROLLBACK").close()
            if commit:
                self._on_commit()
        except Exception:
            LOG.exception("a batch of %d writes could not be committed; its nodes are "
                          "sent again by recovery", batch.writes)
            try:
                driver.execute("ROLLBACK").close()
            except Exception:  # the connection is past saving: the pool drops it
                batch.raw.invalidate()
        finally:
            self._kept.give_back(batch.raw, batch.generation)
