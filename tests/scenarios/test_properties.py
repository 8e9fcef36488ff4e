"""Any graph, any delivery order, any duplication: the same end state."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .harness import Harness
from .templates import tmpl


@st.composite
def dags(draw: st.DrawFn) -> dict[str, list[str]]:
    n = draw(st.integers(min_value=1, max_value=12))
    deps: dict[str, list[str]] = {}
    for i in range(n):
        earlier = [f"r{j}" for j in range(i)]
        deps[f"r{i}"] = draw(st.lists(st.sampled_from(earlier), unique=True, max_size=3)
                             if earlier else st.just([]))
    return deps


def template_for(deps: dict[str, list[str]], value: str) -> dict:
    resources = {}
    for name, reqs in deps.items():
        res = {"type": "OS::Heat::TestResource", "properties": {"value": value}}
        if reqs:
            res["depends_on"] = reqs
        resources[name] = res
    return tmpl(resources)


EXAMPLES = int(os.environ.get("HOTPLATE_PROPERTY_EXAMPLES", "20"))
"""Kept small for `make test`; raise it for a longer hunt."""


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(deps=dags(), seed=st.integers(0, 10_000), dup=st.sampled_from([0.0, 0.2, 0.5]))
def test_create_update_delete_each_resource_exactly_once(deps, seed, dup) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        h = Harness(Path(tmp), seed=seed, duplicate_rate=dup)
        sid = h.create("p", template_for(deps, "a"))
        h.run()
        assert h.status(sid) == "CREATE_COMPLETE"
        h.update(sid, template_for(deps, "b"))
        h.run()
        assert h.status(sid) == "UPDATE_COMPLETE"
        h.delete(sid)
        h.run()
        assert h.status(sid) == "DELETE_COMPLETE"
        counts = h.event_counts(sid)
        for name in deps:
            assert counts[(name, "CREATE_COMPLETE")] == 1
            assert counts[(name, "UPDATE_COMPLETE")] == 1
            assert counts[(name, "DELETE_COMPLETE")] == 1
        # Order: nothing is created before what it depends on, nor deleted after it.
        events = [(e["resource_name"], e["resource_action"]) for e in h.events(sid)
                  if e["resource_status"] == "COMPLETE"]
        for name, reqs in deps.items():
            for req in reqs:
                assert events.index((req, "CREATE")) < events.index((name, "CREATE"))
                assert events.index((name, "DELETE")) < events.index((req, "DELETE"))
        assert h.rows(sid) == []
