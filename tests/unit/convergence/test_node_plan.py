from dataclasses import replace
from datetime import timedelta

import pytest

from hotplate.convergence.node_plan import (
    NodeContext,
    Plan,
    has_timed_out,
    plan_node,
    time_remaining,
)
from hotplate.model.ids import TemplateId, TraversalId
from hotplate.model.states import Action, Status

from .factories import T0, row, stack

NOW = T0 + timedelta(seconds=30)


def ctx(r, *, is_update=True, traversal="t2", st=None, changed=False, restricted=(),
        now=NOW):
    return NodeContext(row=r, stack=st or stack(), traversal_id=TraversalId(traversal),
                       is_update=is_update, template_id=TemplateId(2), now=now,
                       implementation_changed=changed, restricted_actions=frozenset(restricted))


@pytest.mark.parametrize(
    ("r", "is_update", "expected"),
    [
        (row(1, action=Action.INIT), True, Plan.CREATE),
        (row(1), True, Plan.UPDATE),
        (row(1, current_template_id=TemplateId(2)), True, Plan.PROPAGATE),
        (row(1, status=Status.FAILED), True, Plan.REPLACE),
        (row(1, current_template_id=TemplateId(2), status=Status.FAILED), True, Plan.REPLACE),
        (row(1, action=Action.DELETE, status=Status.COMPLETE), True, Plan.REPLACE),
        (row(1, replaced_by=5), True, Plan.TAKE_BACK),
        (row(1, replaced_by=5, current_template_id=TemplateId(2)), True, Plan.TAKE_BACK),
        (row(1), False, Plan.DELETE),
        (row(1, action=Action.INIT), False, Plan.PURGE),
        (row(1, current_template_id=TemplateId(2)), False, Plan.PROPAGATE),
        (row(1, action=Action.DELETE, status=Status.COMPLETE), False, Plan.PROPAGATE),
    ],
)
def test_plan_table(r, is_update, expected) -> None:
    assert plan_node(ctx(r, is_update=is_update)) is expected


@pytest.mark.parametrize(
    ("replacement_template", "expected"),
    [(TemplateId(2), Plan.SKIP), (TemplateId(1), Plan.TAKE_BACK), (None, Plan.TAKE_BACK)],
)
def test_a_replaced_row_skips_only_for_its_replacements_template(
    replacement_template, expected
) -> None:
    # Replaced for this template: a repeated message, the replacement carries on.
    # Replaced for another one (rolled back from) or the replacement gone: taken back.
    context = replace(ctx(row(1, replaced_by=5)), replacement_template_id=replacement_template)
    assert plan_node(context) is expected


def test_a_new_implementation_replaces() -> None:
    assert plan_node(ctx(row(1), changed=True)) is Plan.REPLACE


def test_a_type_renamed_onto_the_same_implementation_updates() -> None:
    # The shell compares implementations: a renamed alias is no change of type.
    assert plan_node(ctx(row(1, resource_type="My::Alias"))) is Plan.UPDATE


@pytest.mark.parametrize("r", [
    row(1, status=Status.FAILED),
    row(1, action=Action.DELETE, status=Status.COMPLETE),
    row(1),
])
def test_a_restricted_replace_is_refused(r) -> None:
    context = ctx(r, changed=r.status is Status.COMPLETE and r.action is Action.CREATE,
                  restricted={"replace"})
    assert plan_node(context) is Plan.RESTRICTED


def test_a_restricted_update_leaves_replacement_and_in_place_plans_alone() -> None:
    # ``update`` is checked once the property diff is known (the shell's update).
    assert plan_node(ctx(row(1), changed=True, restricted={"update"})) is Plan.REPLACE
    assert plan_node(ctx(row(1), restricted={"update", "replace"})) is Plan.UPDATE
    assert plan_node(ctx(row(1, action=Action.INIT), restricted={"replace"})) is Plan.CREATE


def test_stale_traversal_retriggers_before_anything_else() -> None:
    assert plan_node(ctx(row(1, action=Action.INIT), traversal="t1")) is Plan.RETRIGGER


def test_timeout_counts_from_last_update() -> None:
    st = stack(timeout_mins=1, updated_at=T0)
    assert not has_timed_out(st, T0 + timedelta(seconds=59))
    assert has_timed_out(st, T0 + timedelta(seconds=60))
    assert time_remaining(st, T0 + timedelta(seconds=20)) == 40
    assert plan_node(ctx(row(1), st=st, now=T0 + timedelta(minutes=2))) is Plan.TIME_OUT


def test_stack_without_timeout_mins_gets_the_default_hour() -> None:
    assert time_remaining(stack(), T0 + timedelta(minutes=10)) == 50 * 60
    assert has_timed_out(stack(), T0 + timedelta(minutes=60))
    assert time_remaining(stack(), NOW, default_mins=None) is None


@pytest.mark.parametrize("r", [
    row(1, status=Status.FAILED),
    row(1, current_template_id=TemplateId(2), status=Status.FAILED),
])
def test_a_failed_row_its_plugin_keeps_is_updated_not_replaced(r) -> None:
    # The shell asked the plugin (needs_replace_failed): its cloud object is fine.
    assert plan_node(replace(ctx(r), replace_failed=False)) is Plan.UPDATE


def test_a_deleted_row_is_replaced_whatever_its_plugin_says() -> None:
    gone = row(1, action=Action.DELETE, status=Status.FAILED)
    assert plan_node(replace(ctx(gone), replace_failed=False)) is Plan.REPLACE
