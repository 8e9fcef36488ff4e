"""Template rows an update leaves behind, on every backend, through python-heatclient.

An update keeps the template it replaces until it succeeds (what a rollback
returns to), then deletes it (Heat's purge_db). An update started while
another runs replaces that one's previous template while resource rows the
first had not reached still use it; once the second update succeeds, every
row is on its template and the stack keeps one template row, as after any
update.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, select

from hotplate.app import Engine, embedded
from hotplate.db import schema as s
from tests.api.conftest import Api, serving
from tests.api.helpers import create_complete, update_complete, wait_status

VERSION = "2021-04-16"


@pytest.fixture
def served(db_url: str) -> Iterator[tuple[Any, Engine]]:
    engine, transport = embedded(db_url, workers=4)
    store_engine = engine.store.engine  # type: ignore[attr-defined]  # SqlStore's
    with serving(engine, transport) as api:
        yield Api(api.base).client(), engine
    store_engine.dispose()


def _template(value: str, wait: int = 0) -> dict[str, Any]:
    """``a`` takes ``wait`` seconds to update; ``b`` waits for it."""
    return {"heat_template_version": VERSION, "resources": {
        "a": {"type": "OS::Heat::TestResource",
              "properties": {"value": value, "action_wait_secs": {"update": wait}}},
        "b": {"type": "OS::Heat::TestResource", "depends_on": ["a"],
              "properties": {"value": value}}}}


def _template_rows(engine: Engine) -> int:
    with engine.store.engine.connect() as conn:  # type: ignore[attr-defined]
        return int(conn.execute(select(func.count()).select_from(s.raw_template)).scalar_one())


def _settled_rows(engine: Engine, expected: int) -> int:
    """The template rows once the purge after the stack's COMPLETE has run (it follows
    the status write), or what there are after 30 s."""
    deadline = time.monotonic() + 30
    while (found := _template_rows(engine)) != expected and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def _resource_templates(engine: Engine, stack_id: str) -> set[int]:
    return {int(r.current_template_id) for r in engine.store.list_resources(stack_id)
            if r.current_template_id is not None}


def _wait_updating(hc: Any, stack_id: str, name: str) -> None:
    deadline = time.monotonic() + 30
    while hc.resources.get(stack_id, name).resource_status != "UPDATE_IN_PROGRESS":
        assert time.monotonic() < deadline, "the first update never reached its resource"
        time.sleep(0.05)


def test_an_update_during_an_update_leaves_one_template_row(served: tuple[Any, Engine]
                                                            ) -> None:
    hc, engine = served
    before = _template_rows(engine)
    stack_id = create_complete(hc, _template("one"), name="twice-updated")
    assert _settled_rows(engine, before + 1) == before + 1
    original = engine.store.get_stack(stack_id).raw_template_id  # type: ignore[union-attr]

    hc.stacks.update(stack_id, template=_template("two", wait=3))
    _wait_updating(hc, stack_id, "a")  # b still on the original template
    assert original in _resource_templates(engine, stack_id)
    hc.stacks.update(stack_id, template=_template("three"))
    done = wait_status(hc, stack_id, timeout=60)
    assert done.stack_status == "UPDATE_COMPLETE", done.stack_status_reason

    assert _settled_rows(engine, before + 1) == before + 1
    stack = engine.store.get_stack(stack_id)
    assert stack is not None and stack.prev_raw_template_id is None
    assert _resource_templates(engine, stack_id) == {stack.raw_template_id}
    assert engine.store.get_raw_template(original) is None

    update_complete(hc, stack_id, _template("four"))  # and a plain update after it
    assert _settled_rows(engine, before + 1) == before + 1
