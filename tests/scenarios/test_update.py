"""Updates: add, remove, in place, replace; rollback; updates racing updates."""

from __future__ import annotations

import pytest

from .harness import Harness
from .templates import app_stack, chain, res, tmpl


def physical_ids(h: Harness, sid: str) -> dict[str, str]:
    return {n: v["physical_resource_id"] for n, v in h.resources(sid).items()}


@pytest.mark.parametrize("seed", range(3))
def test_update_adds_removes_updates_and_replaces(tmp_path, seed) -> None:
    h = Harness(tmp_path, seed=seed)
    before = tmpl({
        "keep": res("k1"),
        "edit": res("e1"),
        "swap": res("s1", update_replace_value="x"),
        "gone": res("g1"),
    })
    sid = h.create("u", before)
    h.run()
    ids1 = physical_ids(h, sid)
    after = tmpl({
        "keep": res("k1"),
        "edit": res("e2"),
        "swap": res("s1", update_replace_value="y"),
        "new": res("n1", depends_on="swap"),
    })
    h.update(sid, after)
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    ids2 = physical_ids(h, sid)
    assert set(ids2) == {"keep", "edit", "swap", "new"}
    assert ids2["keep"] == ids1["keep"]
    assert ids2["edit"] == ids1["edit"]
    assert ids2["swap"] != ids1["swap"]
    states = h.resource_states(sid)
    assert states["edit"] == "UPDATE_COMPLETE"
    assert states["keep"] == "CREATE_COMPLETE"
    assert states["swap"] == "CREATE_COMPLETE"
    assert states["new"] == "CREATE_COMPLETE"
    # Old rows (the removed resource, the replaced one) are gone from the database.
    assert sorted(r.name for r in h.rows(sid)) == ["edit", "keep", "new", "swap"]
    counts = h.event_counts(sid)
    assert counts[("gone", "DELETE_COMPLETE")] == 1
    assert counts[("swap", "DELETE_COMPLETE")] == 1
    assert counts[("edit", "UPDATE_COMPLETE")] == 1
    assert counts[("keep", "UPDATE_COMPLETE")] == 0


def test_replacement_is_deleted_after_its_dependants_moved(tmp_path) -> None:
    h = Harness(tmp_path, seed=11)
    sid = h.create("r", app_stack("one"))
    h.run()
    h.update(sid, app_stack("one", extra={"db": res("two", update_replace=True)}))
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    events = [(e["resource_name"], e["resource_action"], e["resource_status"])
              for e in h.events(sid)]
    replaced_at = events.index(("db", "DELETE", "COMPLETE"))
    app_updated = max(i for i, e in enumerate(events) if e[0] == "web" and e[2] == "COMPLETE")
    assert app_updated < replaced_at
    db_ref = h.resources(sid)["db"]["physical_resource_id"]
    assert h.outputs(sid)["web"] == f"app(two)-{db_ref}"


def test_replacement_with_inverted_dependencies(tmp_path) -> None:
    h = Harness(tmp_path, seed=5)
    first = tmpl({"a": res("a", update_replace_value="1"),
                  "b": res("b", depends_on="a", update_replace_value="1")})
    sid = h.create("inv", first)
    h.run()
    second = tmpl({"a": res("a", depends_on="b", update_replace_value="2"),
                   "b": res("b", update_replace_value="2")})
    h.update(sid, second)
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert h.resource_states(sid) == {"a": "CREATE_COMPLETE", "b": "CREATE_COMPLETE"}
    assert sorted(r.name for r in h.rows(sid)) == ["a", "b"]


def test_failed_update_rolls_back_to_previous_template(tmp_path) -> None:
    h = Harness(tmp_path, seed=4)
    sid = h.create("rb", tmpl({"a": res("old")}, outputs={
        "a": {"value": {"get_attr": ["a", "output"]}}}))
    h.run()
    h.update(sid, tmpl({"a": res("new"), "b": res(fail=True,
                                                                      depends_on="a")},
                       outputs={"a": {"value": {"get_attr": ["a", "output"]}}}),
             disable_rollback=False)
    h.run()
    assert h.status(sid) == "ROLLBACK_COMPLETE"
    assert h.outputs(sid) == {"a": "old"}
    assert set(h.resource_states(sid)) == {"a"}


def test_update_while_create_still_runs(tmp_path) -> None:
    h = Harness(tmp_path, seed=9)
    sid = h.create("busy", chain(6, "v1"))
    h.step(4)
    h.update(sid, chain(6, "v2"))
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    values = {n: v for n, v in h.resources(sid).items()}
    assert set(values) == {f"r{i}" for i in range(6)}
    for row in h.rows(sid):
        assert row.properties_data["value"] == "v2", row


@pytest.mark.parametrize("seed", range(4))
def test_several_updates_in_quick_succession(tmp_path, seed) -> None:
    h = Harness(tmp_path, seed=seed)
    sid = h.create("many", chain(5, "v0"))
    h.run()
    for i in range(1, 5):
        h.update(sid, chain(5, f"v{i}"))
        h.step(3)
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert {row.properties_data["value"] for row in h.rows(sid)} == {"v4"}
    assert len(h.rows(sid)) == 5


def test_cancel_update_with_rollback(tmp_path) -> None:
    h = Harness(tmp_path, seed=1)
    sid = h.create("cx", chain(5, "old"))
    h.run()
    h.update(sid, chain(5, "new"))
    h.step(3)
    h.service.stack_cancel_update({"project_id": "demo"}, sid, cancel_with_rollback=True)
    h.run()
    assert h.status(sid) == "ROLLBACK_COMPLETE"
    assert {row.properties_data["value"] for row in h.rows(sid)} == {"old"}


def test_cancel_update_without_rollback(tmp_path) -> None:
    h = Harness(tmp_path, seed=1)
    sid = h.create("cx", chain(5, "old"))
    h.run()
    h.update(sid, chain(5, "new"))
    h.step(3)
    h.service.stack_cancel_update({"project_id": "demo"}, sid, cancel_with_rollback=False)
    h.run()
    view = h.stack(sid)
    assert (view["stack_action"], view["stack_status"]) == ("UPDATE", "FAILED")
    assert view["stack_status_reason"] == "Stack UPDATE cancelled"
    values = [row.properties_data["value"] for row in h.rows(sid)]
    assert "old" in values  # stopped part-way: the rest was never touched
    assert not any(r.engine_id for r in h.rows(sid))


def test_cancel_refused_when_nothing_to_cancel(tmp_path) -> None:
    from hotplate.model.errors import NotSupported

    h = Harness(tmp_path)
    sid = h.create("idle", chain(1))
    h.run()
    with pytest.raises(NotSupported, match="CREATE_COMPLETE"):
        h.service.stack_cancel_update({"project_id": "demo"}, sid)


def conditional(env: str) -> tuple[dict, dict]:
    body = {
        "heat_template_version": "2021-04-16",
        "parameters": {"env": {"type": "string", "default": "dev"}},
        "conditions": {"is_prod": {"equals": [{"get_param": "env"}, "prod"]}},
        "resources": {
            "app": res("a"),
            "replica": {"type": "OS::Heat::TestResource", "condition": "is_prod",
                        "properties": {"value": {"get_attr": ["app", "output"]}}},
        },
        "outputs": {
            "replica": {"value": {"get_attr": ["replica", "output"]}, "condition": "is_prod"},
            "mode": {"value": {"if": ["is_prod", "ha", "single"]}},
        },
    }
    return body, {"env": env}


def test_conditions_follow_parameters_across_updates(tmp_path) -> None:
    h = Harness(tmp_path, seed=3)
    sid = h.create("cond", *conditional("dev"))
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"
    assert set(h.resource_states(sid)) == {"app"}
    assert h.outputs(sid) == {"replica": None, "mode": "single"}
    h.update(sid, *conditional("prod"))
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert set(h.resource_states(sid)) == {"app", "replica"}
    assert h.outputs(sid) == {"replica": "a", "mode": "ha"}
    h.update(sid, *conditional("dev"))
    h.run()
    assert set(h.resource_states(sid)) == {"app"}
    assert h.event_counts(sid)[("replica", "DELETE_COMPLETE")] == 1


def test_metadata_is_stored_and_a_metadata_change_is_an_update(tmp_path) -> None:
    h = Harness(tmp_path, seed=2)

    def body(role: str) -> dict:
        return tmpl({"box": {"type": "OS::Heat::TestResource", "properties": {"value": "v"},
                             "metadata": {"role": role, "ref": {"get_param": "OS::stack_name"}}}})

    sid = h.create("meta", body("web"))
    h.run()
    assert h.resource(sid, "box")["metadata"] == {"role": "web", "ref": "meta"}
    assert "metadata" not in h.resources(sid)["box"]  # as Heat's, only the detailed view
    physical = h.resources(sid)["box"]["physical_resource_id"]
    h.update(sid, body("db"))
    h.run()
    box = h.resource(sid, "box")
    assert box["metadata"] == {"role": "db", "ref": "meta"}
    assert f"{box['resource_action']}_{box['resource_status']}" == "UPDATE_COMPLETE"
    assert box["physical_resource_id"] == physical


def test_a_retired_type_moved_to_its_substitute_is_updated_in_place(tmp_path) -> None:
    """Heat's ReplaceDeprecatedResourceTest: OS::Heat::SoftwareDeployments becomes
    OS::Heat::SoftwareDeploymentGroup, its substitute_class: same physical resource."""
    def template(kind: str) -> dict:
        return {"heat_template_version": "2013-05-23", "resources": {
            "config": {"type": "OS::Heat::SoftwareConfig", "properties": {"config": "xxxx"}},
            "dep": {"type": kind, "properties": {
                "config": {"get_resource": "config"}, "servers": {"0": "server-0"},
                "signal_transport": "NO_SIGNAL"}}}}

    h = Harness(tmp_path)
    sid = h.create("substitute", template("OS::Heat::SoftwareDeployments"))
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE", h.stack(sid)["stack_status_reason"]
    before = h.resources(sid)["dep"]
    h.update(sid, template("OS::Heat::SoftwareDeploymentGroup"))
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE", h.stack(sid)["stack_status_reason"]
    after = h.resources(sid)["dep"]
    assert after["resource_type"] == "OS::Heat::SoftwareDeploymentGroup"
    assert after["physical_resource_id"] == before["physical_resource_id"]
