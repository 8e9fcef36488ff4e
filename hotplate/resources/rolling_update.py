"""Batches of a group's rolling update, and which members each batch changes (pure).

A rolling update moves a group from its current size to its target size in
batches: each batch sets the group's size and how many members get the new
definition, keeping at least ``min_in_service`` members untouched while it
runs. The arithmetic is Heat's (``heat/scaling/rolling_update.py``), so a
template gives the same batches, and the same members survive, as in Heat.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

__all__ = ["Batch", "batches", "member_definitions", "needs_update", "next_batch"]

Batch = tuple[int, int]
"""(the group's size during the batch, how many members get the new definition)."""

Definition = Mapping[str, Any]


def needs_update(target: int, current: int, up_to_date: int) -> bool:
    """Whether another batch is due: not every member is new, or the size is not yet right."""
    return not (up_to_date >= current == target)


def next_batch(target: int, current: int, up_to_date: int, batch_size: int,
               min_in_service: int) -> Batch:
    """The next batch's size and number of new definitions."""
    if up_to_date > current:
        raise ValueError("more members up to date than the group has")
    in_service = min(min_in_service, target, current)
    changed = min(batch_size, max(target - up_to_date, 0))
    size = changed + max(min(current, target - changed), in_service)
    return size, changed


def batches(target: int, current: int, batch_size: int, min_in_service: int
            ) -> Iterator[Batch]:
    """Every batch from ``current`` members, none up to date, to ``target`` up to date."""
    updated = 0
    while needs_update(target, current, updated):
        size, changed = next_batch(target, current, updated, batch_size, min_in_service)
        yield size, changed
        updated += changed - max(size - max(current, target), 0)
        current = size


def member_definitions(
    old: Sequence[tuple[str, Definition]],
    new_definition: Callable[[str], Definition],
    size: int,
    changes: int,
    new_name: Callable[[], str],
) -> Iterator[tuple[str, Definition]]:
    """The group's members for one batch, as (name, definition).

    ``old`` lists the existing members, the first to be replaced (or removed,
    when the group shrinks) first. The last ``size`` of them are kept; new
    members fill any shortfall; ``changes`` (counting the new members) is how
    many get the new definition, the rest keep theirs.
    """
    kept = list(old[-size:]) if size else []
    to_change = changes - (size - len(kept))
    for index in range(size):
        if index < len(kept):
            name, definition = kept[index]
            wanted = new_definition(name)
            if definition != wanted and to_change > 0:
                to_change -= 1
                yield name, wanted
            else:
                yield name, definition
        else:
            name = new_name()
            yield name, new_definition(name)
