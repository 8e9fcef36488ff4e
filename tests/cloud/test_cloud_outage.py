"""Nova's API away in the middle of a create: the stack waits and completes.

A stack of two servers, the second held back by an 8-second resource so that its
create (its flavor looked up, the server made) falls in the outage, while the first
one's checks do. nova-api (not nova-compute, whose fake servers live in its memory)
is stopped for 20 seconds, well past the client's own retries, under the cloud's
lock, and started again even if the test fails. The stack then completes with one
server per resource, and its delete leaves nothing. The minute-long outage of any
of the cloud's APIs is ``benchmarks/cloud_outage.py`` (too slow for every run).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hotplate.app import Engine
from tests.cloud.clients import token_context
from tests.cloud.engine import engine_on
from tests.cloud.leaks import cloud_leaks  # noqa: F401  (a fixture)
from tests.cloud.locate import Cloud
from tests.cloud.outage import api_away, has_api

pytestmark = pytest.mark.usefixtures("cloud_leaks")
LEAK_PREFIX = "co-"
OUTAGE_SECS = 20


def _server(name: str) -> dict[str, Any]:
    return {"type": "OS::Nova::Server",
            "properties": {"name": name, "image": "cirros-fake", "flavor": "m1.tiny",
                           "user_data_format": "RAW",
                           "networks": [{"allocate_network": "none"}]}}


def _template(prefix: str) -> dict[str, Any]:
    second = _server(f"{prefix}-2")
    second["depends_on"] = ["slow"]
    return {"heat_template_version": "2021-04-16", "resources": {
        "first": _server(f"{prefix}-1"),
        "slow": {"type": "OS::Heat::TestResource", "properties": {"wait_secs": 8}},
        "second": second,
    }}


@pytest.fixture
def engine(cloud: Cloud, tmp_path: Path) -> Iterator[Engine]:
    if not has_api("nova-api"):
        pytest.skip("nova-api can be stopped only on the project's own cloud (make cloud)")
    with engine_on(tmp_path, cloud.region, trustee_of=cloud.auth_url) as running:
        yield running


def _state(engine: Engine, ctxt: Any, identity: Any) -> tuple[str, str, str]:
    [shown] = engine.service.show_stack(ctxt, identity)
    return (str(shown["stack_action"]), str(shown["stack_status"]),
            str(shown["stack_status_reason"]))


def _settled(engine: Engine, ctxt: Any, identity: Any, timeout: float) -> tuple[str, str, str]:
    deadline = time.monotonic() + timeout
    while (state := _state(engine, ctxt, identity))[1] == "IN_PROGRESS":
        assert time.monotonic() < deadline, f"still {state} after {timeout} s"
        time.sleep(0.25)
    return state


def _why(engine: Engine, ctxt: Any, identity: Any) -> list[tuple[str, str, str]]:
    """Each resource's state and reason, for a failure's message."""
    return [(r["resource_name"], f'{r["resource_action"]}_{r["resource_status"]}',
             r["resource_status_reason"])
            for r in engine.service.list_stack_resources(ctxt, identity)]


def _servers(conn: Any, prefix: str) -> dict[str, str]:
    return {s.name: s.id for s in conn.compute.servers(name=f"^{prefix}-")}


def test_a_create_waits_out_nova_api_away(cloud: Cloud, user_conn: Any,
                                          engine: Engine) -> None:
    prefix = f"{LEAK_PREFIX}{uuid.uuid4().hex[:8]}"
    ctxt = token_context(cloud, user_conn)
    identity = engine.service.create_stack(ctxt, prefix, _template(prefix), {}, {},
                                           {"timeout_mins": 15})
    try:
        with api_away("nova-api"):
            away_until = time.monotonic() + OUTAGE_SECS
            while time.monotonic() < away_until:
                state = _state(engine, ctxt, identity)
                assert state[:2] == ("CREATE", "IN_PROGRESS"), _why(engine, ctxt, identity)
                time.sleep(2.0)
        assert _settled(engine, ctxt, identity, 300) == (
            "CREATE", "COMPLETE", "Stack CREATE completed successfully")
        rows = {r["resource_name"]: r["physical_resource_id"]
                for r in engine.service.list_stack_resources(ctxt, identity)}
        made = _servers(user_conn, prefix)
        assert made == {f"{prefix}-1": rows["first"], f"{prefix}-2": rows["second"]}
    finally:
        engine.service.delete_stack(ctxt, identity)
        deadline = time.monotonic() + 300
        while engine.service.show_stack(ctxt, identity)[0]["stack_status"] == "IN_PROGRESS":
            assert time.monotonic() < deadline
            time.sleep(0.25)
    assert _state(engine, ctxt, identity)[:2] == ("DELETE", "COMPLETE")
    assert _servers(user_conn, prefix) == {}
