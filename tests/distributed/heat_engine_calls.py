"""Run by heat-api's own interpreter: every engine-topic method, called with Heat's own
RPC client (``heat.rpc.client.EngineClient``) over the broker, as heat-api, heat-api-cfn
and heat-manage call them.

Reads ``{"transport_url", "methods"}`` on standard input; calls each method once, in
an order where each finds what it needs (a stack, a snapshot, a config...), and prints
a JSON object: method name -> ``{"answer": <what it returned>}`` or ``{"error":
<exception class name>, "message": <text>}``. Methods named in the input that this
script does not know how to call are reported as ``{"error": "NotCalled"}``.
"""

import json
import sys
import time
import uuid

from oslo_config import cfg
from oslo_log import log as logging

VERSION = "2021-04-16"
TEMPLATE = {
    "heat_template_version": VERSION,
    "parameters": {"greeting": {"type": "string", "default": "hello"}},
    "resources": {
        "source": {"type": "OS::Heat::TestResource",
                   "properties": {"value": {"get_param": "greeting"}}},
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
    },
    "outputs": {"greeting": {"value": {"get_attr": ["source", "output"]}}},
}
SLOW = {"heat_template_version": VERSION, "resources": {"slow": {
    "type": "OS::Heat::TestResource",
    "properties": {"value": "v", "action_wait_secs": {"update": 30}}}}}


def main() -> None:
    spec = json.load(sys.stdin)
    logging.register_options(cfg.CONF)
    cfg.CONF([], project="heat")
    from heat.common import context, messaging
    from heat.rpc import client as rpc_client

    messaging.setup(spec["transport_url"])
    engine = rpc_client.EngineClient()
    def ctxt():
        """A request's context: each request has its own request id, as heat-api's."""
        return context.RequestContext(username="admin", user_id="admin",
                                      project_id="admin", is_admin=True, roles=["admin"])

    results = {}

    def call(method, *args, **kwargs):
        try:
            answer = getattr(engine, method)(ctxt(), *args, **kwargs)
        except Exception as exc:  # the answer the test checks
            results[method] = {"error": type(exc).__name__.removesuffix("_Remote"),
                               "message": str(exc).split("\n")[0]}
            return None
        results[method] = {"answer": answer}
        return answer

    def wait(stack, timeout=60.0):
        deadline = time.monotonic() + timeout
        while True:
            shown = engine.show_stack(ctxt(), stack, resolve_outputs=False)[0]
            if not shown["stack_status"].endswith("IN_PROGRESS") or time.monotonic() > deadline:
                return shown["stack_status"]
            time.sleep(0.2)

    # -- the catalog ----------------------------------------------------------------------
    call("get_revision")
    call("authenticated_to_backend")
    call("list_template_versions")
    call("list_template_functions", f"heat_template_version.{VERSION}")
    call("list_resource_types")
    call("resource_schema", "OS::Heat::TestResource")
    call("generate_template", "OS::Heat::TestResource")
    call("validate_template", TEMPLATE)
    call("list_services")
    # -- a stack ----------------------------------------------------------------------------
    name = f"methods-{uuid.uuid4().hex[:6]}"
    call("preview_stack", name, TEMPLATE, {}, {}, {})
    identity = call("create_stack", name, TEMPLATE, {}, {}, {"timeout_mins": 5})
    wait(identity)
    call("identify_stack", name)
    call("show_stack", identity)
    call("list_stacks")
    call("count_stacks")
    call("get_template", identity)
    call("get_environment", identity)
    call("get_files", identity)
    call("list_outputs", identity)
    call("show_output", identity, "greeting")
    call("list_events", identity)
    call("list_stack_resources", identity)
    source = call("describe_stack_resource", identity, "source")
    call("describe_stack_resources", identity, None)
    call("find_physical_resource", (source or {}).get("physical_resource_id", ""))
    call("resource_signal", identity, "handle", {"status": "SUCCESS", "id": "1"}, True)
    call("resource_mark_unhealthy", identity, "source", True, "looked bad")
    call("preview_update_stack", identity, TEMPLATE, {"parameters": {"greeting": "bye"}}, {},
         {})
    call("update_stack", identity, TEMPLATE, {"parameters": {"greeting": "bye"}}, {}, {})
    wait(identity)
    call("stack_check", identity)
    wait(identity)
    call("stack_suspend", identity)
    wait(identity)
    call("stack_resume", identity)
    wait(identity)
    snapshot = call("stack_snapshot", identity, "first") or {}
    wait(identity)
    call("show_snapshot", identity, snapshot.get("id"))
    call("stack_list_snapshots", identity)
    call("stack_restore", identity, snapshot.get("id"))
    wait(identity)
    call("delete_snapshot", identity, snapshot.get("id"))
    call("export_stack", identity)
    call("migrate_convergence_1", identity["stack_id"])
    # -- an update cancelled ------------------------------------------------------------------
    slow = engine.create_stack(ctxt(), f"slow-{uuid.uuid4().hex[:6]}", SLOW, {}, {}, {})
    wait(slow)
    changed = {**SLOW, "resources": {"slow": {**SLOW["resources"]["slow"], "properties": {
        **SLOW["resources"]["slow"]["properties"], "value": "w"}}}}
    engine.update_stack(ctxt(), slow, changed, {}, {}, {})
    call("stack_cancel_update", slow, cancel_with_rollback=True)
    wait(slow)
    engine.delete_stack(ctxt(), slow)
    # -- software configs and deployments --------------------------------------------------
    config = call("create_software_config", "script", "a-config", "#!/bin/sh\necho hi\n") or {}
    call("show_software_config", config.get("id"))
    call("list_software_configs")
    server = str(uuid.uuid4())
    deployment = call("create_software_deployment", server, config_id=config.get("id"),
                      action="CREATE", status="IN_PROGRESS") or {}
    call("show_software_deployment", deployment.get("id"))
    call("list_software_deployments", server_id=server)
    call("metadata_software_deployments", server)
    call("update_software_deployment", deployment.get("id"), status_reason="still going")
    call("signal_software_deployment", deployment.get("id"),
         {"deploy_status_code": 0, "deploy_stdout": "ok"})
    call("check_software_deployment", deployment.get("id"), 10)
    call("delete_software_deployment", deployment.get("id"))
    call("delete_software_config", config.get("id"))
    # -- the end of the stack ---------------------------------------------------------------
    call("delete_stack", identity)
    wait(identity)
    gone = engine.create_stack(ctxt(), f"gone-{uuid.uuid4().hex[:6]}", TEMPLATE, {}, {}, {})
    wait(gone)
    call("abandon_stack", gone)

    for method in spec["methods"]:
        results.setdefault(method, {"error": "NotCalled"})
    print(json.dumps(results, default=str))


if __name__ == "__main__":
    main()
