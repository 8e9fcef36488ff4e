"""Stack check through python-heatclient: it goes on past a failed resource, as Heat's."""

from __future__ import annotations

import time
from typing import Any

from tests.api.helpers import wait_status

FAILED = """
HeatTemplateFormatVersion: '2012-12-12'
Resources:
  check_succeed:
    Type: OS::Heat::TestResource
  check_failed:
    Type: OS::Heat::TestResource
    Properties:
      fail: true
  check_deps_failed:
    Type: OS::Heat::TestResource
    DependsOn: check_failed
  check_deps_deps_failed:
    Type: OS::Heat::TestResource
    DependsOn: check_deps_failed
"""


def test_check_reports_every_failure_and_skips_what_depends_on_them(hc: Any) -> None:
    created = hc.stacks.create(stack_name="check-fail", template=FAILED)
    stack_id = created["stack"]["id"]
    assert wait_status(hc, stack_id, timeout=60).stack_status == "CREATE_FAILED"
    hc.actions.check(stack_id)
    deadline = time.monotonic() + 30
    while not hc.stacks.get(stack_id).stack_status.startswith("CHECK_") or (
            hc.stacks.get(stack_id).stack_status == "CHECK_IN_PROGRESS"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    stack = hc.stacks.get(stack_id)
    assert stack.stack_status == "CHECK_FAILED"
    assert stack.stack_status_reason == (
        "Resource CHECK failed: check_failed: Exception: resources.check_failed: "
        "Resource not created")
    states = {r.resource_name: r.resource_status for r in hc.resources.list(stack_id)}
    assert states == {"check_succeed": "CHECK_COMPLETE", "check_failed": "CHECK_FAILED",
                      "check_deps_failed": "INIT_COMPLETE",
                      "check_deps_deps_failed": "INIT_COMPLETE"}
