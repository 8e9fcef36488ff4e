"""Choosing which existing resource row a new traversal works on.

A stack may hold several rows of one resource name: the live one, a
replacement in flight, a failed attempt, one being deleted. Each traversal
picks the best row per name by a score (Heat's rule, so a rollback lands on
the row that already matches the template it rolls back to):

    FAILED           -30
    action DELETE    -50
    replaced         -1
    template = prev  +5
    template = this  +10   (rollback: the row already has the target template)

Ties go to the most recently changed row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from hotplate.model.ids import TemplateId
from hotplate.model.records import ResourceRecord
from hotplate.model.states import Action, Status

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def row_score(
    row: ResourceRecord, template_id: TemplateId, prev_template_id: TemplateId | None
) -> tuple[int, datetime]:
    score = 0
    if row.status is Status.FAILED:
        score -= 30
    if row.action is Action.DELETE:
        score -= 50
    if row.replaced_by is not None:
        score -= 1
    if prev_template_id is not None and row.current_template_id == prev_template_id:
        score += 5
    if row.current_template_id == template_id:
        score += 10
    return score, row.updated_at or row.created_at or _EPOCH


@dataclass(frozen=True, slots=True)
class RowChoice:
    """Per resource name, the row to work on; names with no row need a new one."""

    chosen: Mapping[str, ResourceRecord]
    missing: tuple[str, ...]


def choose_rows(
    names: Iterable[str],
    rows: Iterable[ResourceRecord],
    template_id: TemplateId,
    prev_template_id: TemplateId | None,
) -> RowChoice:
    by_name: dict[str, list[ResourceRecord]] = {}
    for row in rows:
        by_name.setdefault(row.name, []).append(row)
    chosen: dict[str, ResourceRecord] = {}
    missing: list[str] = []
    for name in names:
        candidates = by_name.get(name)
        if not candidates:
            missing.append(name)
            continue
        chosen[name] = max(
            candidates, key=lambda r: (*row_score(r, template_id, prev_template_id), r.id)
        )
    return RowChoice(chosen=chosen, missing=tuple(missing))
