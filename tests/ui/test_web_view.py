"""The web view in Chromium against a real ``hotplate serve``: the login form, the stack
list, the live graph through create, failure, rollback and delete, a plan shown on the
graph and applied, a nested stack expanded in place, a reader refused apply."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.ui.conftest import UiServer, shot
from tests.ui.pages import (
    axe_clean,
    classes,
    edges,
    login,
    no_csp_violation,
    node,
    open_stack,
    resource,
    states_seen,
    template,
    titled_history,
    wait_class,
    wait_seen,
    wait_seen_class,
    wait_stack,
    wait_stack_status,
)


def test_the_login_form_refuses_a_wrong_token_and_signs_in_with_a_good_one(
        page: Any, ui_server: UiServer) -> None:
    page.goto(f"{ui_server.base}/ui")
    page.get_by_label("Token", exact=True).wait_for()
    # The server's refusal says it takes tokens: the page offers no other way.
    assert page.get_by_label("a Keystone password").count() == 0
    assert page.get_by_label("Password", exact=True).count() == 0
    page.get_by_label("Token", exact=True).fill("not-a-token")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("alert").wait_for()
    assert page.get_by_role("heading", name="Stacks").count() == 0
    shot(page, "login-refused")

    login(page, ui_server)
    cookies = {c["name"]: c for c in page.context.cookies()}
    assert cookies["hotplate_ui"]["httpOnly"]
    assert cookies["hotplate_ui"]["sameSite"] == "Strict"
    assert ui_server.admin_token not in page.url
    no_csp_violation(page)


def test_the_list_shows_filters_and_sorts_stacks(page: Any, ui_server: UiServer) -> None:
    hc = ui_server.heat()
    for name in ("list-alpha", "list-beta"):
        hc.stacks.create(stack_name=name, template=template({"r": resource()}))
        wait_stack(hc, name)
    login(page, ui_server)
    for name in ("list-alpha", "list-beta"):
        row = page.locator(f'tr[data-stack="{name}"]')
        row.wait_for()
        assert row.locator("td.status").get_attribute("data-status") == "CREATE_COMPLETE"
        assert row.locator("td").nth(4).inner_text() == "admin"

    page.get_by_label("Name").fill("list-beta")
    page.locator('tr[data-stack="list-alpha"]').wait_for(state="detached")
    assert page.locator('tr[data-stack="list-beta"]').count() == 1
    page.get_by_label("Name").fill("")
    page.locator('tr[data-stack="list-alpha"]').wait_for()

    page.locator('button[data-sort="stack_name"]').click()  # ascending by name
    page.wait_for_function(
        """() => { const n = [...document.querySelectorAll("tr[data-stack]")]
                     .map(r => r.dataset.stack).filter(s => s.startsWith("list-"));
                   return n.length == 2 && n[0] === "list-alpha"; }""")
    page.locator('button[data-sort="stack_name"]').click()  # descending
    page.wait_for_function(
        """() => { const n = [...document.querySelectorAll("tr[data-stack]")]
                     .map(r => r.dataset.stack).filter(s => s.startsWith("list-"));
                   return n.length == 2 && n[0] === "list-beta"; }""")
    assert page.locator('th[aria-sort="descending"]').count() == 1
    page.get_by_label("Status").select_option("CREATE_FAILED")
    page.locator('tr[data-stack="list-alpha"]').wait_for(state="detached")
    shot(page, "stack-list")
    no_csp_violation(page)


def test_the_graph_follows_a_create_live_then_a_delete(page: Any, ui_server: UiServer) -> None:
    hc = ui_server.heat()
    tmpl = template({
        "first": resource(wait=1.5),
        "second": resource(wait=1.5, value={"get_attr": ["first", "output"]}),
        "third": resource(wait=1.5, depends_on=["second"]),
        "beside": resource(wait=1.5, depends_on=["first"]),
    }, outputs={"said": {"value": {"get_attr": ["first", "output"]}}},
       parameters={"secret": {"type": "string", "hidden": True, "default": "s3cr3t-value"}})
    login(page, ui_server)
    hc.stacks.create(stack_name="live", template=tmpl)
    open_stack(page, ui_server, "live")

    for name in ("first", "second", "third", "beside"):
        node(page, name).wait_for()
    assert edges(page) == {("first", "second"), ("second", "third"), ("first", "beside")}
    # The page was loaded once: the rest comes from the stream.
    wait_class(page, "third", "state-CREATE_IN_PROGRESS", "state-progress")
    shot(page, "graph-create-in-progress")
    for name in ("first", "second", "third", "beside"):
        wait_class(page, name, "state-CREATE_COMPLETE", "state-complete")
    wait_stack_status(page, "CREATE_COMPLETE")
    seen = states_seen(page, "live/third")
    assert seen.index("CREATE_IN_PROGRESS") < seen.index("CREATE_COMPLETE"), seen
    assert page.evaluate("performance.getEntriesByName('graph-drawn').length") == 1
    shot(page, "graph-create-complete")

    # The events, the outputs and the parameters (the hidden one masked by the server).
    assert page.locator(".event-row").count() >= 8
    page.get_by_role("tab", name="Parameters").click()
    params = page.get_by_role("tabpanel").inner_text()
    assert "s3cr3t-value" not in params and "******" in params
    page.get_by_role("tab", name="Outputs").click()
    assert "said" in page.get_by_role("tabpanel").inner_text()
    page.get_by_role("tab", name="Template").click()
    page.get_by_role("tabpanel").get_by_text("OS::Heat::TestResource").first.wait_for()

    # A click on a node shows the resource.
    node(page, "first").locator(".node-body").click()
    panel = page.locator("aside.panel")
    panel.get_by_text("OS::Heat::TestResource").wait_for()
    panel.get_by_text("Attributes").click()
    panel.get_by_text("output").first.wait_for()

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete stack").click()
    wait_class(page, "third", "state-DELETE_IN_PROGRESS")
    wait_stack_status(page, "DELETE_COMPLETE")
    for name in ("first", "second", "third", "beside"):
        assert "DELETE_COMPLETE" in states_seen(page, f"live/{name}"), name
    shot(page, "graph-deleted")
    no_csp_violation(page)


def test_a_failure_shows_its_reason_and_the_rollback_is_seen(
        page: Any, ui_server: UiServer) -> None:
    hc = ui_server.heat()
    login(page, ui_server)
    hc.stacks.create(stack_name="failing", disable_rollback=False, template=template({
        "good": resource(wait=1.5),
        "bad": resource(wait=1.5, fail=True, depends_on=["good"]),
    }))
    open_stack(page, ui_server, "failing")
    # The rollback starts the moment "bad" fails: its FAILED state may come and go within
    # one batch of the stream. What failed and why stays on the graph: the node marked as
    # the failure's cause, its reason in its tooltip and in the side panel.
    wait_seen_class(page, "failing/bad", "failure-cause")
    titles = [title for cls, title in titled_history(page, "failing/bad")
              if "failure-cause" in cls.split()]
    assert "Test Resource failed bad" in titles[-1], titled_history(page, "failing/bad")
    failures = page.get_by_role("region", name="Failures")
    failures.get_by_text("Test Resource failed bad").wait_for()
    # and the event itself in the list
    page.locator(".event-row", has_text="CREATE_FAILED").filter(has_text="bad").first.wait_for()
    shot(page, "graph-failed")

    wait_stack_status(page, "ROLLBACK_COMPLETE", timeout=60)
    seen = wait_seen(page, "failing/good", "DELETE_COMPLETE")
    assert seen.index("CREATE_COMPLETE") < seen.index("DELETE_IN_PROGRESS") \
        < seen.index("DELETE_COMPLETE"), seen
    # The rollback deleted the failed resource; the side panel still says what failed.
    failures = page.get_by_role("region", name="Failures")
    assert "Last failure" in failures.inner_text()
    assert "Test Resource failed bad" in failures.inner_text()
    shot(page, "graph-rolled-back")
    no_csp_violation(page)


def test_a_failure_inside_a_nested_stack_is_traced_to_its_cause(
        page: Any, ui_server: UiServer) -> None:
    hc = ui_server.heat()
    hc.stacks.create(stack_name="nested-fail", disable_rollback=True, template=template({
        "before": resource(),
        "group": {"type": "OS::Heat::ResourceGroup", "depends_on": ["before"],
                  "properties": {"count": 2, "resource_def": resource(fail=True)}},
    }))
    wait_stack(hc, "nested-fail")
    login(page, ui_server)
    open_stack(page, ui_server, "nested-fail")
    found = wait_class(page, "group", "state-CREATE_FAILED", "failure-path")
    assert "failure-cause" not in found  # the cause is below it
    assert "failure-path" not in classes(page, "before")
    chain = page.get_by_role("region", name="Failures").locator(".failure-chain").first
    assert chain.locator(".chain").inner_text().replace("\n", "").startswith("group \u203a ")

    node(page, "group").locator(".toggle").click()
    cluster = page.locator('g.node[data-resource="group"] g.cluster')
    cluster.locator('g.node[data-resource="0"]').wait_for()
    member = cluster.locator('g.node[data-resource="0"]')
    inner = set((member.get_attribute("class") or "").split())
    assert {"state-CREATE_FAILED", "failure-path", "failure-cause"} <= inner, inner
    shot(page, "nested-failure-path")
    no_csp_violation(page)


def test_a_nested_stack_expands_in_place(page: Any, ui_server: UiServer) -> None:
    hc = ui_server.heat()
    child = template({"leaf_a": resource(), "leaf_b": resource(depends_on=["leaf_a"])})
    hc.stacks.create(stack_name="parent", files={"child.yaml": yaml.safe_dump(child)},
                     template=template({
                         "top": resource(),
                         "inner": {"type": "child.yaml", "depends_on": ["top"]},
                         "group": {"type": "OS::Heat::ResourceGroup",
                                   "properties": {"count": 3, "resource_def": resource()}},
                     }))
    wait_stack(hc, "parent")
    login(page, ui_server)
    # The nested stacks under their parent in the list.
    page.locator('tr[data-stack="parent"]').wait_for()
    names = page.eval_on_selector_all(
        "tr[data-stack]",
        "rows => rows.map(r => [r.dataset.stack, r.classList.contains('nested')])")
    order = [n for n, _ in names]
    at = order.index("parent")
    nested = [n for n, is_nested in names if is_nested and n.startswith("parent-")]
    assert len(nested) == 2 and set(order[at + 1:at + 3]) == set(nested), names

    open_stack(page, ui_server, "parent")
    toggle = node(page, "inner").locator(".toggle")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert node(page, "top").locator(".toggle").count() == 0
    toggle.click()
    cluster = page.locator('g.node[data-resource="inner"] g.cluster')
    cluster.locator('g.node[data-resource="leaf_b"]').wait_for()
    assert toggle.get_attribute("aria-expanded") == "true"
    assert ("leaf_a", "leaf_b") in edges(page)
    assert "state-CREATE_COMPLETE" in classes(page, "leaf_a")
    node(page, "group").locator(".toggle").click()
    group = page.locator('g.node[data-resource="group"] g.cluster')
    for index in ("0", "1", "2"):
        group.locator(f'g.node[data-resource="{index}"]').wait_for()
    shot(page, "nested-expanded")
    toggle.focus()  # by keyboard
    page.keyboard.press("Enter")
    cluster.wait_for(state="detached")
    assert toggle.get_attribute("aria-expanded") == "false"
    no_csp_violation(page)


def test_a_plan_is_shown_on_the_graph_then_applied(
        page: Any, ui_server: UiServer, tmp_path: Path) -> None:
    hc = ui_server.heat()
    hc.stacks.create(stack_name="planned", template=template({
        "kept": resource(value="same"),
        "changed": resource(value="old"),
        "swapped": resource(value="old", update_replace=True),
        "dropped": resource(),
    }))
    wait_stack(hc, "planned")
    new = tmp_path / "new.yaml"
    new.write_text(yaml.safe_dump(template({
        "kept": resource(value="same"),
        "changed": resource(value="new", wait=1),
        "swapped": resource(value="new", update_replace=True, wait=1),
        "added": resource(wait=1.5, depends_on=["kept"]),
    })))
    login(page, ui_server)
    open_stack(page, ui_server, "planned")
    page.get_by_text("Plan an update").click()
    page.get_by_label("New template").set_input_files(str(new))
    page.get_by_role("button", name="Preview the plan").click()
    page.locator(".plan-summary").wait_for()
    assert "1 to add" in page.locator(".plan-summary").inner_text()
    wait_class(page, "added", "plan-added")
    assert "plan-unchanged" in classes(page, "kept")
    assert "plan-updated" in classes(page, "changed")
    assert "plan-replaced" in classes(page, "swapped")
    assert "plan-deleted" in classes(page, "dropped")
    assert "value" in (node(page, "changed").locator("title").text_content() or "")
    assert ("kept", "added") not in edges(page)  # a planned node is placed, not yet wired
    shot(page, "plan")

    page.get_by_role("button", name="Apply").click()
    wait_class(page, "added", "state-CREATE_IN_PROGRESS")
    wait_stack_status(page, "UPDATE_COMPLETE")
    wait_class(page, "added", "state-CREATE_COMPLETE")
    node(page, "dropped").wait_for(state="detached")
    assert "UPDATE_COMPLETE" in states_seen(page, "planned/changed")
    assert not any("plan-added" in c for c in classes(page, "added"))
    assert hc.stacks.get("planned").stack_status == "UPDATE_COMPLETE"
    shot(page, "plan-applied")
    no_csp_violation(page)


def test_a_reader_sees_but_cannot_apply(page: Any, ui_server: UiServer) -> None:
    hc = ui_server.heat()
    hc.stacks.create(stack_name="read-only", template=template({"r": resource(value="a")}))
    wait_stack(hc, "read-only")
    login(page, ui_server, ui_server.reader_token)
    open_stack(page, ui_server, "read-only")
    wait_class(page, "r", "state-CREATE_COMPLETE")
    assert page.get_by_role("button", name="Delete stack").count() == 0
    assert page.get_by_role("button", name="Apply").count() == 0
    assert page.get_by_text("Plan an update").count() == 0
    page.get_by_text("Your role can read this stack").wait_for()
    shot(page, "reader-stack")

    # Forced through the page's own fetch, with its session's CSRF value: refused.
    stack = hc.stacks.get("read-only")
    answer = page.evaluate(
        """async ([path, body]) => {
             const s = await (await fetch("/ui/session", {credentials: "same-origin"})).json();
             const r = await fetch(path, {method: "PUT", credentials: "same-origin",
               headers: {"Content-Type": "application/json", "X-CSRF-Token": s.csrf_token},
               body});
             return {status: r.status, canApply: s.can_apply};
           }""",
        [f"/v1/admin/stacks/read-only/{stack.id}",
         json.dumps({"template": template({"r": resource(value="c")})})])
    assert answer == {"status": 403, "canApply": False}
    assert hc.stacks.get("read-only").stack_status == "CREATE_COMPLETE"
    no_csp_violation(page)


def test_a_state_change_without_the_csrf_header_is_refused(
        page: Any, ui_server: UiServer) -> None:
    hc = ui_server.heat()
    hc.stacks.create(stack_name="csrf", template=template({"r": resource()}))
    stack = wait_stack(hc, "csrf")
    login(page, ui_server)
    status = page.evaluate(
        """async (path) => (await fetch(path, {method: "DELETE",
                                                credentials: "same-origin"})).status""",
        f"/v1/admin/stacks/csrf/{stack.id}")
    assert status == 403
    assert hc.stacks.get("csrf").stack_status == "CREATE_COMPLETE"
    answer = httpx.get(f"{ui_server.base}/ui")
    assert "script-src 'self'" in answer.headers["content-security-policy"]


def test_a_big_stack_keeps_only_the_event_rows_in_view_and_zooms_without_layout(
        page: Any, ui_server: UiServer) -> None:
    hc = ui_server.heat()
    count = 150
    hc.stacks.create(stack_name="many", template=template(
        {f"r{i:03d}": {"type": "OS::Heat::None"} for i in range(count)}))
    wait_stack(hc, "many")
    login(page, ui_server)
    open_stack(page, ui_server, "many")
    page.wait_for_function(
        f"() => document.querySelectorAll('g.node').length === {count}")
    events = 2 * count + 2  # each resource's two, and the stack's
    page.get_by_text(f"{events} events").wait_for()
    rows = page.locator(".event-row").count()
    assert 0 < rows < 60, rows  # only those in view (and a few either side)
    scroller = page.locator(".event-scroll")
    scroller.evaluate("el => { el.scrollTop = 0; }")
    page.locator('.event-row[aria-rowindex="2"]').wait_for()
    assert "Stack CREATE started" in page.locator('.event-row[aria-rowindex="2"]').inner_text()
    assert page.locator(".event-row").count() < 60

    svg = page.locator("svg.graph")
    layouts = page.evaluate("() => performance.getEntriesByName('graph-layout').length")
    before = [float(v) for v in (svg.get_attribute("viewBox") or "").split()]
    page.get_by_role("button", name="Zoom in").click()
    after = [float(v) for v in (svg.get_attribute("viewBox") or "").split()]
    assert after[2] < before[2] and after[3] < before[3], (before, after)
    svg.hover()
    page.mouse.wheel(0, 400)  # zoom out around the pointer
    page.wait_for_function(
        f"() => parseFloat(document.querySelector('svg.graph').getAttribute('viewBox')"
        f".split(' ')[2]) > {after[2]}")
    assert page.evaluate("() => performance.getEntriesByName('graph-layout').length") == layouts
    shot(page, "many-resources")
    no_csp_violation(page)


def test_what_users_wrote_is_shown_as_text(page: Any, ui_server: UiServer) -> None:
    hc = ui_server.heat()
    markup = '<img src="x" onerror="window.__xss = 1"><b>bold</b>'
    hc.stacks.create(stack_name="escaped", template=template(
        {"r": resource(value=markup)},
        description=markup,
        outputs={"shown": {"value": {"get_attr": ["r", "output"]}}}))
    wait_stack(hc, "escaped")
    login(page, ui_server)
    open_stack(page, ui_server, "escaped")
    page.get_by_role("tab", name="Outputs").click()
    page.get_by_role("tabpanel").get_by_text(markup).wait_for()
    page.get_by_role("tab", name="Template").click()
    page.get_by_role("tabpanel").get_by_text("onerror").first.wait_for()
    assert page.locator("main img, main b").count() == 0
    assert page.evaluate("() => window.__xss") is None
    no_csp_violation(page)


def test_axe_finds_no_serious_issue_on_any_page(page: Any, ui_server: UiServer) -> None:
    """axe-core on the login page (a token server's: the Keystone form's is the cloud
    suite's), the list, and a stack page with a failure, a nested stack expanded, a
    resource shown and each tab open."""
    hc = ui_server.heat()
    hc.stacks.create(stack_name="axe", disable_rollback=True, template=template({
        "ok": resource(),
        "broken": resource(fail=True, depends_on=["ok"]),
        "group": {"type": "OS::Heat::ResourceGroup",
                  "properties": {"count": 2, "resource_def": resource()}},
    }, outputs={"out": {"value": {"get_attr": ["ok", "output"]}}}))
    wait_stack(hc, "axe")
    page.goto(f"{ui_server.base}/ui")
    page.get_by_label("Token", exact=True).wait_for()
    axe_clean(page, "login")
    login(page, ui_server)
    page.locator('tr[data-stack="axe"]').wait_for()
    axe_clean(page, "stack list")
    open_stack(page, ui_server, "axe")
    wait_class(page, "broken", "failure-cause")
    node(page, "group").locator(".toggle").click()
    page.locator('g.node[data-resource="group"] g.cluster g.node').first.wait_for()
    node(page, "ok").locator(".node-body").click()
    page.locator("aside.panel").get_by_text("OS::Heat::TestResource").wait_for()
    axe_clean(page, "stack")
    for tab in ("Outputs", "Parameters", "Template", "Environment"):
        page.get_by_role("tab", name=tab).click()
        axe_clean(page, f"stack ({tab})")
    shot(page, "axe-stack")
