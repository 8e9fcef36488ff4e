"""How progress reads: event log lines with nested paths, the live view's rows and
times, when a wait counts as failed, and how error answers become one message."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from typing import Any

import httpx
from rich.console import Console

from hotplate.cli.remote.client import api_error
from hotplate.cli.remote.events_text import EventNames, log_lines
from hotplate.cli.remote.live_view import LiveView, ResourceTimes, tree_order
from hotplate.cli.remote.waiting import judge

BASE = "http://h:8004/v1/admin/stacks"


def _event(stack: str, stack_id: str, resource: str, status: str, reason: str,
           physical: str = "", when: str = "2026-01-02T03:04:05Z") -> dict[str, Any]:
    return {"id": f"e-{resource}-{status}", "event_time": when, "resource_name": resource,
            "resource_status": status, "resource_status_reason": reason,
            "physical_resource_id": physical,
            "links": [{"rel": "stack", "href": f"{BASE}/{stack}/{stack_id}"}]}


def _resource(stack_id: str, name: str, status: str, nested: str = "",
              reason: str = "") -> dict[str, Any]:
    links = [{"rel": "stack", "href": f"{BASE}/s/{stack_id}"}]
    if nested:
        links.append({"rel": "nested", "href": f"{BASE}/n/{nested}"})
    return {"resource_name": name, "resource_type": "OS::Heat::TestResource",
            "resource_status": status, "resource_status_reason": reason, "links": links}


def test_event_lines_name_resources_by_their_path_from_the_top_stack() -> None:
    events = [
        _event("web", "W", "web", "CREATE_IN_PROGRESS", "Stack CREATE started", "W"),
        _event("web", "W", "app", "CREATE_IN_PROGRESS", "state changed", "N"),
        _event("web-app-x", "N", "web-app-x", "CREATE_IN_PROGRESS", "Stack CREATE started",
               "N"),
        _event("web-app-x", "N", "server", "CREATE_FAILED", "boom"),
    ]
    assert log_lines(events).splitlines() == [
        "2026-01-02 03:04:05Z e-web-CREATE_IN_PROGRESS [web]: CREATE_IN_PROGRESS  "
        "Stack CREATE started",
        "2026-01-02 03:04:05Z e-app-CREATE_IN_PROGRESS [web.app]: CREATE_IN_PROGRESS  "
        "state changed",
        "2026-01-02 03:04:05Z e-web-app-x-CREATE_IN_PROGRESS [web.app]: CREATE_IN_PROGRESS  "
        "Stack CREATE started",
        "2026-01-02 03:04:05Z e-server-CREATE_FAILED [web.app.server]: CREATE_FAILED  boom",
    ]
    alone = EventNames()
    assert alone.name(events[3]) == "server", "without the stack's events, the bare name"


def test_nested_resources_sit_under_their_owner() -> None:
    resources = [_resource("N", "server", "CREATE_COMPLETE"),
                 _resource("W", "db", "CREATE_COMPLETE"),
                 _resource("W", "app", "CREATE_IN_PROGRESS", nested="N"),
                 _resource("Q", "orphan", "CREATE_COMPLETE")]
    assert [(depth, r["resource_name"]) for depth, r in tree_order(resources, "W")] == [
        (0, "db"), (0, "app"), (1, "server"), (1, "orphan")]


def test_resource_times_run_from_start_to_end() -> None:
    times = ResourceTimes()
    times.add(_event("web", "W", "db", "CREATE_IN_PROGRESS", "", when="2026-01-02T03:04:05Z"))
    times.add(_event("web", "W", "db", "CREATE_COMPLETE", "", when="2026-01-02T03:04:09Z"))
    times.add(_event("web", "W", "app", "UPDATE_IN_PROGRESS", "", when="2026-01-02T03:03:00Z"))
    now = datetime(2026, 1, 2, 3, 4, 30, tzinfo=UTC)
    assert times.elapsed(_resource("W", "db", "CREATE_COMPLETE"), now) == "4s"
    assert times.elapsed(_resource("W", "app", "UPDATE_IN_PROGRESS"), now) == "1m30s"
    assert times.elapsed(_resource("W", "idle", "CREATE_COMPLETE"), now) == ""


def test_the_live_view_shows_each_resource_and_failures_with_their_reason() -> None:
    view = LiveView(io.StringIO(), "web")
    view.add_events([_event("web-app-x", "N", "server", "CREATE_IN_PROGRESS", "state changed",
                            when="2026-01-02T03:04:05Z")])
    view.show({"id": "W", "stack_status": "CREATE_FAILED",
               "stack_status_reason": "Resource CREATE failed: boom"},
              [_resource("W", "app", "CREATE_IN_PROGRESS", nested="N"),
               _resource("N", "server", "CREATE_FAILED", reason="boom")])
    console = Console(file=io.StringIO(), width=100, record=True)
    console.print(view.render(now=datetime(2026, 1, 2, 3, 4, 8, tzinfo=UTC)))
    lines = [line.rstrip() for line in console.export_text().splitlines()]
    assert lines[0].startswith("Stack web  CREATE_FAILED  ")
    assert lines[1] == "Resource CREATE failed: boom"
    assert any(line.split() == ["app", "OS::Heat::TestResource", "CREATE_IN_PROGRESS"]
               for line in lines)
    row = next(line for line in lines if "server" in line and "OS::" in line)
    assert row.startswith("   server "), "nested one level"
    assert row.split()[1:] == ["OS::Heat::TestResource", "CREATE_FAILED", "3s", "boom"]
    assert "[server]: CREATE_IN_PROGRESS  state changed" in lines[-1]


def test_a_wait_fails_on_failed_and_on_rolled_back_actions() -> None:
    assert not judge("CREATE_COMPLETE", "", "CREATE").failed
    assert judge("CREATE_FAILED", "boom", "CREATE").failed
    assert judge("ROLLBACK_COMPLETE", "", "CREATE").failed
    assert judge("ROLLBACK_COMPLETE", "", "UPDATE").failed
    assert not judge("ROLLBACK_COMPLETE", "", None).failed, "a cancel that rolled back"
    assert judge("UPDATE_FAILED", "Stack UPDATE cancelled", None).failed
    assert not judge("DELETE_COMPLETE", "", "DELETE").failed


def test_error_answers_become_one_message() -> None:
    fault = {"code": 409, "title": "Conflict", "explanation": "There was a conflict...",
             "error": {"type": "StackExists", "message": "The Stack (web) already exists.",
                       "traceback": None}}
    error = api_error(httpx.Response(409, json=fault), "POST /stacks")
    assert (error.status, error.message, error.error_type) == (
        409, "The Stack (web) already exists.", "StackExists")
    no_route = api_error(httpx.Response(404, json={
        "error": {"type": "HTTPNotFound", "message": "The resource could not be found."}}),
        "GET /stacks/web/1/files")
    assert no_route.message == "The resource could not be found: GET /stacks/web/1/files"
    assert not no_route.missing
    unexpected = api_error(httpx.Response(500, json={
        "code": 500, "explanation": "The server has either erred.",
        "error": {"type": "KeyError", "traceback": None}}))
    assert unexpected.message == "The server has either erred."
    proxy = api_error(httpx.Response(502, text="<html>Bad Gateway</html>\n<p>nginx"))
    assert proxy.message == "<html>Bad Gateway</html>"
    empty = api_error(httpx.Response(503))
    assert empty.message == "HTTP 503 Service Unavailable"
