"""What the cloud suites that drive hotplate as a user does share: a server on the
catalog's ports, the openstack CLI, python-heatclient, and waits on stacks and objects.

A suite starts hotplate in Keystone mode with Heat's ``[trustee]`` (its plugins act
with the stack's trust) through :func:`serve_on_catalog_ports`, as the user its
fixtures choose, and drives it with the unchanged ``openstack`` CLI.

Where the time goes: an action of these stacks takes the engine one to four
seconds, and an ``openstack`` process spends over a second importing itself. So
:func:`cli` makes the requests a user makes (create, update, delete, abandon,
adopt), with the CLI forked from a process that has imported it, and
:func:`stack_action` waits and reads (resources, outputs, events) in process, with
python-heatclient, the library the CLI itself calls, looking every ``POLL``
seconds. Where a test waits with the CLI's own ``--wait``, the CLI looks every half
second, not every 5 (``tests/openstack_cli.py``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cloud.locate import Cloud
from tests.cloud.serving import PORT, SERVICE_PASSWORD, SERVICE_USER, Serving, keystone_serve
from tests.openstack_cli import run_openstack

STACK_DOMAIN = os.environ.get("HOTPLATE_TEST_STACK_DOMAIN") or "heat"
DOMAIN_ADMIN = os.environ.get("HOTPLATE_TEST_DOMAIN_ADMIN") or "heat_domain_admin"
PUBLIC = os.environ.get("HOTPLATE_TEST_PUBLIC_NETWORK") or "public"
"""The cloud's external network (routers' gateways, floating IPs)."""
POLL = 0.2
"""Seconds between two looks at a stack the test waits on."""
WAIT = 300.0
"""The longest a test waits for one stack action."""
STARTS = 5
"""How many times a suite starts its server before it gives the catalog's ports up."""
BIND_FAILED = "error while attempting to bind"


def trust_config(cloud: Cloud, defaults: str = "") -> str:
    """hotplate's configuration as the cloud's Heat: its trustee and stack domain, with
    ``defaults`` (lines of ``[DEFAULT]``) before them."""
    root = cloud.auth_url.removesuffix("/v3")
    return ("[DEFAULT]\n" + defaults +
            f"stack_user_domain_name = {STACK_DOMAIN}\n"
            f"stack_domain_admin = {DOMAIN_ADMIN}\n"
            f"stack_domain_admin_password = {SERVICE_PASSWORD}\n"
            "[clients_keystone]\n"
            f"auth_uri = {root}\n"
            "[trustee]\n"
            f"auth_url = {root}\nauth_type = password\nuser_domain_name = Default\n"
            f"username = {SERVICE_USER}\npassword = {SERVICE_PASSWORD}\n")


def keystone_extra(cloud: Cloud) -> str:
    """The configuration these suites serve with: ``trust_config``, abandon and adopt
    on, and no retry of a failed create."""
    # A create whose object goes ERROR fails at once: these suites check Heat's texts for
    # the failure; its retries (action_retry_limit) are test_cloud_failures' subject.
    return trust_config(cloud, "enable_stack_abandon = true\nenable_stack_adopt = true\n"
                               "action_retry_limit = 0\n")


def serve_on_catalog_ports(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory,
                           basename: str, extra: str | None = None) -> Iterator[Serving]:
    """hotplate on the catalog's ports as ``cloud``'s user, with ``extra`` (by default
    :func:`keystone_extra`), for a module fixture to ``yield from``.

    Another suite's server may take a port between the check that it is free and the
    bind; the one answering would then not be this one (another checkout's code), so
    that start is abandoned and made again, ``STARTS`` times at most."""
    config = keystone_extra(cloud) if extra is None else extra
    for _ in range(STARTS):
        tmp = Path(tmp_path_factory.mktemp(basename))
        with keystone_serve(cloud, tmp, extra=config) as serving:
            if answered_by(serving):
                yield serving
                return
        time.sleep(1.0)
    pytest.fail(f"the catalog's ports stayed taken by other servers ({STARTS} starts)")


def answered_by(serving: Serving) -> bool:
    """Whether the first request on the port (``GET /``, made once it answered) reached
    this server: its log records it, or its bind failed."""
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline:
        text = serving.log.read_text()
        if BIND_FAILED in text:
            return False
        if '"GET / HTTP/1.1"' in text:
            return True
        time.sleep(0.1)
    return False


def as_user(cloud: Cloud, user: str) -> Cloud:
    """``cloud`` as clouds.yaml's ``user``: a suite whose objects live in a project of
    their own (its leaks then never mix with another suite's)."""
    return dataclasses.replace(cloud, user=user)


def connected(cloud: Cloud) -> Iterator[Any]:
    """An openstacksdk connection as ``cloud``'s user, closed afterwards (for a
    ``user_conn`` fixture to ``yield from``)."""
    conn = cloud.connect()
    yield conn
    conn.close()


def unique_name(prefix: str) -> str:
    """A name no other test uses, starting with the module's leak prefix (so its leak
    check finds what the test leaves behind)."""
    return f"{prefix}{uuid.uuid4().hex[:8]}"


def until(check: Callable[[], object], what: str, wait: float, every: float = 0.25) -> None:
    """Return once ``check()`` is true; fail with ``what`` after ``wait`` seconds. The
    cloud finishes some work after its API answered (a volume settling, a project
    deleted with its stack), and a test looks every ``every`` seconds until it did."""
    deadline = time.monotonic() + wait
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(every)


def cli(served: Serving, *args: str, check: bool = True, cloud: str | None = None) -> Any:
    """``openstack --os-cloud <demo> <args> -f json`` as a user runs it (``cloud``: as
    another of the cloud's users); the decoded document (None when there is none),
    or with ``check=False`` the finished process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env.update(served.cloud.environ(cloud))
    done = run_openstack(["--os-cloud", cloud or served.cloud.user, *args], env, timeout=600)
    if not check:
        return done
    assert done.returncode == 0, done.stderr + "\n" + served.log.read_text()[-4000:]
    lines = done.stdout.splitlines()  # --wait prints event lines before the document
    start = next((i for i, line in enumerate(lines) if line[:1] in "[{"), len(lines))
    return json.loads("\n".join(lines[start:])) if start < len(lines) else None


_HEAT: dict[str, Any] = {}


def heat_client(served: Serving, cloud: str | None = None) -> Any:
    """python-heatclient as the demo user (or ``cloud``), over a Keystone session; one
    per user for the whole run, as a token costs Keystone a request."""
    key = cloud or served.cloud.user
    if key not in _HEAT:
        from heatclient import client

        session = served.cloud.connect(key).session
        _HEAT[key] = client.Client("1", session=session, region_name=served.cloud.region)
    return _HEAT[key]


def _last_event(served: Serving, stack: str, cloud: str | None = None) -> str | None:
    """The newest event's id (None: no such stack, or no event yet)."""
    from heatclient.exc import HTTPNotFound

    try:
        events = heat_client(served, cloud).events.list(stack, sort_dir="desc", limit=1)
    except HTTPNotFound:
        return None
    return str(events[0].id) if events else None


def _wait(served: Serving, stack: str, marker: str | None, until: tuple[str, ...],
          cloud: str | None = None) -> str:
    """The stack's status once an event newer than ``marker`` says it reached one of
    ``until`` (as ``--wait`` reads it, but every ``POLL`` seconds)."""
    hc = heat_client(served, cloud)
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        for event in hc.events.list(stack, marker=marker, sort_dir="asc"):
            marker = event.id
            if event.resource_name == stack and event.resource_status in until:
                return str(event.resource_status)
        time.sleep(POLL)
    raise AssertionError(f"stack {stack} did not reach {until} within {WAIT} s\n"
                         + served.log.read_text()[-4000:])


def stack_action(served: Serving, verb: str, *args: str, stack: str,
                 until: tuple[str, ...] | None = None, cloud: str | None = None) -> str:
    """``openstack stack <verb> <args>`` for ``stack``, then its status once the action
    ended (``until``: the statuses that end it; by default ``<VERB>_COMPLETE`` or
    ``_FAILED``). The command itself must succeed."""
    if verb == "delete":
        return deleted(served, stack, *args, cloud=cloud, check=True)
    action = verb.upper()
    until = until or (f"{action}_COMPLETE", f"{action}_FAILED")
    marker = _last_event(served, stack, cloud) if verb != "create" else None
    cli(served, "stack", verb, *args, cloud=cloud, check=True)
    return _wait(served, stack, marker, until, cloud)


def deleted(served: Serving, stack: str, *args: str, cloud: str | None = None,
            check: bool = False) -> str:
    """``openstack stack delete <args> <stack>`` (if there is such a stack), then its
    status once gone (DELETE_COMPLETE) or failed; ``check``: the command must succeed."""
    from heatclient.exc import HTTPNotFound

    hc = heat_client(served, cloud)
    try:
        stack_id = hc.stacks.get(stack).id
    except HTTPNotFound:
        assert not check, f"no stack {stack} to delete"
        return "DELETE_COMPLETE"
    done = cli(served, "stack", "delete", "--yes", *args, stack_id, check=False, cloud=cloud)
    assert not check or done.returncode == 0, done.stderr
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            status = str(hc.stacks.get(stack_id).stack_status)
        except HTTPNotFound:
            return "DELETE_COMPLETE"
        if status in ("DELETE_COMPLETE", "DELETE_FAILED"):
            return status
        time.sleep(POLL)
    raise AssertionError(f"stack {stack} was not deleted within {WAIT} s")


def delete_stack(served: Serving, stack: str, cloud: str | None = None) -> None:
    """Delete the stack if there is one, and wait until it is gone or failed: a test's
    cleanup, which must not hide the failure that brought it there."""
    deleted(served, stack, cloud=cloud)


def template_file(served: Serving, text: str) -> str:
    """The path of a new file holding ``text``: the CLI reads templates from files."""
    path = served.tmp / f"t-{uuid.uuid4().hex[:8]}.yaml"
    path.write_text(text)
    return str(path)


def physical_ids(served: Serving, stack: str, cloud: str | None = None) -> dict[str, str]:
    """Each resource's physical id, by its name in the template."""
    listed = heat_client(served, cloud).resources.list(stack)
    return {r.resource_name: r.physical_resource_id for r in listed}


def show_stack(served: Serving, stack: str, cloud: str | None = None) -> dict[str, Any]:
    """The stack as ``GET /stacks/<stack>`` shows it (status, reason, outputs)."""
    shown: dict[str, Any] = heat_client(served, cloud).stacks.get(stack).to_dict()
    return shown


def outputs_of(shown: dict[str, Any]) -> dict[str, Any]:
    """A shown stack's outputs, by key."""
    return {o["output_key"]: o["output_value"] for o in shown.get("outputs") or []}


def gone(get: Callable[[str], object], ident: str) -> bool:
    """Whether openstacksdk's ``get`` answers that ``ident`` is not found."""
    from openstack.exceptions import NotFoundException

    try:
        get(ident)
    except NotFoundException:
        return True
    return False


def server_deleted(compute: Any, ident: str) -> bool:
    """Whether Nova shows server ``ident`` deleted: not found, or (for the moment
    between Nova marking it and dropping its row) its status DELETED or SOFT_DELETED.
    Heat ends a server's delete on that status, and so does hotplate."""
    from openstack.exceptions import NotFoundException

    try:
        status = compute.get_server(ident).status
    except NotFoundException:
        return True
    return str(status) in ("DELETED", "SOFT_DELETED")


def drift(served: Serving, conn: Any, stack: str) -> tuple[int, dict[str, Any], str]:
    """``hotplate stack drift STACK -f json`` as ``conn``'s user: status, document,
    stderr (the project's own CLI: the openstack CLI has no drift command)."""
    url = f"http://127.0.0.1:{PORT}/v1/{conn.current_project_id}"
    done = subprocess.run(
        [sys.executable, "-m", "hotplate.cli.main", "stack", "drift", stack, "-f", "json",
         "--url", url, "--token", conn.auth_token],
        capture_output=True, text=True, timeout=120)
    document = json.loads(done.stdout) if done.stdout.strip() else {}
    return done.returncode, document, done.stderr


def drift_statuses(report: dict[str, Any]) -> dict[str, str]:
    """A drift report's status of each resource, by name."""
    return {r["resource_name"]: r["drift_status"] for r in report["resources"]}
