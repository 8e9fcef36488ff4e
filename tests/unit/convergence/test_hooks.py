"""Which hook an action meets: Heat's rules, as a table."""

from __future__ import annotations

import pytest

from hotplate.convergence.hooks import cleared_reason, hook_for, paused_reason
from hotplate.model.states import Action


@pytest.mark.parametrize(("stage", "action", "stack_action", "hook"), [
    ("pre", Action.CREATE, "CREATE", "pre-create"),
    ("post", Action.CREATE, "CREATE", "post-create"),
    ("pre", Action.CREATE, "UPDATE", None),      # added by an update, or a replacement
    ("pre", Action.CREATE, "ROLLBACK", None),
    ("pre", Action.UPDATE, "UPDATE", "pre-update"),
    ("post", Action.UPDATE, "ROLLBACK", "post-update"),
    ("pre", Action.DELETE, "DELETE", "pre-delete"),
    ("post", Action.DELETE, "DELETE", "post-delete"),
    ("pre", Action.DELETE, "UPDATE", None),      # removed by an update
    ("pre", Action.DELETE, "ROLLBACK", None),
])
def test_hook_for(stage: str, action: Action, stack_action: str, hook: str | None) -> None:
    assert hook_for(stage, action, stack_action) == hook


def test_texts_are_heats() -> None:
    assert paused_reason(Action.CREATE, "pre-create") == (
        "CREATE paused until Hook pre-create is cleared")
    assert cleared_reason("post-update") == "Hook post-update is cleared"
