"""A cloud that fails, against the real one: Heat's texts and Heat's retries.

- A server no host fits (a flavor bigger than the fake compute: NoValidHost) goes
  ERROR; with ``action_retry_limit = 1`` it is deleted and made once more, with
  Heat's events, then the stack fails with Heat's text for the first failure.
- Nova's quota exceeded (a flavor bigger than the project's RAM quota): POST
  /servers refused with 403, Heat's text, no retry.
- A flavor or an image deleted between the stack's validation and the server's
  create: the finder's text under its client's class name, no retry.

The flavors are made by the admin for the test and deleted after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hotplate.app import Engine
from hotplate.engine.options import EngineOptions
from tests.cloud.clients import token_context
from tests.cloud.engine import engine_on, wait_while_in_progress
from tests.cloud.leaks import cloud_leaks  # noqa: F401  (a fixture)
from tests.cloud.locate import Cloud
from tests.cloud.stacks import unique_name

pytestmark = pytest.mark.usefixtures("cloud_leaks")
LEAK_PREFIX = "cf-"
NO_HOST_RAM_MB = 4_000_000
"""More than the fake compute has (800 GB at 1.5 allocation), less than the RAM quota."""
OVER_QUOTA_RAM_MB = 9_000_000
"""More than the cloud's RAM quota (8,192,000 MB)."""
WAIT = 240.0
"""The longest a test waits for a stack's action."""


@pytest.fixture(scope="module")
def engine(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with engine_on(Path(tmp_path_factory.mktemp("failures")), cloud.region,
                   options=EngineOptions(action_retry_limit=1),
                   trustee_of=cloud.auth_url) as running:
        yield running


@pytest.fixture
def flavor(admin_conn: Any) -> Iterator[Any]:
    """A public flavor of the asked RAM, deleted after the test."""
    made: list[str] = []

    def make(ram: int) -> str:
        name = unique_name(LEAK_PREFIX)
        made.append(admin_conn.compute.create_flavor(name=name, ram=ram, vcpus=1, disk=1,
                                                     is_public=True).id)
        return name

    yield make
    for ident in made:
        admin_conn.compute.delete_flavor(ident, ignore_missing=True)


def _server_stack(flavor: str, name: str) -> dict[str, Any]:
    return {"heat_template_version": "2021-04-16", "resources": {"server": {
        "type": "OS::Nova::Server",
        "properties": {"name": name, "image": "cirros-fake", "flavor": flavor,
                       "user_data_format": "RAW",
                       "networks": [{"allocate_network": "none"}]}}}}


def _create(engine: Engine, ctxt: Any, name: str, template: Any) -> tuple[Any, dict[str, Any]]:
    identity = engine.service.create_stack(ctxt, name, template, {}, {}, {})
    return identity, wait_while_in_progress(engine, ctxt, identity, WAIT)


def _delete(engine: Engine, ctxt: Any, identity: Any) -> None:
    engine.service.delete_stack(ctxt, identity)
    shown = wait_while_in_progress(engine, ctxt, identity, WAIT)
    assert (shown["stack_action"], shown["stack_status"]) == ("DELETE", "COMPLETE"), shown


def _events(engine: Engine, ctxt: Any, identity: Any) -> list[tuple[str, str]]:
    listed = engine.service.list_events(ctxt, identity, sort_dir="asc")
    return [(f'{e["resource_action"]}_{e["resource_status"]}', e["resource_status_reason"])
            for e in listed if e["resource_name"] == "server"]


def test_a_server_no_host_fits_is_made_again_then_fails(
        cloud: Cloud, user_conn: Any, engine: Engine, flavor: Any) -> None:
    huge = flavor(NO_HOST_RAM_MB)
    name = unique_name(LEAK_PREFIX)
    ctxt = token_context(cloud, user_conn)
    identity, shown = _create(engine, ctxt, name, _server_stack(huge, name))
    try:
        reason = shown["stack_status_reason"]
        assert shown["stack_status"] == "FAILED", shown
        assert re.fullmatch(
            r'Resource CREATE failed: ResourceInError: resources\.server: Went to status '
            r'ERROR due to "Message: No valid host was found\. .*, Code: 500"', reason), reason
        events = _events(engine, ctxt, identity)
        assert [state for state, _ in events] == [
            "CREATE_IN_PROGRESS", "CREATE_FAILED", "DELETE_IN_PROGRESS", "DELETE_COMPLETE",
            "CREATE_IN_PROGRESS", "CREATE_FAILED"]
        assert events[1][1] == reason.removeprefix("Resource CREATE failed: ")
        servers = list(user_conn.compute.servers(name=f"^{name}$"))
        assert [s.status for s in servers] == ["ERROR"]  # the first one was deleted
    finally:
        _delete(engine, ctxt, identity)
    assert list(user_conn.compute.servers(name=f"^{name}$")) == []


def test_nova_quota_exceeded_fails_at_once_with_heats_text(
        cloud: Cloud, user_conn: Any, engine: Engine, flavor: Any) -> None:
    over = flavor(OVER_QUOTA_RAM_MB)
    name = unique_name(LEAK_PREFIX)
    ctxt = token_context(cloud, user_conn)
    identity, shown = _create(engine, ctxt, name, _server_stack(over, name))
    try:
        reason = shown["stack_status_reason"]
        assert shown["stack_status"] == "FAILED", shown
        assert re.fullmatch(
            r"Resource CREATE failed: Forbidden: resources\.server: Quota exceeded for ram: "
            rf"Requested {OVER_QUOTA_RAM_MB}, but already used \d+ of \d+ ram \(HTTP 403\) "
            r"\(Request-ID: req-[0-9a-f-]+\)", reason), reason
        assert [state for state, _ in _events(engine, ctxt, identity)] == [
            "CREATE_IN_PROGRESS", "CREATE_FAILED"]
        assert list(user_conn.compute.servers(name=f"^{name}$")) == []
    finally:
        _delete(engine, ctxt, identity)


@pytest.mark.parametrize("kind", ["flavor", "image"])
def test_a_flavor_or_image_deleted_after_validation_fails_the_create_with_heats_text(
        cloud: Cloud, user_conn: Any, engine: Engine, flavor: Any, admin_conn: Any,
        kind: str) -> None:
    # Validated while it exists, gone when the server is made: Heat resolves the name
    # again at create, and its finder fails it (no retry: not ResourceInError).
    name = unique_name(LEAK_PREFIX)
    template = _server_stack(flavor(64) if kind == "flavor" else "m1.tiny", name)
    if kind == "image":
        image = user_conn.image.create_image(name=name, data=b"hotplate", disk_format="raw",
                                             allow_duplicates=True,
                                             container_format="bare")
        template["resources"]["server"]["properties"]["image"] = name
    doomed = template["resources"]["server"]["properties"][kind]
    template["resources"]["gate"] = {"type": "OS::Heat::TestResource",
                                     "properties": {"action_wait_secs": {"create": 3}}}
    template["resources"]["server"]["depends_on"] = ["gate"]
    ctxt = token_context(cloud, user_conn)
    identity = engine.service.create_stack(ctxt, name, template, {}, {}, {})
    try:
        if kind == "flavor":
            admin_conn.compute.delete_flavor(
                admin_conn.compute.find_flavor(doomed, ignore_missing=False).id)
        else:
            user_conn.image.delete_image(image)
        shown = wait_while_in_progress(engine, ctxt, identity, WAIT)
        assert shown["stack_status"] == "FAILED", shown
        assert shown["stack_status_reason"] == {
            "flavor": f"Resource CREATE failed: NotFound: resources.server: No Flavor "
                      f"matching {{'name': '{doomed}'}}. (HTTP 404)",
            "image": f"Resource CREATE failed: EntityMatchNotFound: resources.server: No "
                     f"images matching {{'name': '{doomed}'}}.",
        }[kind]
        assert [state for state, _ in _events(engine, ctxt, identity)] == [
            "CREATE_IN_PROGRESS", "CREATE_FAILED"]
        assert list(user_conn.compute.servers(name=f"^{name}$")) == []
    finally:
        _delete(engine, ctxt, identity)
        if kind == "image":
            user_conn.image.delete_image(image, ignore_missing=True)
