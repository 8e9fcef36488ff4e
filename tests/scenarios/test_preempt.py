"""A newer update preempts an older one that is still updating a nested stack.

Heat's test_nested_preemption: the first update waits on a resource two
stacks down; the second update must not wait for it. The older traversal's
nested stack resource is asked to end early (its child's update is
cancelled), hands the row over, and the newer update deletes what the
resource held.
"""

from __future__ import annotations

import json

from hotplate.app import embedded

from .test_threaded import CTXT, settled, wait_for


def _tmpl(resources: dict, output: dict | None = None) -> str:
    tmpl: dict = {"heat_template_version": "queens",
                  "parameters": {"input": {"type": "string"}}, "resources": resources}
    if output is not None:
        tmpl["outputs"] = {"delay_stack": {"value": output}}
    return json.dumps(tmpl)


ROOT = _tmpl({"nested_stack": {"type": "preempt.yaml",
                               "properties": {"input": {"get_param": "input"}}}},
             {"get_attr": ["nested_stack", "delay_stack"]})
FILES = {
    "preempt.yaml": _tmpl({"delay_stack": {"type": "delay.yaml",
                                           "properties": {"input": {"get_param": "input"}}}},
                          {"get_resource": "delay_stack"}),
    "delay.yaml": _tmpl({"delay_resource": {"type": "OS::Heat::TestResource", "properties": {
        "action_wait_secs": {"update": 6000}, "value": {"get_param": "input"}}}}),
}


def test_a_second_update_preempts_the_first(tmp_path) -> None:
    engine, transport = embedded(f"sqlite:///{tmp_path}/p.sqlite", workers=4)
    service = engine.service
    try:
        sid = service.create_stack(CTXT, "preempt", ROOT, {"parameters": {"input": "foo"}},
                                   FILES, {})["stack_id"]
        wait_for(lambda: settled(engine, sid), timeout=30)
        delay = service.show_stack(CTXT, sid)[0]["outputs"][0]["output_value"]
        delay_id = delay.rsplit("/", 1)[-1]

        service.update_stack(CTXT, sid, ROOT, {"parameters": {"input": "bar"}}, FILES, {})

        def delay_updating() -> bool:
            rows = {r.name: r for r in engine.store.list_resources(delay_id)}
            row = rows.get("delay_resource")
            return row is not None and (row.action, row.status) == ("UPDATE", "IN_PROGRESS")
        wait_for(delay_updating, timeout=30)

        service.update_stack(CTXT, sid, ROOT, {"parameters": {"input": "baz"}},
                             {"preempt.yaml": _tmpl({})}, {})
        wait_for(lambda: settled(engine, sid), timeout=60)
        stack = engine.store.get_stack(sid)
        assert (stack.action, stack.status) == ("UPDATE", "COMPLETE"), stack.status_reason
        gone = engine.store.get_stack(delay_id, include_deleted=True)
        assert (gone.action, gone.status) == ("DELETE", "COMPLETE")
    finally:
        engine.stop()
        transport.stop()
