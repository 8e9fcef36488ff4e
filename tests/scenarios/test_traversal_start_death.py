"""An engine killed while it starts a traversal: the stack row already says
IN_PROGRESS, but the sync points were never written, so nothing is ever cast and
no node can look stalled. The sweep starts the same action again, once the stack
has been quiet for stalled_traversal_timeout, and nothing is made twice.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from hotplate.model.states import Action

from .harness import Harness
from .templates import chain


class EngineKilled(BaseException):
    """Stops the engine where it stands (no handler catches a BaseException)."""


def _dies_writing_sync_points(monkeypatch: pytest.MonkeyPatch, h: Harness) -> None:
    def killed(*args: Any, **kwargs: Any) -> None:
        raise EngineKilled("before the sync points")

    monkeypatch.setattr(h.store, "create_sync_points", killed)


@pytest.mark.parametrize("action", [Action.CREATE, Action.UPDATE])
def test_a_traversal_whose_engine_died_starting_it_is_started_again(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch, action: Action) -> None:
    h = Harness(tmp_path, seed=5)
    if action is Action.UPDATE:
        sid = h.create("unbuilt", chain(3))
        h.run()
        _dies_writing_sync_points(monkeypatch, h)
        with pytest.raises(EngineKilled):
            h.update(sid, chain(3, "changed"))
    else:
        _dies_writing_sync_points(monkeypatch, h)
        with pytest.raises(EngineKilled):
            h.create("unbuilt", chain(3))
        sid = str(h.stack("unbuilt")["stack_identity"]["stack_id"])
    monkeypatch.undo()
    h.run()
    assert h.status(sid) == f"{action}_IN_PROGRESS"  # as Heat would leave it, for ever

    recovery = h.engine.recovery
    assert recovery is not None
    timeout = h.engine.deps.options.stalled_traversal_timeout
    recovery.sweep(None)  # not quiet long enough: it may still be starting
    h.run()
    assert h.status(sid) == f"{action}_IN_PROGRESS"
    h.clock.advance(timeout + 1)
    recovery.sweep(h.clock.now() - timedelta(seconds=timeout))
    h.run()
    assert h.status(sid) == f"{action}_COMPLETE", h.stack(sid)["stack_status_reason"]
    rows = h.rows(sid)
    assert sorted(r.name for r in rows) == ["r0", "r1", "r2"]  # the first start's rows
    assert all(r.engine_id is None for r in rows)
    if action is Action.UPDATE:
        assert {r.properties_data["value"] for r in rows} == {"changed"}
    creates = [a for a in h.store.list_attempts(sid) if a.action == "CREATE"]
    assert len(creates) == len({a.resource_uuid for a in creates}) == 3
