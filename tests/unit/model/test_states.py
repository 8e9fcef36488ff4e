"""The state tables: what they refuse, and the transitions Heat's behaviour needs."""

from __future__ import annotations

import pytest

from hotplate.model.states import (
    Action,
    IllegalTransition,
    Status,
    check_resource_transition,
    check_stack_transition,
)

A, S = Action, Status


@pytest.mark.parametrize(("old", "new"), [
    ((A.INIT, S.COMPLETE), (A.CREATE, S.IN_PROGRESS)),
    ((A.CREATE, S.IN_PROGRESS), (A.CREATE, S.COMPLETE)),
    ((A.CREATE, S.IN_PROGRESS), (A.CREATE, S.FAILED)),       # a stealer marks it FAILED
    ((A.CREATE, S.IN_PROGRESS), (A.CREATE, S.IN_PROGRESS)),  # a takeover resumes it
    ((A.CREATE, S.FAILED), (A.UPDATE, S.IN_PROGRESS)),
    ((A.UPDATE, S.COMPLETE), (A.DELETE, S.IN_PROGRESS)),
    ((A.INIT, S.COMPLETE), (A.CREATE, S.FAILED)),            # failed before it could start
])
def test_resource_transitions_heat_needs(old, new) -> None:
    check_resource_transition(old, new)


@pytest.mark.parametrize(("old", "new"), [
    ((A.DELETE, S.COMPLETE), (A.UPDATE, S.IN_PROGRESS)),
    ((A.CREATE, S.COMPLETE), (A.INIT, S.COMPLETE)),
    ((A.CREATE, S.IN_PROGRESS), (A.UPDATE, S.COMPLETE)),
])
def test_resource_transitions_refused(old, new) -> None:
    with pytest.raises(IllegalTransition):
        check_resource_transition(old, new)


@pytest.mark.parametrize(("old", "new"), [
    ((A.CREATE, S.IN_PROGRESS), (A.CREATE, S.COMPLETE)),
    ((A.CREATE, S.IN_PROGRESS), (A.DELETE, S.IN_PROGRESS)),  # a delete supersedes a create
    ((A.UPDATE, S.FAILED), (A.ROLLBACK, S.IN_PROGRESS)),
    ((A.CREATE, S.COMPLETE), (A.UPDATE, S.IN_PROGRESS)),
])
def test_stack_transitions_heat_needs(old, new) -> None:
    check_stack_transition(old, new)


@pytest.mark.parametrize(("old", "new"), [
    ((A.CREATE, S.COMPLETE), (A.CREATE, S.COMPLETE)),    # settled twice
    ((A.CREATE, S.IN_PROGRESS), (A.UPDATE, S.COMPLETE)),  # settles another action
    ((A.DELETE, S.COMPLETE), (A.CREATE, S.IN_PROGRESS)),
])
def test_stack_transitions_refused(old, new) -> None:
    with pytest.raises(IllegalTransition):
        check_stack_transition(old, new)
