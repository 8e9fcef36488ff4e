"""The engine topic's migrate_convergence_1 (what Heat's heat-manage asks an engine): a
complete legacy stack becomes a convergence stack the engine then updates and deletes;
a stack already convergence is left alone, a nested one refused with Heat's text."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import update

from hotplate.db import schema as s
from hotplate.model.errors import ActionNotComplete, NotSupported

from .harness import CTXT, Harness
from .templates import res, tmpl


def _legacy(h: Harness, sid: str) -> None:
    """The stack as the legacy engine leaves it: no traversal, rows on no template."""
    with h.store.engine.begin() as conn:
        conn.execute(update(s.stack).where(s.stack.c.id == sid)
                     .values(convergence=False, current_traversal=None))
        conn.execute(update(s.resource).where(s.resource.c.stack_id == sid)
                     .values(current_template_id=None, requires=None))


def test_a_legacy_stack_migrated_over_the_engine_topic_converges(tmp_path: Any) -> None:
    h = Harness(tmp_path, seed=5)
    sid = h.create("s", tmpl({"a": res("one"), "b": res("two", depends_on="a")}))
    h.run()
    _legacy(h, sid)
    assert not h.store.get_stack(sid).convergence
    assert h.service.migrate_convergence_1(CTXT, sid) is None
    migrated = h.store.get_stack(sid)
    assert migrated.convergence and migrated.current_traversal
    rows = {row.name: row for row in h.rows(sid)}
    assert {row.current_template_id for row in rows.values()} == {migrated.raw_template_id}
    assert rows["b"].requires == (rows["a"].id,)

    h.update(sid, tmpl({"a": res("three"), "b": res("two", depends_on="a")}))
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert {row.name: row.properties_data["value"] for row in h.rows(sid)} == {
        "a": "three", "b": "two"}
    assert h.service.migrate_convergence_1(CTXT, sid) is None  # convergence: nothing to do
    h.delete(sid)
    h.run()
    assert h.status(sid) == "DELETE_COMPLETE"


def test_what_cannot_be_migrated_is_refused_in_heats_words(tmp_path: Any) -> None:
    h = Harness(tmp_path, seed=6)
    sid = h.create("s", tmpl({"a": res("one", fail=True)}))
    h.run()
    _legacy(h, sid)
    with pytest.raises(ActionNotComplete) as failed:
        h.service.migrate_convergence_1(CTXT, sid)
    assert str(failed.value) == "Stack s has an action (CREATE) in progress or failed state."
    parent = h.create("parent", tmpl({"a": res("one")}))
    h.run()
    with h.store.engine.begin() as conn:
        conn.execute(update(s.stack).where(s.stack.c.id == sid).values(owner_id=parent))
    with pytest.raises(NotSupported) as nested:
        h.service.migrate_convergence_1(CTXT, sid)
    assert str(nested.value) == f"Migration of nested stack {sid} is not supported."
