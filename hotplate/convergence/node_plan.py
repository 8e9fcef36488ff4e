"""What one graph node should do, decided from the row, the stack and the message.

::

    message traversal != stack traversal ──► RETRIGGER (hand over to the new one)
    stack timed out                      ──► TIME_OUT
    update node:
      replaced for this template         ──► SKIP (the replacement carries on)
      replaced earlier, wanted again     ──► TAKE_BACK (forget the replacement, decide again)
      interrupted at this template       ──► RESUME (a dead engine's create/update goes on)
      INIT                               ──► CREATE
      FAILED / new implementation /      ──► REPLACE, or RESTRICTED when the
        DELETE_*                              environment restricts ``replace``
      already at this template           ──► PROPAGATE (a re-delivery)
      otherwise                          ──► UPDATE (in place, or replace: update_diff.py)
    cleanup node:
      interrupted delete                 ──► RESUME (a dead engine's delete goes on)
      row already at this template       ──► PROPAGATE (still wanted)
      INIT                               ──► PURGE (never created: drop the row)
      DELETE_COMPLETE                    ──► PROPAGATE (already gone)
      otherwise                          ──► DELETE
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from hotplate.convergence.recovery import is_interrupted
from hotplate.convergence.restrictions import REPLACE
from hotplate.model.ids import TemplateId, TraversalId
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action, Status


class Plan(StrEnum):
    RETRIGGER = "RETRIGGER"
    TIME_OUT = "TIME_OUT"
    SKIP = "SKIP"
    RESTRICTED = "RESTRICTED"
    TAKE_BACK = "TAKE_BACK"
    RESUME = "RESUME"
    CREATE = "CREATE"
    UPDATE = "UPDATE"
    REPLACE = "REPLACE"
    DELETE = "DELETE"
    PURGE = "PURGE"
    PROPAGATE = "PROPAGATE"


@dataclass(frozen=True, slots=True)
class NodeContext:
    """The facts a node's decision rests on, read by the shell."""

    row: ResourceRecord
    stack: StackRecord
    traversal_id: TraversalId
    is_update: bool
    template_id: TemplateId
    now: datetime
    implementation_changed: bool = False
    """The template's type for the row is served by another implementation than the
    row's (update nodes). Heat compares classes, not names: an alias onto the same
    plugin, or another provider template, is updated in place."""
    restricted_actions: frozenset[str] = frozenset()
    """``update``/``replace`` when the template's environment forbids them to the row."""
    replacement_template_id: TemplateId | None = None
    """The template of the row that replaced this one, while that row stands."""
    replace_failed: bool = True
    """A FAILED row is replaced (its plugin's ``needs_replace_failed``, asked by the
    shell for rows failed in an action other than CHECK or DELETE): False keeps the
    physical resource and updates it in place, as Heat does."""


DEFAULT_TIMEOUT_MINS = 60
"""Heat's stack_action_timeout (3600 s): a stack without timeout_mins still times out."""


def stack_deadline(
    stack: StackRecord, default_mins: int | None = DEFAULT_TIMEOUT_MINS
) -> datetime | None:
    """When the running traversal times out (from its start: updated_at, else created_at)."""
    minutes = stack.timeout_mins or default_mins
    if not minutes:
        return None
    started = stack.updated_at or stack.created_at
    return started + timedelta(minutes=minutes)


def time_remaining(
    stack: StackRecord, now: datetime, default_mins: int | None = DEFAULT_TIMEOUT_MINS
) -> float | None:
    deadline = stack_deadline(stack, default_mins)
    if deadline is None:
        return None
    return (deadline - now).total_seconds()


def has_timed_out(
    stack: StackRecord, now: datetime, default_mins: int | None = DEFAULT_TIMEOUT_MINS
) -> bool:
    remaining = time_remaining(stack, now, default_mins)
    return remaining is not None and remaining <= 0


def plan_node(ctx: NodeContext) -> Plan:
    if ctx.stack.current_traversal != ctx.traversal_id:
        return Plan.RETRIGGER
    if has_timed_out(ctx.stack, ctx.now):
        return Plan.TIME_OUT
    if ctx.is_update:
        return _plan_update(ctx)
    return _plan_cleanup(ctx)


def _plan_update(ctx: NodeContext) -> Plan:
    """What an update node does; a replaced row first settles who stands for it.

    A row replaced for this very template is a late or repeated message: its
    replacement does the work. A row replaced earlier that this traversal
    chose again (a rollback, or an update after the replacement failed)
    is taken back, as Heat's update_convergence clears ``replaced_by``:
    left set, every later traversal would skip the row and wait for ever.
    """
    row = ctx.row
    if row.replaced_by is not None:
        if ctx.replacement_template_id == ctx.template_id:
            return Plan.SKIP
        return Plan.TAKE_BACK
    if (is_interrupted(row) and row.current_template_id == ctx.template_id
            and row.action in _RESUMABLE_UPDATES):
        return Plan.RESUME
    if row.action is Action.INIT:
        return Plan.CREATE
    if row.current_template_id == ctx.template_id and row.status is Status.COMPLETE:
        return Plan.PROPAGATE
    failed = row.status is Status.FAILED and ctx.replace_failed
    if failed or row.action is Action.DELETE or ctx.implementation_changed:
        return Plan.RESTRICTED if REPLACE in ctx.restricted_actions else Plan.REPLACE
    return Plan.UPDATE


_RESUMABLE_UPDATES = frozenset({Action.CREATE, Action.UPDATE, Action.ADOPT})


def _plan_cleanup(ctx: NodeContext) -> Plan:
    row = ctx.row
    if is_interrupted(row) and row.action is Action.DELETE:
        return Plan.RESUME
    if row.current_template_id == ctx.template_id:
        return Plan.PROPAGATE
    if row.action is Action.INIT:
        return Plan.PURGE
    if (row.action, row.status) == (Action.DELETE, Status.COMPLETE):
        return Plan.PROPAGATE
    return Plan.DELETE
