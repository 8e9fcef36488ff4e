"""Breakpoint hooks with real threads: a resource waits at its hook until it is cleared."""

from __future__ import annotations

import pytest

from hotplate.app import embedded
from hotplate.engine.worker.breakpoints import clear_hook
from hotplate.model.errors import InvalidBreakPointHook

from .templates import res, tmpl
from .test_threaded import CTXT, settled, wait_for

TWO = tmpl({"a": res("a"), "b": res("b", depends_on="a")})


def hooks_env(**hooks: str) -> dict:
    return {"resource_registry": {"resources": {
        name: {"hooks": hook} for name, hook in hooks.items()}}}


@pytest.fixture
def engine(tmp_path):
    engine, transport = embedded(f"sqlite:///{tmp_path}/h.sqlite", workers=4)
    yield engine
    engine.stop()
    transport.stop()


def reasons(engine, sid, name: str) -> list[str]:
    return [f"{e.resource_action}_{e.resource_status}: {e.resource_status_reason}"
            for e in engine.store.list_events(sid) if e.resource_name == name]


def paused(engine, sid, name: str, text: str) -> bool:
    return any(text in r for r in reasons(engine, sid, name))


def clear(engine, sid, name: str, hook: str) -> None:
    stack = engine.store.get_stack(sid)
    row = next(r for r in engine.store.list_resources(sid) if r.name == name)
    clear_hook(engine.deps, stack, row, hook)


def states(engine, sid) -> dict[str, str]:
    return {r.name: f"{r.action}_{r.status}" for r in engine.store.list_resources(sid)}


def test_pre_create_pauses_until_cleared(engine) -> None:
    sid = engine.service.create_stack(CTXT, "s", TWO, hooks_env(a="pre-create"), {},
                                      {})["stack_id"]
    wait_for(lambda: paused(engine, sid, "a", "CREATE paused until Hook pre-create"))
    assert states(engine, sid) == {"a": "INIT_COMPLETE", "b": "INIT_COMPLETE"}
    assert engine.store.get_stack(sid).status == "IN_PROGRESS"
    clear(engine, sid, "a", "pre-create")
    wait_for(lambda: settled(engine, sid))
    assert states(engine, sid) == {"a": "CREATE_COMPLETE", "b": "CREATE_COMPLETE"}
    assert reasons(engine, sid, "a") == [
        "INIT_COMPLETE: CREATE paused until Hook pre-create is cleared",
        "INIT_COMPLETE: Hook pre-create is cleared",
        "CREATE_IN_PROGRESS: state changed",
        "CREATE_COMPLETE: state changed",
    ]


def test_post_create_holds_the_dependants_not_the_resource(engine) -> None:
    sid = engine.service.create_stack(CTXT, "s", TWO, hooks_env(a="post-create"), {},
                                      {})["stack_id"]
    wait_for(lambda: paused(engine, sid, "a", "CREATE paused until Hook post-create"))
    assert states(engine, sid) == {"a": "CREATE_COMPLETE", "b": "INIT_COMPLETE"}
    with pytest.raises(InvalidBreakPointHook, match='"pre-create" hook is not defined on '
                       'TestResource "a"'):
        clear(engine, sid, "a", "pre-create")
    with pytest.raises(InvalidBreakPointHook, match='Invalid hook type "pre-lunch"'):
        clear(engine, sid, "a", "pre-lunch")
    clear(engine, sid, "a", "post-create")
    wait_for(lambda: settled(engine, sid))
    assert states(engine, sid) == {"a": "CREATE_COMPLETE", "b": "CREATE_COMPLETE"}


def test_wildcard_pre_update_pauses_even_unchanged_resources(engine) -> None:
    sid = engine.service.create_stack(CTXT, "s", TWO, {}, {}, {})["stack_id"]
    wait_for(lambda: settled(engine, sid))
    engine.service.update_stack(CTXT, sid, TWO, hooks_env(**{"*": "pre-update"}), {}, {})
    wait_for(lambda: paused(engine, sid, "a", "UPDATE paused until Hook pre-update"))
    assert not paused(engine, sid, "b", "paused")  # b waits for a
    clear(engine, sid, "a", "pre-update")
    wait_for(lambda: paused(engine, sid, "b", "UPDATE paused until Hook pre-update"))
    clear(engine, sid, "b", "pre-update")
    wait_for(lambda: settled(engine, sid))
    stack = engine.store.get_stack(sid)
    assert (stack.action, stack.status) == ("UPDATE", "COMPLETE")


def test_a_resource_added_by_an_update_ignores_pre_create(engine) -> None:
    sid = engine.service.create_stack(CTXT, "s", tmpl({"a": res("a")}), {}, {},
                                      {})["stack_id"]
    wait_for(lambda: settled(engine, sid))
    engine.service.update_stack(CTXT, sid, TWO, hooks_env(b="pre-create"), {}, {})
    wait_for(lambda: settled(engine, sid))
    assert states(engine, sid)["b"] == "CREATE_COMPLETE"
    assert not paused(engine, sid, "b", "paused")


def test_delete_while_paused_at_pre_create(engine) -> None:
    sid = engine.service.create_stack(CTXT, "s", TWO, hooks_env(a="pre-create"), {},
                                      {})["stack_id"]
    wait_for(lambda: paused(engine, sid, "a", "paused"))
    engine.service.delete_stack(CTXT, sid)
    wait_for(lambda: settled(engine, sid), timeout=20)
    stack = engine.store.get_stack(sid, include_deleted=True)
    assert (stack.action, stack.status) == ("DELETE", "COMPLETE")
    assert engine.store.list_resources(sid) == []


def test_pre_delete_pauses_a_stack_delete(engine) -> None:
    sid = engine.service.create_stack(CTXT, "s", TWO, hooks_env(b="pre-delete"), {},
                                      {})["stack_id"]
    wait_for(lambda: settled(engine, sid))
    engine.service.delete_stack(CTXT, sid)
    wait_for(lambda: paused(engine, sid, "b", "DELETE paused until Hook pre-delete"))
    assert states(engine, sid) == {"a": "CREATE_COMPLETE", "b": "CREATE_COMPLETE"}
    clear(engine, sid, "b", "pre-delete")
    wait_for(lambda: settled(engine, sid))
    stack = engine.store.get_stack(sid, include_deleted=True)
    assert (stack.action, stack.status) == ("DELETE", "COMPLETE")
