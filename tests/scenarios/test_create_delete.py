"""Create and delete whole stacks through EngineService, under a seeded scheduler."""

from __future__ import annotations

import pytest

from .harness import Harness
from .templates import app_stack, chain, res, tmpl


@pytest.mark.parametrize("seed", range(3))
def test_create_resolves_attributes_along_edges(tmp_path, seed) -> None:
    h = Harness(tmp_path, seed=seed)
    sid = h.create("app", app_stack("hello"))
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"
    assert h.resource_states(sid) == {
        "db": "CREATE_COMPLETE", "app": "CREATE_COMPLETE", "web": "CREATE_COMPLETE"}
    web = h.outputs(sid)["web"]
    db_ref = h.resources(sid)["db"]["physical_resource_id"]
    assert web == f"app(hello)-{db_ref}"
    assert h.stack(sid)["stack_status_reason"] == "Stack CREATE completed successfully"


def test_events_record_every_state_change(tmp_path) -> None:
    h = Harness(tmp_path)
    sid = h.create("c", chain(3))
    h.run()
    counts = h.event_counts(sid)
    for name in ("r0", "r1", "r2"):
        assert counts[(name, "CREATE_IN_PROGRESS")] == 1
        assert counts[(name, "CREATE_COMPLETE")] == 1
    assert counts[("c", "CREATE_IN_PROGRESS")] == 1
    assert counts[("c", "CREATE_COMPLETE")] == 1
    reasons = {e["resource_status_reason"] for e in h.events(sid) if e["resource_name"] == "r0"}
    assert reasons == {"state changed"}


def test_chain_creates_in_dependency_order(tmp_path) -> None:
    h = Harness(tmp_path, seed=7)
    sid = h.create("c", chain(5))
    h.run()
    order = [e["resource_name"] for e in h.events(sid)
             if e["resource_status"] == "COMPLETE" and e["resource_name"].startswith("r")]
    assert order == ["r0", "r1", "r2", "r3", "r4"]


def test_delete_removes_every_resource_in_reverse_order(tmp_path) -> None:
    h = Harness(tmp_path, seed=3)
    sid = h.create("c", chain(4))
    h.run()
    h.delete(sid)
    h.run()
    assert h.status(sid) == "DELETE_COMPLETE"
    deleted = [e["resource_name"] for e in h.events(sid)
               if (e["resource_action"], e["resource_status"]) == ("DELETE", "COMPLETE")
               and e["resource_name"].startswith("r")]
    assert deleted == ["r3", "r2", "r1", "r0"]
    assert h.rows(sid) == []


def test_empty_stack_completes_at_once(tmp_path) -> None:
    h = Harness(tmp_path)
    sid = h.create("empty", tmpl({}))
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"


def test_failed_create_without_rollback_names_the_resource(tmp_path) -> None:
    h = Harness(tmp_path)
    sid = h.create("f", tmpl({"ok": res(), "bad": res(fail=True)}))
    h.run()
    view = h.stack(sid)
    assert f"{view['stack_action']}_{view['stack_status']}" == "CREATE_FAILED"
    assert view["stack_status_reason"].startswith("Resource CREATE failed: ")
    assert "resources.bad" in view["stack_status_reason"]
    assert h.resource_states(sid)["bad"] == "CREATE_FAILED"


def test_failed_create_rolls_back_to_nothing(tmp_path) -> None:
    h = Harness(tmp_path, seed=2)
    sid = h.create("f", tmpl({"ok": res(),
                              "bad": res(fail=True, depends_on="ok")}),
                   disable_rollback=False)
    h.run()
    assert h.status(sid) == "ROLLBACK_COMPLETE"
    assert h.rows(sid) == []
    counts = h.event_counts(sid)
    assert counts[("f", "CREATE_FAILED")] == 1
    assert counts[("f", "ROLLBACK_IN_PROGRESS")] == 1
    assert counts[("ok", "DELETE_COMPLETE")] == 1


def test_parameters_and_pseudo_parameters(tmp_path) -> None:
    h = Harness(tmp_path)
    body = tmpl(
        {"r": {"type": "OS::Heat::TestResource", "properties": {"value": {"str_replace": {
            "template": "N on S", "params": {"N": {"get_param": "n"},
                                             "S": {"get_param": "OS::stack_name"}}}}}}},
        outputs={"o": {"value": {"get_attr": ["r", "output"]}}},
        parameters={"n": {"type": "number", "default": 3}},
    )
    sid = h.create("pstack", body, {"n": "7"})
    h.run()
    assert h.outputs(sid) == {"o": "7 on pstack"}


@pytest.mark.parametrize("name", ["1abc", "has space", "x" * 256, ""])
def test_invalid_stack_names_are_refused_with_heats_message(tmp_path, name) -> None:
    from hotplate.model.errors import StackValidationFailed

    h = Harness(tmp_path)
    with pytest.raises(StackValidationFailed, match="must start with alpha"):
        h.create(name, tmpl({}))
    assert h.store.list_stacks(None) == []


def test_resource_registry_maps_types_and_environment_files_merge(tmp_path) -> None:
    h = Harness(tmp_path, seed=4)
    body = tmpl({"thing": {"type": "My::Thing", "properties": {"value": "x"}}},
                outputs={"o": {"value": {"get_attr": ["thing", "output"]}}})
    env = {"resource_registry": {"My::Thing": "OS::Heat::TestResource"}}
    ident = h.service.create_stack(
        {"project_id": "demo"}, "mapped", body, env,
        {"extra.yaml": "parameters: {}\nresource_registry: {My::Other: OS::Heat::None}\n"},
        {"disable_rollback": True}, environment_files=["extra.yaml"],
    )
    sid = ident["stack_id"]
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"
    assert h.outputs(sid) == {"o": "x"}
    assert h.resources(sid)["thing"]["resource_type"] == "My::Thing"
    h.delete(sid)
    h.run()
    assert h.status(sid) == "DELETE_COMPLETE"


def test_unmapped_custom_type_is_refused_naming_the_path(tmp_path) -> None:
    from hotplate.model.errors import StackValidationFailed

    h = Harness(tmp_path)
    with pytest.raises(StackValidationFailed, match=r"resources\.thing\.type"):
        h.create("nomap", tmpl({"thing": {"type": "My::Thing"}}))


def test_delete_of_a_stack_created_with_parameters(tmp_path) -> None:
    h = Harness(tmp_path)
    body = tmpl({"a": res({"get_param": "v"})}, parameters={"v": {"type": "string"}})
    sid = h.create("p", body, {"v": "given"})
    h.run()
    assert h.resource_states(sid) == {"a": "CREATE_COMPLETE"}
    h.delete(sid)
    h.run()
    assert h.status(sid) == "DELETE_COMPLETE"


def test_a_refused_create_leaves_no_template_behind_for_the_next(tmp_path) -> None:
    from hotplate.model.errors import StackExists

    h = Harness(tmp_path)
    h.create("taken", chain(1))
    h.run()
    with pytest.raises(StackExists):
        h.create("taken", tmpl({"x": res("x")}))
    sid = h.create("other", tmpl({"y": res("y")}))
    h.run()
    assert set(h.resources(sid)) == {"y"}


def test_suspend_resume_check_under_the_scheduler(tmp_path) -> None:
    from hotplate.model.errors import ActionInProgress, NotSupported

    from .harness import CTXT

    h = Harness(tmp_path, seed=5)
    sid = h.create("s", chain(3))
    h.run()
    h.service.stack_suspend(CTXT, sid)
    assert h.status(sid) == "SUSPEND_IN_PROGRESS"
    with pytest.raises(NotSupported, match="suspended"):  # Heat's first check
        h.update(sid, chain(3, "other"))
    with pytest.raises(ActionInProgress):
        h.service.stack_check(CTXT, sid)
    h.run()
    assert h.status(sid) == "SUSPEND_COMPLETE"
    suspended = [e["resource_name"] for e in h.events(sid)
                 if (e["resource_action"], e["resource_status"]) == ("SUSPEND", "COMPLETE")]
    assert suspended == ["r2", "r1", "r0", "s"]
    h.service.stack_suspend(CTXT, sid)  # already suspended: nothing happens
    assert h.status(sid) == "SUSPEND_COMPLETE"
    h.service.stack_resume(CTXT, sid)
    h.run()
    assert h.status(sid) == "RESUME_COMPLETE"
    assert set(h.resource_states(sid).values()) == {"RESUME_COMPLETE"}
    h.service.stack_resume(CTXT, sid)  # already resumed
    h.service.stack_check(CTXT, sid)
    with pytest.raises(ActionInProgress):
        h.update(sid, chain(3, "other"))
    h.run()
    assert h.status(sid) == "CHECK_COMPLETE"
    h.delete(sid)
    h.run()
    assert h.status(sid) == "DELETE_COMPLETE"


def test_resume_of_a_stack_never_suspended_fails_as_heat(tmp_path) -> None:
    from .harness import CTXT

    h = Harness(tmp_path)
    sid = h.create("s", chain(1))
    h.run()
    h.service.stack_resume(CTXT, sid)
    h.run()
    assert h.status(sid) == "RESUME_FAILED"
    assert h.stack(sid)["stack_status_reason"] == (
        "Resource RESUME failed: Error: resources.r0: State ('CREATE', 'COMPLETE') "
        "invalid for resume")
