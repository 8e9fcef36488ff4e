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
5. **Bounded.** At most ``capacity`` entries; the oldest go first. An entry
   dropped only costs its node a read.

Thread-safe: one lock around the whole table; nothing slow runs under it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

from hotplate.model.ids import ResourceId, StackId, TraversalId
from hotplate.model.records import ResourceRecord, StackRecord

DEFAULT_CAPACITY = 20_000
"""Entries kept at most: a few wide stacks' worth, a few tens of megabytes at most."""

NodeOf = tuple[int, bool]
"""A node's key in the table: the resource id, and update (True) or cleanup."""


@dataclass(frozen=True, slots=True)
class _Entry:
    traversal: TraversalId
    row: ResourceRecord
    stack: StackRecord


class RowMemory:
    """The last row and stack this engine wrote or read for a node, kept for that node."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self._capacity = max(0, capacity)
        self._lock = threading.Lock()
        self._entries: OrderedDict[NodeOf, _Entry] = OrderedDict()
        self._by_stack: dict[StackId, set[NodeOf]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def remember(self, traversal: TraversalId, nodes: Iterable[tuple[ResourceRecord, bool]],
                 stack: StackRecord) -> None:
        """Keep each ``(row, is_update)`` of ``nodes`` for that node of ``traversal``,
        with ``stack`` as it stands in that traversal (nothing when it does not)."""
        if self._capacity == 0 or stack.current_traversal != traversal:
            return
        with self._lock:
            for row, is_update in nodes:
                if row.stack_id != stack.id:
                    continue
                key = (int(row.id), bool(is_update))
                self._drop(key)
                self._entries[key] = _Entry(traversal, row, stack)
                self._by_stack.setdefault(stack.id, set()).add(key)
            while len(self._entries) > self._capacity:
                oldest, entry = self._entries.popitem(last=False)
                self._unindex(oldest, entry.stack.id)

    def take(self, resource_id: ResourceId, traversal: TraversalId,
             is_update: bool) -> tuple[ResourceRecord, StackRecord] | None:
        """The row and stack kept for this node of ``traversal``, removed from the table;
        None when none is kept, or when what is kept is another traversal's (it stays,
        for that traversal's node)."""
        key = (int(resource_id), bool(is_update))
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry.traversal != traversal:
                return None  # another traversal's: left for its own node
            self._drop(key)
        if entry.stack.current_traversal != traversal:
            return None
        return entry.row, entry.stack

    def forget(self, resource_id: ResourceId) -> None:
        """Drop what is kept for both nodes of the row: its next node reads."""
        with self._lock:
            self._drop((int(resource_id), True))
            self._drop((int(resource_id), False))

    def forget_stack(self, stack_id: StackId) -> None:
        """Drop every entry of the stack (this engine wrote its traversal)."""
        with self._lock:
            for key in self._by_stack.pop(stack_id, ()):
                self._entries.pop(key, None)

    def _drop(self, key: NodeOf) -> _Entry | None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._unindex(key, entry.stack.id)
        return entry

    def _unindex(self, key: NodeOf, stack_id: StackId) -> None:
        keys = self._by_stack.get(stack_id)
        if keys is not None:
            keys.discard(key)
            if not keys:
                del self._by_stack[stack_id]
