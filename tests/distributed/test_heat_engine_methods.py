"""Every engine-topic method of Heat 27.0.1's EngineService, called on a hotplate engine
with Heat's own RPC client (``heat.rpc.client.EngineClient``, in heat-api's virtualenv)
over RabbitMQ, as heat-api, heat-api-cfn and heat-manage call them.

``heat_engine_methods.txt`` is the list, taken from Heat's source; each method must be
one the engine serves and must answer its call as Heat's engine would (the checks
below), so a method the engine only allows but does not do fails here.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hotplate.engine.service.endpoint import EngineService
from tests.distributed import heat_api
from tests.distributed.databases import fresh_postgres_database
from tests.distributed.stock_heat import heat_venv_or_skip, running
from tests.real_services import POSTGRES, url_or_skip

pytestmark = pytest.mark.timeout(600)

METHODS_FILE = Path(__file__).with_name("heat_engine_methods.txt")
CALLS = Path(__file__).with_name("heat_engine_calls.py")
METHODS = [line.strip() for line in METHODS_FILE.read_text().splitlines()
           if line.strip() and not line.startswith("#")]


def _ok(answer: Any) -> bool:
    return True


CHECKS: dict[str, Callable[[Any], bool]] = {
    "get_revision": lambda a: isinstance(a, str) and bool(a),
    "authenticated_to_backend": lambda a: a is True,
    "list_template_versions": lambda a: any(
        v["version"] == "heat_template_version.2021-04-16" for v in a),
    "list_template_functions": lambda a: any(f["functions"] == "get_attr" for f in a),
    "list_resource_types": lambda a: "OS::Heat::TestResource" in a,
    "resource_schema": lambda a: a["resource_type"] == "OS::Heat::TestResource",
    "generate_template": lambda a: "Resources" in a,
    "validate_template": lambda a: "greeting" in a["Parameters"],
    "list_services": lambda a: isinstance(a, list) and bool(a),
    "preview_stack": lambda a: a["stack_name"].startswith("methods-"),
    "create_stack": lambda a: bool(a["stack_id"]),
    "identify_stack": lambda a: a["stack_name"].startswith("methods-"),
    "show_stack": lambda a: (a[0]["stack_action"], a[0]["stack_status"]) == (
        "CREATE", "COMPLETE"),
    "list_stacks": lambda a: any(s["stack_name"].startswith("methods-") for s in a),
    "count_stacks": lambda a: isinstance(a, int) and a >= 1,
    "get_template": lambda a: "source" in a["resources"],
    "get_environment": lambda a: "parameters" in a,
    "get_files": lambda a: a == {},
    "list_outputs": lambda a: [o["output_key"] for o in a] == ["greeting"],
    "show_output": lambda a: a["output_value"] == "hello",
    "list_events": lambda a: bool(a),
    "list_stack_resources": lambda a: {r["resource_name"] for r in a} == {"source", "handle"},
    "describe_stack_resource": lambda a: a["resource_name"] == "source",
    "describe_stack_resources": lambda a: {r["resource_name"] for r in a} == {
        "source", "handle"},
    "find_physical_resource": lambda a: a["path"] == "/resources/source",
    "resource_signal": lambda a: isinstance(a, dict),
    "resource_mark_unhealthy": lambda a: a is None,
    # marked unhealthy just before: Heat replaces a resource whose check failed
    "preview_update_stack": lambda a: [r["resource_name"] for r in a["replaced"]] == [
        "source"],
    "update_stack": lambda a: bool(a["stack_id"]),
    "stack_check": lambda a: a is None,
    "stack_suspend": lambda a: a is None,
    "stack_resume": lambda a: a is None,
    "stack_snapshot": lambda a: (a["name"], a["status"]) == ("first", "IN_PROGRESS"),
    "show_snapshot": lambda a: a["status"] == "COMPLETE",
    "stack_list_snapshots": lambda a: [s["name"] for s in a] == ["first"],
    "stack_restore": lambda a: a is None,
    "delete_snapshot": lambda a: a is None,
    "export_stack": lambda a: "source" in a["resources"],
    "migrate_convergence_1": lambda a: a is None,  # already convergence: nothing to do
    "stack_cancel_update": lambda a: a is None,
    "create_software_config": lambda a: a["name"] == "a-config",
    "show_software_config": lambda a: a["group"] == "script",
    "list_software_configs": lambda a: any(c["name"] == "a-config" for c in a),
    "create_software_deployment": lambda a: a["status"] == "IN_PROGRESS",
    "show_software_deployment": lambda a: a["action"] == "CREATE",
    "list_software_deployments": lambda a: len(a) == 1,
    "metadata_software_deployments": lambda a: isinstance(a, list),
    "update_software_deployment": lambda a: a["status_reason"] == "still going",
    "signal_software_deployment": _ok,
    "check_software_deployment": lambda a: a["status"] == "COMPLETE",
    "delete_software_deployment": lambda a: a is None,
    "delete_software_config": lambda a: a is None,
    "delete_stack": lambda a: a is None,
    "abandon_stack": lambda a: "source" in a["resources"],
}


def test_the_list_is_what_the_engine_serves() -> None:
    assert len(METHODS) == len(set(METHODS)) >= 50
    assert sorted(set(METHODS) - EngineService.ALLOWED) == []
    assert sorted(set(METHODS) - set(CHECKS)) == []


@pytest.fixture(scope="module")
def answers(broker_url: str, tmp_path_factory: pytest.TempPathFactory,
            request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    venv = heat_venv_or_skip(request)
    db_url = fresh_postgres_database(url_or_skip(POSTGRES), "hotplate_heat_methods")
    saved = os.environ.get("HOTPLATE_ENABLE_STACK_ABANDON")
    os.environ["HOTPLATE_ENABLE_STACK_ABANDON"] = "true"  # the engine's, for abandon
    try:
        with running(venv, broker_url, db_url, tmp_path_factory.mktemp("heat-methods")):
            done = subprocess.run(
                [str(heat_api.heat_python(venv)), str(CALLS)],
                input=json.dumps({"transport_url": broker_url, "methods": METHODS}),
                capture_output=True, text=True, timeout=500, check=False)
    finally:
        if saved is None:
            os.environ.pop("HOTPLATE_ENABLE_STACK_ABANDON", None)
        else:
            os.environ["HOTPLATE_ENABLE_STACK_ABANDON"] = saved
    assert done.returncode == 0, done.stderr[-4000:]
    yield json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("method", METHODS)
def test_each_method_answers_heats_client(answers: dict[str, Any], method: str) -> None:
    result = answers[method]
    assert "error" not in result, result
    assert CHECKS[method](result["answer"]), json.dumps(result)[:4000]
