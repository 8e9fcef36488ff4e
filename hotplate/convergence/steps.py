"""What a worker does next, as values: how an operation ended, and who gets a row
whose lock the worker could not take.

An operation (create, update, replace, delete, purge, a refused change) ends in
exactly one ``Outcome``; ``after`` names the step that follows, and the shell
(engine/worker/check_resource.py) carries it out in one place. A lock conflict is
settled by ``resolve_conflict`` from the row as it is now and whether its
holder answers. Nothing here raises: exceptions stay inside the operations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from hotplate.convergence import outcome
from hotplate.model.ids import EngineId, ResourceId, TemplateId
from hotplate.model.records import ResourceRecord, SyncReport, SyncResult


@dataclass(frozen=True, slots=True)
class Completed:
    """The row reached this traversal's state: its dependants are told.

    ``reports`` and ``synced`` are set when the operation's last transaction
    already made the reports (with the release); otherwise the shell makes them.
    """

    row: ResourceRecord
    node_data: Mapping[str, Any] | None = None
    reports: Sequence[SyncReport] | None = None
    synced: Sequence[SyncResult] | None = None


@dataclass(frozen=True, slots=True)
class Failed:
    """The resource failed; the traversal fails with ``reason`` (Heat's text)."""

    reason: str


@dataclass(frozen=True, slots=True)
class Aborted:
    """Cancelled (a newer traversal, or a delete, stopped it): the newer one goes on."""

    reason: str


@dataclass(frozen=True, slots=True)
class TimedOut:
    """The stack's deadline passed during the action."""


@dataclass(frozen=True, slots=True)
class Replaced:
    """A new row stands for the resource now; its own node carries on."""

    by: ResourceId


@dataclass(frozen=True, slots=True)
class Paused:
    """The action waits (parked on a child stack, or held at a hook): nothing to report
    yet; whatever it waits on brings the node back."""


@dataclass(frozen=True, slots=True)
class Lost:
    """Someone else holds or changed the row: ``resolve_conflict`` says who goes on."""


Outcome = Completed | Failed | Aborted | TimedOut | Replaced | Paused | Lost


class Next(StrEnum):
    REPORT = "REPORT"
    """Report onward: the dependants' sync points (and the stack's, for a root)."""
    FAIL = "FAIL"
    """Fail the traversal (which may start a rollback)."""
    HAND_OVER = "HAND_OVER"
    """Poke the node in the newer traversal that superseded this one."""
    RESOLVE = "RESOLVE"
    """Settle the lock conflict (``resolve_conflict``)."""
    STOP = "STOP"
    """Nothing more for this message."""


def after(result: Outcome) -> Next:
    """The step that follows an operation's outcome."""
    if isinstance(result, Completed):
        return Next.REPORT
    if isinstance(result, Failed | TimedOut):
        return Next.FAIL
    if isinstance(result, Aborted):
        return Next.HAND_OVER
    if isinstance(result, Lost):
        return Next.RESOLVE
    return Next.STOP


def failure_reason(result: Failed | TimedOut) -> str:
    """The stack's status reason for a failed traversal."""
    return result.reason if isinstance(result, Failed) else outcome.TIMED_OUT


class Conflict(StrEnum):
    STEP_ASIDE = "STEP_ASIDE"
    """A live engine works on the row for this template: it reports when done."""
    PREEMPT = "PREEMPT"
    """A live engine works on the row for an older template: ask it to finish early
    (Heat's handle_preempt); it hands the row over when it does."""
    TAKE_OVER = "TAKE_OVER"
    """The holder is dead: take its lock over (engine/worker/recovery.py), which sends the
    node again."""
    RETRY = "RETRY"
    """Nobody holds the row and it is still as planned (only its key moved): send the
    node again."""
    NOTHING = "NOTHING"
    """The row is gone, or moved on: whoever moved it reports."""


def resolve_conflict(fresh: ResourceRecord | None, *, me: EngineId, holder_alive: bool,
                     template_id: TemplateId, planned: ResourceRecord) -> Conflict:
    """Who goes on with a row this worker could not lock.

    ``fresh`` is the row as it is now, ``holder_alive`` whether its holder
    answers the liveness probe (ours always does), ``template_id`` the
    template this traversal converges to, ``planned`` the row the node
    planned from.
    """
    if fresh is None:
        return Conflict.NOTHING
    if fresh.engine_id is not None:
        if fresh.engine_id == me or holder_alive:
            if fresh.current_template_id != template_id:
                return Conflict.PREEMPT
            return Conflict.STEP_ASIDE
        return Conflict.TAKE_OVER
    if fresh.current_template_id == planned.current_template_id:
        return Conflict.RETRY
    return Conflict.NOTHING
