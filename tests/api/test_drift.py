"""``GET .../drift`` (hotplate's own route) and ``hotplate stack drift``, with no cloud:
a stack of Heat's own types is "not checked" everywhere, an unknown stack is a 404,
and an update's ``converge`` flag is taken as Heat takes it."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import httpx

from tests.api.conftest import Api
from tests.api.helpers import create_complete, wait_status

NATIVE = """heat_template_version: 2021-04-16
resources:
  secret: {type: OS::Heat::RandomString, properties: {length: 8}}
  value: {type: OS::Heat::Value, properties: {value: {get_resource: secret}}}
  test: {type: OS::Heat::TestResource, properties: {value: a}}
"""


def test_native_stack_is_not_checked(api: Api, hc: Any) -> None:
    stack_id = create_complete(hc, NATIVE, name="drift-native")
    with httpx.Client(timeout=30) as http:
        shown = http.get(f"{api.endpoint}/stacks/drift-native/{stack_id}/drift")
        redirected = http.get(f"{api.endpoint}/stacks/drift-native/drift")
    assert shown.status_code == 200, shown.text
    report = shown.json()
    assert report["differences"] == []
    assert {r["resource_name"]: r["drift_status"] for r in report["resources"]} == {
        "secret": "NOT_CHECKED", "test": "NOT_CHECKED", "value": "NOT_CHECKED"}
    reasons = {r["resource_name"]: r["drift_status_reason"] for r in report["resources"]}
    assert reasons["secret"] == "OS::Heat::RandomString has no live state"
    assert redirected.status_code == 302
    assert redirected.headers["location"].endswith(f"/stacks/drift-native/{stack_id}/drift")


def test_unknown_stack_is_404(api: Api) -> None:
    with httpx.Client(timeout=30) as http:
        answer = http.get(f"{api.endpoint}/stacks/nowhere/"
                          "9b2c3a1e-0000-4000-8000-000000000000/drift")
    assert answer.status_code == 404
    assert answer.json()["error"]["type"] == "EntityNotFound"
    assert "nowhere" in answer.json()["error"]["message"]


def _cli(api: Api, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hotplate.cli.main", "stack", "drift", *args,
                           "--url", api.endpoint, "--token", "noauth"],
                          capture_output=True, text=True, timeout=60)


def test_cli_prints_a_table_or_the_document(api: Api, hc: Any) -> None:
    create_complete(hc, NATIVE, name="drift-cli")
    table = _cli(api, "drift-cli")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert "| Resource" in lines[1] and "Expected" in lines[1]
    assert sum("NOT_CHECKED" in line for line in lines) == 3
    document = _cli(api, "drift-cli", "-f", "json")
    assert document.returncode == 0, document.stderr
    assert json.loads(document.stdout)["differences"] == []
    missing = _cli(api, "no-such-stack")
    assert missing.returncode == 1
    assert "no-such-stack" in missing.stderr


def test_update_with_converge(api: Api, hc: Any) -> None:
    """Heat's flag: a boolean, or its text; anything else is refused as Heat refuses it.
    A stack whose types have no live state updates as without it."""
    stack_id = create_complete(hc, NATIVE, name="drift-converge")
    hc.stacks.update(stack_id, existing=True, converge=True)
    assert wait_status(hc, stack_id).stack_status == "UPDATE_COMPLETE"
    with httpx.Client(timeout=30) as http:
        url = f"{api.endpoint}/stacks/drift-converge/{stack_id}"
        refused = http.patch(url, json={"converge": "maybe"})
        taken = http.patch(url, json={"converge": "true"})
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == (
        'Unrecognized value "maybe" for "converge", acceptable values are: true, false.')
    assert taken.status_code == 202, taken.text
    assert wait_status(hc, stack_id).stack_status == "UPDATE_COMPLETE"
