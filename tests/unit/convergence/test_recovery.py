"""never_built: a traversal whose engine died before it wrote a sync point."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from hotplate.convergence.recovery import _TOKENS, idempotency_token, never_built
from hotplate.model.ids import TraversalId
from hotplate.model.records import PointState
from hotplate.model.states import Action, Status

from .factories import T0, stack

LATER = T0 + timedelta(seconds=61)


def test_a_quiet_traversal_with_no_sync_point_was_never_built() -> None:
    assert never_built(stack(updated_at=T0), [], LATER)


def test_one_still_being_started_is_left_alone() -> None:
    assert not never_built(stack(updated_at=T0), [], T0)


def test_one_with_sync_points_is_the_sweeps_to_re_send() -> None:
    point = PointState("1", True, 0, T0)
    assert not never_built(stack(updated_at=T0), [point], LATER)


@pytest.mark.parametrize("status", [Status.COMPLETE, Status.FAILED])
def test_a_settled_stack_is_not_restarted(status: Status) -> None:
    assert not never_built(stack(updated_at=T0, status=status), [], LATER)


@pytest.mark.parametrize("action", [Action.SUSPEND, Action.RESUME, Action.CHECK])
def test_stack_actions_run_no_traversal_graph(action: Action) -> None:
    assert not never_built(stack(updated_at=T0, action=action), [], LATER)


def test_the_stack_row_without_an_update_counts_from_its_creation() -> None:
    assert never_built(stack(action=Action.CREATE), [], LATER)


@pytest.mark.parametrize("action", [Action.CREATE, Action.DELETE, "UPDATE"])
def test_an_idempotency_token_is_the_version_5_uuid_of_its_action(
        action: Action | str) -> None:
    resource, traversal = "0c4b6f0e-8a52-4ab4-9d0a-6a1b8f7e2c11", TraversalId("trav-7")
    token = idempotency_token(resource, action, traversal)
    assert token == str(uuid.uuid5(_TOKENS, f"{resource}/{action}/{traversal}"))
    assert uuid.UUID(token).version == 5
    assert token != idempotency_token(resource, action, TraversalId("trav-8"))
