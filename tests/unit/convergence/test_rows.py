from datetime import timedelta

from hotplate.convergence.rows import choose_rows, row_score
from hotplate.model.ids import TemplateId
from hotplate.model.states import Action, Status

from .factories import T0, row

NEW, PREV = TemplateId(2), TemplateId(1)


def test_missing_names_need_new_rows() -> None:
    choice = choose_rows(["a", "b"], [row(1, "a")], NEW, PREV)
    assert set(choice.chosen) == {"a"}
    assert choice.missing == ("b",)


def test_live_row_beats_failed_and_deleting_rows() -> None:
    live = row(1, "a")
    failed = row(2, "a", status=Status.FAILED)
    deleting = row(3, "a", action=Action.DELETE, status=Status.IN_PROGRESS)
    assert choose_rows(["a"], [failed, deleting, live], NEW, PREV).chosen["a"] is live


def test_rollback_prefers_row_already_at_target_template() -> None:
    # Rolling back to template 1: the old row has it, the replacement has template 2.
    old = row(1, "a", current_template_id=TemplateId(1), replaced_by=2)
    new = row(2, "a", current_template_id=TemplateId(2), replaces=1)
    choice = choose_rows(["a"], [old, new], TemplateId(1), TemplateId(2))
    assert choice.chosen["a"] is old


def test_replaced_row_loses_to_its_replacement() -> None:
    old = row(1, "a", replaced_by=2)
    new = row(2, "a", current_template_id=TemplateId(1))
    assert choose_rows(["a"], [old, new], NEW, PREV).chosen["a"] is new


def test_ties_go_to_most_recently_changed() -> None:
    older = row(1, "a", updated_at=T0 + timedelta(hours=1))
    newer = row(2, "a", updated_at=T0 + timedelta(hours=2))
    assert choose_rows(["a"], [newer, older], NEW, PREV).chosen["a"] is newer


def test_score_table() -> None:
    assert row_score(row(1), NEW, PREV)[0] == 5
    assert row_score(row(1, current_template_id=NEW), NEW, PREV)[0] == 10
    assert row_score(row(1, status=Status.FAILED), NEW, PREV)[0] == -25
    assert row_score(row(1, action=Action.DELETE), NEW, PREV)[0] == -45
    assert row_score(row(1, replaced_by=9), NEW, None)[0] == -1
