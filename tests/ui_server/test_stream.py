"""The live stream of a stack's events, against an embedded engine: a create's events
arrive while it runs, in order and coalesced; many pages share one watcher; a page
resumes from its Last-Event-ID; the watcher stops with its last page."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import Counter
from typing import Any

import httpx
import pytest

from hotplate.ui.event_stream import BATCH_SECS, POLL_SECS
from tests.ui_server.conftest import InProcess, wait_templates
from tests.ui_server.sse import Stream

pytestmark = pytest.mark.timeout(120)


class CountingRpc:
    """The app's EngineRpc, counting the calls by method."""

    def __init__(self, rpc: Any) -> None:
        self._rpc = rpc
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()

    def call(self, ctxt: Any, method: str, **kwargs: Any) -> Any:
        with self._lock:
            self.calls[method] += 1
        return self._rpc.call(ctxt, method, **kwargs)


def session(served: InProcess) -> tuple[httpx.Client, dict[str, str]]:
    client = served.client()
    body = client.get("/ui/session").json()
    return client, {"X-CSRF-Token": body["csrf_token"]}


def create(served: InProcess, name: str, template: dict[str, Any],
           files: dict[str, str] | None = None) -> str:
    client, csrf = session(served)
    made = client.post("/v1/admin/stacks", headers=csrf, json={
        "stack_name": name, "template": template, "files": files or {}})
    assert made.status_code == 201, made.text
    return str(made.json()["stack"]["id"])


def listed_events(served: InProcess, name: str, stack_id: str) -> list[dict[str, Any]]:
    client, _ = session(served)
    answer = client.get(f"/v1/admin/stacks/{name}/{stack_id}/events",
                        params={"sort_dir": "asc", "limit": 1000})
    assert answer.status_code == 200
    return list(answer.json()["events"])


def stream(served: InProcess, stack_id: str, last: str | None = None) -> Stream:
    client, _ = session(served)
    headers = {"Last-Event-ID": last} if last else {}
    opened = Stream(client, f"/ui/stream/admin/stacks/{stack_id}", headers).start()
    assert opened.status == 200
    return opened


def wait_until(check: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_creates_events_arrive_live_in_order_and_coalesced(in_process: InProcess) -> None:
    template = wait_templates(4, 0.6)
    for i in range(20):  # a burst at the start, to be coalesced
        template["resources"][f"burst{i}"] = {"type": "OS::Heat::TestResource"}
    stack_id = create(in_process, "live", template)
    before = listed_events(in_process, "live", stack_id)
    page = stream(in_process, stack_id, before[-1]["id"] if before else None)
    try:
        page.wait_for(lambda: page.stack_status() == "CREATE_COMPLETE")
        finished = page.of("stack")[-1].at
        page.wait_for(lambda: len(before) + len(page.events()) >= len(
            listed_events(in_process, "live", stack_id)))
    finally:
        page.stop()
    every = listed_events(in_process, "live", stack_id)
    assert [e["id"] for e in before + page.events()] == [e["id"] for e in every]
    for streamed, listed in zip(page.events(), every[len(before):], strict=True):
        shown = {k: v for k, v in listed.items() if k not in ("links", "logical_resource_id")}
        assert streamed == {**shown, "stack_name": "live", "stack_id": stack_id}
    batches = page.of("events")
    assert len(batches) < len(page.events())  # coalesced: batches hold several events
    assert all(b.id == b.data[-1]["id"] for b in batches)
    gaps = [later.at - earlier.at for earlier, later in itertools.pairwise(batches)]
    assert all(gap >= BATCH_SECS - 0.03 for gap in gaps), gaps
    assert finished - batches[0].at > 1.0  # the first events came while it ran
    in_progress = [f for f in page.of("stack") if f.data["stack_status"] == "CREATE_IN_PROGRESS"]
    assert in_progress and in_progress[0].at < batches[0].at + 1


def test_five_pages_cost_the_engine_what_one_costs(in_process: InProcess) -> None:
    counting = CountingRpc(in_process.app.state.rpc)
    in_process.app.state.rpc = counting
    stack_id = create(in_process, "shared", wait_templates(8, 0.5))
    hub = in_process.app.state.ui_streams
    first = stream(in_process, stack_id)
    pages = [first]
    try:
        window = 1.5
        start = counting.calls["list_event_summaries"]
        time.sleep(window)
        alone = counting.calls["list_event_summaries"] - start
        pages += [stream(in_process, stack_id) for _ in range(4)]
        assert hub.watching() == 1
        start = counting.calls["list_event_summaries"]
        time.sleep(window)
        together = counting.calls["list_event_summaries"] - start
        most = window / POLL_SECS + 2  # one watcher's pace, whatever the machine's load
        assert 1 <= alone <= most and 1 <= together <= most, (alone, together)
        for page in pages:
            page.wait_for(lambda p=page: p.stack_status() == "CREATE_COMPLETE")
        last_ids = {page.events()[-1]["id"] for page in pages}
        assert len(last_ids) == 1  # each page got the same events, up to the last
    finally:
        for page in pages:
            page.stop()
    wait_until(lambda: hub.watching() == 0, timeout=10)
    stopped = counting.calls["list_event_summaries"]
    time.sleep(4 * POLL_SECS)
    assert counting.calls["list_event_summaries"] == stopped  # no page, no polling


def test_a_page_resumes_after_its_last_event_id(in_process: InProcess) -> None:
    stack_id = create(in_process, "resume", wait_templates(3, 0.3))
    watching = stream(in_process, stack_id)
    try:
        watching.wait_for(lambda: watching.stack_status() == "CREATE_COMPLETE")
        every = listed_events(in_process, "resume", stack_id)
        ids = [e["id"] for e in every]
        # Older than anything the watcher holds: read from the engine after it.
        old = stream(in_process, stack_id, last=ids[1])
        # One the watcher holds: resumed from its history.
        held = watching.events()[0]["id"]
        recent = stream(in_process, stack_id, last=held)
        try:
            old.wait_for(lambda: bool(old.events()))
            recent.wait_for(lambda: bool(recent.events()))
            assert [e["id"] for e in old.events()] == ids[2:]
            assert [e["id"] for e in recent.events()] == ids[ids.index(held) + 1:]
            assert old.of("events")[0].id == ids[-1]
        finally:
            old.stop()
            recent.stop()
    finally:
        watching.stop()


def test_a_stream_needs_a_stack(in_process: InProcess) -> None:
    stack_id = create(in_process, "guarded", wait_templates(1, 0))
    client, _ = session(in_process)
    missing = client.get("/ui/stream/admin/stacks/00000000-0000-0000-0000-000000000000")
    assert missing.status_code == 404
    assert client.get(f"/ui/stream/admin/stacks/{stack_id}",
                      params={"nested_depth": "x"}).status_code == 400


def test_noauth_changes_by_cookie_need_the_csrf_token(in_process: InProcess) -> None:
    client, csrf = session(in_process)
    body = {"stack_name": "csrf", "template": wait_templates(1, 0)}
    refused = client.post("/v1/admin/stacks", json=body)
    assert refused.status_code == 403
    assert refused.json()["error"]["message"] == "CSRF token missing or wrong"
    assert client.post("/v1/admin/stacks", json=body, headers=csrf).status_code == 201


def test_nested_stacks_events_follow_with_nested_depth(in_process: InProcess) -> None:
    child = wait_templates(2, 0.3)
    template = {"heat_template_version": "2015-10-15", "resources": {
        "first": {"type": "OS::Heat::TestResource", "properties": {"wait_secs": 0.3}},
        "child": {"type": "child.yaml", "depends_on": ["first"]}}}
    stack_id = create(in_process, "parent", template, {"child.yaml": json.dumps(child)})
    # An id the engine does not know: the events API's first page, all of them.
    page = Stream(session(in_process)[0],
                  f"/ui/stream/admin/stacks/{stack_id}?nested_depth=1",
                  {"Last-Event-ID": "unknown"}).start()
    flat = stream(in_process, stack_id)
    try:
        page.wait_for(lambda: page.stack_status() == "CREATE_COMPLETE")
        page.wait_for(lambda: {"r0", "r1"} <= {e["resource_name"] for e in page.events()})
    finally:
        page.stop()
        flat.stop()
    assert page.status == 200
    nested = [e for e in page.events() if e["resource_name"] in ("r0", "r1")]
    assert nested and all(e["stack_name"].startswith("parent-child-") for e in nested)
    [child_id] = {e["stack_id"] for e in nested}
    assert child_id != stack_id
    # The events API's fields a page shows, without its links (sent to every page).
    assert {frozenset(e) for e in page.events()} == {frozenset(
        ("id", "event_time", "resource_name", "resource_status", "resource_status_reason",
         "physical_resource_id", "stack_name", "stack_id"))}
    assert not {"r0", "r1"} & {e["resource_name"] for e in flat.events()}


def test_pages_reloading_at_one_point_of_the_stream_share_one_listing(
        in_process: InProcess) -> None:
    """``/ui/stream/.../resources``: the resources API's listing, made once for the
    pages that reload their graph together (as they do when an action ends);
    409 when no stream follows the stack, so the page reads ``/v1`` instead."""
    counting = CountingRpc(in_process.app.state.rpc)
    in_process.app.state.rpc = counting
    stack_id = create(in_process, "listed", wait_templates(3, 0.1))
    client, _ = session(in_process)
    route = f"/ui/stream/admin/stacks/{stack_id}/resources"
    refused = client.get(route)
    assert refused.status_code == 409, refused.text
    assert "No stream follows this stack" in refused.json()["error"]
    pages = [stream(in_process, stack_id) for _ in range(3)]
    try:
        pages[0].wait_for(lambda: pages[0].stack_status() == "CREATE_COMPLETE")
        time.sleep(2 * POLL_SECS)  # the watcher has read what there is
        before = counting.calls["list_stack_resources"]
        answers: list[httpx.Response] = []
        readers = [threading.Thread(target=lambda: answers.append(client.get(route)))
                   for _ in range(6)]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join()
        made = counting.calls["list_stack_resources"] - before
        assert [a.status_code for a in answers] == [200] * 6
        assert 1 <= made <= 2, made  # one, or two across a poll that saw news
        listed = client.get(f"/v1/admin/stacks/listed/{stack_id}/resources").json()
        assert answers[0].json() == listed
        assert {r["resource_status"] for r in listed["resources"]} == {"CREATE_COMPLETE"}
        assert answers[0].headers["cache-control"] == "no-store"
        deeper = client.get(route, params={"nested_depth": 2})
        assert deeper.status_code == 409  # the stream follows depth 0 only
    finally:
        for page in pages:
            page.stop()
