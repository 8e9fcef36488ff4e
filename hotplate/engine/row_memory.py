"""The rows this engine holds fresh: a node starts from them instead of reading.

A node of a traversal starts from its resource row and its stack
(check_resource.py). Where this engine has just had both in hand - the
rows a traversal's start read or created, the row a node settled when the
next node of the same row is made ready here - it keeps them here, keyed
by the node they are for, and that node takes them instead of reading the
database. What keeps that correct:

1. **One node, one traversal, one use.** An entry is kept for a node key
   (resource id, update or cleanup) and a traversal, and taken (removed) by
   the first message of that node; a repeated or later message reads. It
   is handed out only when both the entry's traversal and its stack's
   ``current_traversal`` are the message's: a node of a newer traversal
   never sees the stack as it was before that traversal started (it would
   find itself superseded and hand over to itself for ever).
2. **A stack's entries go when this engine writes its traversal.** Starting,
   refusing, cancelling, completing or failing a traversal (traversal.py,
   stack_actions.py) drops every entry of the stack: nothing kept for an
   old traversal outlives it here.
3. **Staleness is caught, not prevented.** A row another engine (or a
   signal, or a takeover) changed since it was kept is older than the
   database. Every write a node makes to its row is a compare-and-swap on
   the row's ``atomic_key``, so it fails, and the node resolves the conflict
   from a fresh read (check_resource.py ``_on_lock_conflict``); a held row
   whose conflict finds the row moved on is sent again, to be decided from
   the row as it is, rather than trusted to "whoever moved it reports": the
   mover may have been another node of the same row. The plans whose writes
   no compare-and-swap guards (purging a never-created row, refusing a
   restricted replacement) are decided again from a fresh read first.
4. **Fresh reads where the engine's picture is in doubt.** A takeover or
   a re-sent node (recovery.py), a node handed on after the database was
   lost, a parked or resumed action, a lock conflict and an unexpected
   failure drop the row's entries (``forget``).
5. **Only where a stale decision is harmless.** A traversal another engine
   started (a delete, an update) is not seen by a stack kept here, and no
   compare-and-swap on the row catches it. So a held row serves only a node
   whose plugin touches nothing outside the database (``local_only``): at
   worst it writes rows a sync point or a later compare-and-swap refuses. A
   node that would call a cloud, start a nested stack or wait on a signal
   reads its row and stack, as Heat's worker does; beside such an action the
   read costs nothing that matters.
6. **Bounded, in number and in age.** At most ``capacity`` entries, the oldest
   going first, and none older than ``max_age`` seconds: with several engines
   most of what a traversal's start keeps is for nodes another engine runs,
   and is never taken here; it goes within a minute instead of staying until
   the table is full. An entry dropped only costs its node a read.

Thread-safe: one lock around the whole table; nothing slow runs under it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

from hotplate.model.ids import ResourceId, StackId, TraversalId
from hotplate.model.records import ResourceRecord, StackRecord

DEFAULT_CAPACITY = 20_000
"""Entries kept at most: a few wide stacks' worth, a few tens of megabytes at most."""

DEFAULT_MAX_AGE = 60.0
"""Seconds an entry is kept at most: long enough for a traversal's nodes that run
here to start, short enough that the entries of nodes that run elsewhere go soon."""

_Entry = tuple[float, TraversalId, ResourceRecord, StackRecord]
"""When kept (monotonic seconds), for which traversal, the row and the stack."""


def _key(resource_id: int, is_update: bool) -> int:
    """A node's key in the table: one int (smaller than a tuple, for many entries)."""
    return int(resource_id) * 2 + bool(is_update)


class RowMemory:
    """The last row and stack this engine wrote or read for a node, kept for that node."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY, max_age: float = DEFAULT_MAX_AGE,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._capacity = max(0, capacity)
        self._max_age = max_age
        self._clock = clock
        self._next_expiry = 0.0
        self._lock = threading.Lock()
        self._entries: dict[int, _Entry] = {}
        """In the order kept (a dict keeps it): the oldest first."""
        self._by_stack: dict[StackId, set[int]] = {}
        """Each stack's keys in ``_entries``: dropping a stack's entries (once or twice a
        traversal, for each of hundreds of nested stacks) must not scan the whole table."""

    def __len__(self) -> int:
        return len(self._entries)

    def remember(self, traversal: TraversalId, nodes: Iterable[tuple[ResourceRecord, bool]],
                 stack: StackRecord) -> None:
        """Keep each ``(row, is_update)`` of ``nodes`` for that node of ``traversal``,
        with ``stack`` as it stands in that traversal (nothing when it does not)."""
        if self._capacity == 0 or stack.current_traversal != traversal:
            return
        entries = self._entries
        now = self._clock()
        with self._lock:
            for row, is_update in nodes:
                if row.stack_id != stack.id:
                    continue
                key = _key(row.id, is_update)
                if entries.pop(key, None) is None:  # kept again: the newest, last
                    self._by_stack.setdefault(stack.id, set()).add(key)
                entries[key] = (now, traversal, row, stack)
            while len(entries) > self._capacity:
                self._drop(next(iter(entries)))
            if now >= self._next_expiry:
                self._expire(now)

    def take(self, resource_id: ResourceId, traversal: TraversalId,
             is_update: bool) -> tuple[ResourceRecord, StackRecord] | None:
        """The row and stack kept for this node of ``traversal``, removed from the table;
        None when none is kept, or when what is kept is another traversal's (it stays,
        for that traversal's node)."""
        key = _key(resource_id, is_update)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[1] != traversal:
                return None  # another traversal's: left for its own node
            self._drop(key)
        kept_at, _, row, stack = entry
        if stack.current_traversal != traversal or self._clock() - kept_at > self._max_age:
            return None
        return row, stack

    def forget(self, resource_id: ResourceId) -> None:
        """Drop what is kept for both nodes of the row: its next node reads."""
        with self._lock:
            for key in (_key(resource_id, True), _key(resource_id, False)):
                if key in self._entries:
                    self._drop(key)

    def forget_stack(self, stack_id: StackId) -> None:
        """Drop every entry of the stack (this engine wrote its traversal)."""
        with self._lock:
            for key in self._by_stack.pop(stack_id, ()):
                self._entries.pop(key, None)

    def _drop(self, key: int) -> None:
        """Remove one entry and its place in the stack's index (the lock held)."""
        stack_id = self._entries.pop(key)[3].id
        keys = self._by_stack.get(stack_id)
        if keys is not None:
            keys.discard(key)
            if not keys:
                del self._by_stack[stack_id]

    def _expire(self, now: float) -> None:
        """Drop the entries older than ``max_age``: the first ones (kept in order).

        Looked for a few times per ``max_age`` only: finding the first entry of a
        dict whose first entries were taken walks past their empty slots."""
        self._next_expiry = now + self._max_age / 4
        entries = self._entries
        oldest = now - self._max_age
        while entries:
            key = next(iter(entries))
            if entries[key][0] >= oldest:
                return
            self._drop(key)
