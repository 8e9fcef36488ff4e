"""The API's JSON bodies (orjson, as Starlette would write them) and the serving
process's garbage collector (hotplate.heap)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from starlette.responses import JSONResponse as StarletteJSONResponse

from hotplate.api.responses import JSONResponse

BODIES: list[Any] = [
    None,
    {"stack": {"id": "5f1c", "links": [{"href": "http://h:8004/v1/p/stacks/w%C3%A9b/5f1c",
                                        "rel": "self"}],
               "stack_name": "wéb ☃", "tags": None, "timeout_mins": 60,
               "disable_rollback": True, "parameters": {"OS::stack_id": "5f1c"},
               "stack_status_reason": "line\nbreak \"quoted\" \\ tab\t \u0001 </script>"}},
    {"resources": [{"required_by": [], "creation_time": "2026-12-06T17:40:01Z"}] * 3},
    [1, -2, 2**63, "x"],
]


@pytest.mark.parametrize("body", BODIES)
def test_bodies_are_the_bytes_starlette_writes(body: Any) -> None:
    assert JSONResponse(body).body == StarletteJSONResponse(body).body


@pytest.mark.parametrize("body", [{"a": 0.1 + 0.2, "b": 1e16, "c": -0.0}, [2.5, 1e-7]])
def test_numbers_read_back_the_same(body: Any) -> None:
    assert json.loads(JSONResponse(body).body) == json.loads(StarletteJSONResponse(body).body)


@pytest.mark.parametrize("body", [{1: "int key"}, {"n": 2**70}, {"k": {None: [True]}}])
def test_what_orjson_writes_otherwise_is_starlettes(body: Any) -> None:
    assert JSONResponse(body).body == StarletteJSONResponse(body).body


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120, check=True)
    return done.stdout.strip()


def test_settle_freezes_the_loaded_heap_and_raises_the_young_threshold() -> None:
    out = _run("""
        import gc
        from hotplate import heap
        before = gc.get_freeze_count()
        gc.set_threshold(700, 10, 10)
        heap.settle()
        print(before, gc.get_freeze_count() > 1000, gc.get_threshold())
        gc.set_threshold(50_000, 5, 5)
        heap.settle()
        print(gc.get_threshold())
    """)
    assert out.splitlines() == ["0 True (10000, 10, 10)", "(50000, 5, 5)"]


def test_a_served_app_settles_its_heap_once_started() -> None:
    out = _run("""
        import gc
        from starlette.testclient import TestClient
        from hotplate.api import EngineRpc, create_app
        from hotplate.rpc.inprocess import InProcessTransport
        transport = InProcessTransport(1)
        app = create_app(EngineRpc(transport))
        print(gc.get_freeze_count() == 0, gc.get_threshold()[0])
        with TestClient(app) as client:
            print(client.get("/versions").status_code, gc.get_freeze_count() > 0,
                  gc.get_threshold()[0])
        transport.stop()
    """)
    assert out.splitlines() == ["True 700", "300 True 10000"]
