"""What the browser tests do on the page: log in through the form, open a stack, read the
graph's nodes and edges, run axe-core, and wait (with a deadline) for what the stream
brings."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.ui.conftest import AXE, UiServer

VERSION = "2021-04-16"


def resource(*, wait: float = 0, fail: bool = False, value: Any = "v",
                  depends_on: list[str] | None = None, **props: Any) -> dict[str, Any]:
    """An OS::Heat::TestResource; ``wait`` seconds on each action."""
    properties: dict[str, Any] = {"value": value, **props}
    if wait:
        properties["action_wait_secs"] = {"create": wait, "update": wait, "delete": wait}
    if fail:
        properties["fail"] = True
    resource: dict[str, Any] = {"type": "OS::Heat::TestResource", "properties": properties}
    if depends_on:
        resource["depends_on"] = depends_on
    return resource


def template(resources: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"heat_template_version": VERSION, "resources": resources, **extra}


def login(page: Any, server: UiServer, token: str | None = None) -> None:
    """Sign in with a token through the login form; lands on the stack list."""
    page.goto(f"{server.base}/ui#/login")
    way = page.get_by_label(re.compile(r"^an? (Keystone )?token$"))
    way.or_(page.get_by_label("Token", exact=True)).first.wait_for()
    if way.count():
        way.check()
    page.get_by_label("Token", exact=True).fill(token or server.admin_token)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Stacks").wait_for()


def open_stack(page: Any, server: UiServer, name: str) -> None:
    """From the list, freshly read, as a person would: the stack's link."""
    page.goto(f"{server.base}/ui#/stacks")
    page.reload()
    page.get_by_role("link", name=name, exact=True).click()
    page.get_by_role("heading", name=name, exact=True).wait_for()


def node(page: Any, resource: str) -> Any:
    return page.locator(f'g.node[data-resource="{resource}"]')


def classes(page: Any, resource: str) -> set[str]:
    return set((node(page, resource).first.get_attribute("class") or "").split())


def wait_class(page: Any, resource: str, *wanted: str, timeout: float = 30) -> set[str]:
    """Wait until the node carries every class of ``wanted``; answers its classes."""
    deadline = time.monotonic() + timeout
    while True:
        found = classes(page, resource) if node(page, resource).count() else set()
        if set(wanted) <= found:
            return found
        assert time.monotonic() < deadline, f"{resource}: {sorted(found)} never had {wanted}"
        page.wait_for_timeout(50)


def history(page: Any, key: str) -> list[set[str]]:
    """Every class list the node of ``key`` (stack name/resource name) has had."""
    return [set(cls.split()) for cls, _ in titled_history(page, key)]


def titled_history(page: Any, key: str) -> list[tuple[str, str]]:
    """Every (class list, tooltip) the node of ``key`` has had."""
    raw = page.evaluate("(k) => (window.__hp.history[k] || [])", key)
    return [tuple(entry.split("|", 1)) for entry in raw]  # type: ignore[misc]


def states_seen(page: Any, key: str) -> list[str]:
    """The node's states in the order the page showed them (repeats folded)."""
    seen: list[str] = []
    for cls in history(page, key):
        for c in cls:
            if c.startswith("state-") and "_" in c and (not seen or seen[-1] != c[6:]):
                seen.append(c[6:])
    return seen


def wait_seen(page: Any, key: str, state: str, timeout: float = 30) -> list[str]:
    """Wait until the node of ``key`` has shown ``state`` (now or before); answers the
    states it showed."""
    deadline = time.monotonic() + timeout
    while True:
        seen = states_seen(page, key)
        if state in seen:
            return seen
        assert time.monotonic() < deadline, f"{key} showed {seen}, never {state}"
        page.wait_for_timeout(50)


def wait_seen_class(page: Any, key: str, wanted: str, timeout: float = 30) -> None:
    """Wait until the node of ``key`` has carried the class ``wanted`` (now or before)."""
    deadline = time.monotonic() + timeout
    while not any(wanted in cls for cls in history(page, key)):
        assert time.monotonic() < deadline, f"{key} never had {wanted}: {history(page, key)}"
        page.wait_for_timeout(50)


def edges(page: Any) -> set[tuple[str, str]]:
    pairs = page.eval_on_selector_all(
        "path.edge", "els => els.map(e => [e.dataset.from, e.dataset.to])")
    return {(a, b) for a, b in pairs}


def stack_status(page: Any) -> str:
    found = page.locator(".stack-status")
    return found.get_attribute("data-status") if found.count() else ""


def wait_stack_status(page: Any, wanted: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while stack_status(page) != wanted:
        assert time.monotonic() < deadline, f"stack status {stack_status(page)!r}, not {wanted}"
        page.wait_for_timeout(100)


def wait_for(check: Callable[[], bool], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.1)


def no_csp_violation(page: Any) -> None:
    assert page.evaluate("window.__hp.violations") == []


def axe_clean(page: Any, where: str) -> None:
    """axe-core finds no serious or critical issue on the page as it stands."""
    if not AXE.exists():
        pytest.skip(f"axe-core is not installed ({AXE}; `make ui` installs it)")
    violations = page.evaluate(
        """async () => {
             const r = await axe.run(document, {resultTypes: ["violations"]});
             return r.violations
               .filter(v => v.impact === "serious" || v.impact === "critical")
               .map(v => ({id: v.id, impact: v.impact, help: v.help,
                           nodes: v.nodes.slice(0, 3).map(n => n.target.join(" "))}));
           }""")
    assert violations == [], f"axe on the {where} page: {violations}"


def wait_stack(hc: Any, name: str, *, timeout: float = 60) -> Any:
    """Poll through the API until the stack leaves IN_PROGRESS."""
    deadline = time.monotonic() + timeout
    while True:
        found = hc.stacks.get(name)
        if not found.stack_status.endswith("_IN_PROGRESS"):
            return found
        assert time.monotonic() < deadline, f"{name} still {found.stack_status}"
        time.sleep(0.1)
