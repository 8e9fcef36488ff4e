"""The web view in Chromium against ``hotplate serve --auth keystone`` and the project's
real OpenStack: the page's own Keystone login form (offered before anyone signs in, a
wrong password refused), and the side panel's cloud details of a stack's server, volume
and port, compared with what Nova, Cinder and Neutron say of the same objects.

The stack is made through the API as the member, in the cloud's second project (as the
Nova suite's: the demo project is busy with other suites, whose leak checks would take
these objects for theirs); ``cloud_leaks`` fails a test that leaves any behind. Without
/usr/bin/chromium or Playwright's Python package the tests skip, as ``tests/ui`` does.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cloud.leaks import cloud_leaks  # noqa: F401  (a fixture)
from tests.cloud.locate import Cloud
from tests.cloud.serving import PORT, Serving
from tests.cloud.stacks import (
    as_user,
    connected,
    gone,
    heat_client,
    serve_on_catalog_ports,
    server_deleted,
)
from tests.cloud.test_nova_types import NOVA_CLOUD
from tests.cloud.test_ui_keystone_login import password_login
from tests.ui.conftest import AXE, RECORDER, chromium, shot
from tests.ui.pages import axe_clean, no_csp_violation, node, wait_stack_status

pytestmark = [pytest.mark.usefixtures("cloud_leaks"), pytest.mark.timeout(900)]
LEAK_PREFIX = "uic-"
"""Every server, volume and Neutron object these tests make is named so."""
BASE = f"http://127.0.0.1:{PORT}"
WAIT = 300.0
"""The longest a test waits for the stack's create or delete."""

NOTHING = {"heat_template_version": "2021-04-16",
           "resources": {"nothing": {"type": "OS::Heat::None"}}}
SERVER_AND_VOLUME = """heat_template_version: 2021-04-16
resources:
  net:
    type: OS::Neutron::Net
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.43.0.0/24}
  port:
    type: OS::Neutron::Port
    properties:
      network: {get_resource: net}
      fixed_ips: [{subnet: {get_resource: subnet}}]
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-fake
      flavor: m1.tiny
      networks: [{port: {get_resource: port}}]
  volume:
    type: OS::Cinder::Volume
    properties: {size: 1}
  attachment:
    type: OS::Cinder::VolumeAttachment
    properties: {instance_uuid: {get_resource: server}, volume_id: {get_resource: volume}}
"""


@pytest.fixture(scope="module")
def ui_cloud(cloud: Cloud) -> Cloud:
    return as_user(cloud, NOVA_CLOUD)


@pytest.fixture(scope="module")
def user_conn(ui_cloud: Cloud) -> Iterator[Any]:
    """This module's member (``NOVA_CLOUD``), in place of the suites' demo user."""
    yield from connected(ui_cloud)


@pytest.fixture(scope="module")
def served(ui_cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    """hotplate on the catalog's ports with Heat's trustee (the stack's server and volume
    are made after the request, with the stack's trust)."""
    yield from serve_on_catalog_ports(ui_cloud, tmp_path_factory, "ui-browser-serve")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright's sync API, for this module's tests (its
    driver keeps an event loop running in the main thread while it lives)."""
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh profile (no cookies) recording any Content-Security-Policy violation, with
    axe-core when ``make ui`` installed it."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 950})
    ctx.add_init_script(path=str(RECORDER))
    if AXE.exists():
        ctx.add_init_script(path=str(AXE))
    try:
        opened = ctx.new_page()
        opened.set_default_timeout(30_000)
        yield opened
    finally:
        ctx.close()


def _fill_password_form(page: Any, fields: dict[str, str]) -> None:
    page.get_by_label("User name", exact=True).fill(fields["username"])
    page.get_by_label("Password", exact=True).fill(fields["password"])
    page.get_by_label("Project", exact=True).fill(fields["project_name"])
    page.get_by_label("User domain", exact=True).fill(fields["user_domain_name"])
    page.get_by_label("Project domain", exact=True).fill(fields["project_domain_name"])
    page.get_by_role("button", name="Sign in").click()


def _accessible(page: Any, where: str) -> None:
    """axe-core finds no serious or critical issue (where ``make ui`` installed it: the
    rest of a test runs without it, as tests/ui's do)."""
    if AXE.exists():
        axe_clean(page, where)


def _session_status(page: Any) -> int:
    """``GET /ui/session`` with the page's cookies."""
    return int(page.context.request.get(f"{BASE}/ui/session").status)


def _sign_in(page: Any, cloud: Cloud) -> None:
    """The member signs in through the page's password form; lands on the stack list."""
    page.goto(f"{BASE}/ui")
    page.get_by_label("User name", exact=True).wait_for()
    _fill_password_form(page, password_login(cloud, cloud.user))
    page.get_by_role("heading", name="Stacks").wait_for()


def test_the_page_offers_keystone_s_login_refuses_a_wrong_password_and_signs_in(
        page: Any, served: Serving, ui_cloud: Cloud, user_conn: Any) -> None:
    page.goto(f"{BASE}/ui")
    # The server's 401 names its login: the password form shows without being asked.
    for field in ("User name", "Password", "Project"):
        page.get_by_label(field, exact=True).wait_for()
    assert page.get_by_label("a Keystone password").is_checked()
    assert page.get_by_label("Token", exact=True).count() == 0
    _accessible(page, "Keystone login")

    fields = password_login(ui_cloud, ui_cloud.user)
    _fill_password_form(page, {**fields, "password": "not-the-password"})
    refusal = page.get_by_role("alert")
    refusal.wait_for()
    assert "Refused" in refusal.inner_text() and "Keystone" in refusal.inner_text()
    assert page.get_by_role("heading", name="Stacks").count() == 0
    assert page.context.cookies() == [] and _session_status(page) == 401
    shot(page, "keystone-login-refused")

    hc = heat_client(served)
    name = f"{LEAK_PREFIX}{uuid.uuid4().hex[:8]}"
    stack_id = hc.stacks.create(stack_name=name, template=NOTHING)["stack"]["id"]
    try:
        _wait_status(hc, stack_id, "CREATE_COMPLETE")
        _fill_password_form(page, fields)
        page.get_by_role("heading", name="Stacks").wait_for()
        who = page.locator("header .who").inner_text()
        assert fields["username"] in who and user_conn.current_project_id in who
        cookies = {c["name"]: c for c in page.context.cookies()}
        assert cookies["hotplate_ui"]["httpOnly"]
        assert cookies["hotplate_ui"]["sameSite"] == "Strict"
        assert _session_status(page) == 200 and fields["password"] not in page.url
        # The list is the project's stacks as the API lists them to the member.
        row = page.locator(f'tr[data-stack="{name}"]')
        row.wait_for()
        listed = {s.stack_name: s.stack_status for s in hc.stacks.list()}
        shown = page.locator("tr[data-stack]")
        assert {r.get_attribute("data-stack"): r.locator("td.status").get_attribute(
            "data-status") for r in shown.all()} == listed
        no_csp_violation(page)
        shot(page, "keystone-stack-list")
    finally:
        _deleted(hc, stack_id)


def _wait_status(hc: Any, stack_id: str, wanted: str) -> Any:
    """The stack once it left IN_PROGRESS; it must have reached ``wanted``."""
    deadline = time.monotonic() + WAIT
    while (found := hc.stacks.get(stack_id)).stack_status.endswith("_IN_PROGRESS"):
        assert time.monotonic() < deadline, f"{found.stack_name} still {found.stack_status}"
        time.sleep(0.5)
    assert found.stack_status == wanted, (found.stack_status, found.stack_status_reason)
    return found


def _deleted(hc: Any, stack_id: str) -> None:
    """Delete the stack through the API unless it is gone already (the page may have
    deleted it), and wait until it reads DELETE_COMPLETE (or is not found)."""
    from heatclient.exc import HTTPNotFound

    asked = False
    deadline = time.monotonic() + WAIT
    while True:
        try:
            status = hc.stacks.get(stack_id).stack_status
        except HTTPNotFound:
            return
        if status == "DELETE_COMPLETE":
            return
        assert not (asked and status == "DELETE_FAILED"), hc.stacks.get(stack_id).to_dict()
        if not asked and status != "DELETE_IN_PROGRESS":
            hc.stacks.delete(stack_id)
            asked = True
        assert time.monotonic() < deadline, status
        time.sleep(0.5)


def _open_resource(page: Any, name: str) -> Any:
    """Click the resource's node; the side panel once it shows ``resource show``."""
    node(page, name).locator(".node-body").click()
    panel = page.locator(f'aside.panel[aria-label="Resource {name}"]')
    panel.locator("details.attributes").wait_for()
    return panel


def test_the_panel_shows_the_server_volume_and_port_as_the_cloud_has_them(
        page: Any, served: Serving, ui_cloud: Cloud, user_conn: Any) -> None:
    hc = heat_client(served)
    name = f"{LEAK_PREFIX}{uuid.uuid4().hex[:8]}"
    stack_id = hc.stacks.create(stack_name=name, template=SERVER_AND_VOLUME)["stack"]["id"]
    try:
        _wait_status(hc, stack_id, "CREATE_COMPLETE")
        ids = {r.resource_name: r.physical_resource_id for r in hc.resources.list(stack_id)}
        port = user_conn.network.get_port(ids["port"])
        network = user_conn.network.get_network(port.network_id)
        server = user_conn.compute.get_server(ids["server"])
        volume = user_conn.block_storage.get_volume(ids["volume"])
        assert port.device_id == server.id and port.network_id == ids["net"]
        fixed_ips = [f["ip_address"] for f in port.fixed_ips]
        assert [a["addr"] for a in server.addresses[network.name]] == fixed_ips
        assert [a["server_id"] for a in volume.attachments] == [server.id]

        _sign_in(page, ui_cloud)
        page.goto(f"{BASE}/ui#/stacks/{name}/{stack_id}")
        page.get_by_role("heading", name=name, exact=True).wait_for()

        panel = _open_resource(page, "server")
        assert server.id in panel.locator("dl.props").inner_text()
        assert _texts(panel, ".highlight .net") == [network.name]
        assert _texts(panel, ".highlight .addr") == fixed_ips
        _console_shown_as_heat_gives_it(panel, hc, stack_id, user_conn, server.id)
        _accessible(page, "server's panel")
        shot(page, "cloud-panel-server")

        panel = _open_resource(page, "volume")
        assert _texts(panel, ".attachment .server") == [
            a["server_id"] for a in volume.attachments]
        assert _texts(panel, ".attachment .device") == [a["device"] for a in volume.attachments]
        _accessible(page, "volume's panel")
        shot(page, "cloud-panel-volume")

        panel = _open_resource(page, "port")
        assert _texts(panel, ".network-id") == [port.network_id]
        assert _texts(panel, ".fixed-ip .ip") == fixed_ips
        assert _texts(panel, ".fixed-ip .subnet") == [f["subnet_id"] for f in port.fixed_ips] \
            == [ids["subnet"]]
        _accessible(page, "port's panel")
        shot(page, "cloud-panel-port")

        # The member deletes it from the page (the session's CSRF value), which follows.
        page.once("dialog", lambda dialog: dialog.accept())
        page.get_by_role("button", name="Delete stack").click()
        wait_stack_status(page, "DELETE_COMPLETE", timeout=WAIT)
        no_csp_violation(page)
    finally:
        _deleted(hc, stack_id)
    assert server_deleted(user_conn.compute, server.id)
    assert gone(user_conn.block_storage.get_volume, volume.id)


def _texts(panel: Any, selector: str) -> list[str]:
    return [text.strip() for text in panel.locator(selector).all_inner_texts()]


def _without_request_ids(text: str) -> str:
    """A cloud's error text without its request's id (each asking gets a new one)."""
    return re.sub(r"\s*\(Request-ID: [^)]*\)", "", text)


def _console_shown_as_heat_gives_it(panel: Any, hc: Any, stack_id: str, user_conn: Any,
                                    server_id: str) -> None:
    """The panel's console: a link for each console Heat's ``console_urls`` has a URL for;
    with none, each console's reason as Heat gives it (Nova's refusal, the one
    openstacksdk gets asking Nova for the same console)."""
    from openstack.exceptions import BadRequestException

    consoles = hc.resources.get(stack_id, "server",
                                with_attr=["console_urls"]).attributes["console_urls"]
    links = {kind: url for kind, url in consoles.items() if url.startswith(("http:", "https:"))}
    if links:  # a cloud with consoles: each link goes where Nova's URL does (a new token)
        shown = panel.locator("a.console")
        assert _texts(panel, "a.console") == [f"{kind} console" for kind in links]
        for i, url in enumerate(links.values()):
            href = shown.nth(i).get_attribute("href")
            assert href.split("?")[0] == url.split("?")[0], (href, url)
        return
    none = panel.locator("details.no-console")
    assert none.locator("summary").inner_text().strip() == "None available"
    none.locator("summary").click()
    shown = {item.get_attribute("data-kind"): _without_request_ids(
        item.locator(".why").inner_text()) for item in none.locator("li").all()}
    assert shown == {kind: _without_request_ids(why) for kind, why in consoles.items()}
    try:
        user_conn.compute.create_console(server_id, console_type="novnc")
    except BadRequestException as refused:
        assert str(refused.details) in shown["novnc"], (refused.details, shown["novnc"])
    else:
        raise AssertionError("Nova gave a novnc console that Heat did not")
