"""A finished traversal's tidy-up that runs only after the next action started.

A traversal's end writes the stack COMPLETE, then tidies up (``purge_db``):
it clears the previous template an update kept and deletes it. A client that
sees COMPLETE may start an update at once, before that tidy-up ran (a loaded
machine widens the gap). The update keeps the template it replaces as its
own previous one, its rollback target. The late tidy-up must leave that
alone: with it cleared, cancelling the update rolled the stack back to no
template at all, and the rollback deleted every resource.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hotplate.engine.worker import traversal as trav

from .harness import Harness
from .templates import res, tmpl

CANCEL = {"project_id": "demo"}


def test_a_late_tidy_up_keeps_the_next_updates_rollback_target(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    sid = h.create("late-tidy-up", tmpl({"a": res("one")}), disable_rollback=False)
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"
    created = h.engine.store.get_stack(sid)  # the stack as the create's end saw it
    assert created is not None

    def a_update(message: Any) -> bool:
        return message.method == "check_resource"

    h.transport.hold(a_update)
    h.update(sid, tmpl({"a": res("two")}))
    h.run()
    assert h.status(sid) == "UPDATE_IN_PROGRESS"
    updating = h.engine.store.get_stack(sid)
    assert updating is not None and updating.prev_raw_template_id == created.raw_template_id

    # The create's tidy-up, arriving only now.
    trav.purge_db(h.engine.deps, created, created.current_traversal, success=True)
    after = h.engine.store.get_stack(sid)
    assert after is not None and after.prev_raw_template_id == created.raw_template_id
    assert h.engine.store.get_raw_template(created.raw_template_id) is not None

    h.service.stack_cancel_update(CANCEL, sid, cancel_with_rollback=True)
    h.transport.release(a_update)
    h.run()
    assert h.status(sid) == "ROLLBACK_COMPLETE"
    assert list(h.resources(sid)) == ["a"]
    assert h.resources(sid)["a"]["resource_action"] != "DELETE"
