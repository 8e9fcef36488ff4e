"""A stack user project Keystone will not make: the stack fails, as Heat's, no 500.

A real ``hotplate serve --auth keystone`` whose stack domain admin cannot log
in (a wrong password; a domain that does not exist). Heat stores the stack,
then asks for its project; refused, the stack is CREATE_FAILED with
"Authorization failed." (the reason and the stack's event). Here too: the
create is accepted (201), the stack fails with that reason, nothing of it is
left in Keystone, and its delete takes its trust with it.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.cloud.locate import Cloud
from tests.cloud.serving import SERVICE_PASSWORD, Serving, keystone_serve
from tests.cloud.test_keystone_trusts import (
    STACK_DOMAIN,
    TIMEOUT,
    _eventually,
    _extra,
    _login,
    _trusts_of,
)

_HTTP = httpx.Client(timeout=60.0)

TEMPLATE = """heat_template_version: 2021-04-16
resources:
  nothing: {type: OS::Heat::None}
"""

BROKEN = {
    "wrong-password": (f"stack_domain_admin_password = {SERVICE_PASSWORD}\n",
                       "stack_domain_admin_password = not-the-password\n"),
    "missing-domain": (f"stack_user_domain_name = {STACK_DOMAIN}\n",
                       "stack_user_domain_name = hotplate-no-such-domain\n"),
}


@pytest.fixture(params=sorted(BROKEN))
def served(request: pytest.FixtureRequest, cloud: Cloud,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    tmp = Path(tmp_path_factory.mktemp(f"keystone-{request.param}"))
    good, bad = BROKEN[request.param]
    extra = _extra(cloud)
    assert good in extra
    with keystone_serve(cloud, tmp, extra=extra.replace(good, bad)) as serving:
        yield serving


def _stack(served: Serving, token: str, project: str, path: str) -> dict[str, Any]:
    deadline = time.monotonic() + TIMEOUT
    while True:
        resp = _HTTP.get(served.url(project, path), headers={"X-Auth-Token": token})
        assert resp.status_code == 200, resp.text
        stack: dict[str, Any] = resp.json()["stack"]
        if not stack["stack_status"].endswith("IN_PROGRESS"):
            return stack
        assert time.monotonic() < deadline, f"still {stack['stack_status']}"
        time.sleep(0.5)


def test_the_stack_fails_with_heats_reason_and_leaves_nothing(
        served: Serving, cloud: Cloud, admin_conn: Any) -> None:
    token, body = _login(cloud)
    project, user_id = body["project"]["id"], body["user"]["id"]
    before = {t["id"] for t in _trusts_of(admin_conn, user_id)}
    name = f"refused-{uuid.uuid4().hex[:8]}"
    created = _HTTP.post(served.url(project), headers={"X-Auth-Token": token},
                         json={"stack_name": name, "template": TEMPLATE})
    assert created.status_code == 201, created.text
    stack_id = created.json()["stack"]["id"]
    path = f"/stacks/{name}/{stack_id}"
    try:
        stack = _stack(served, token, project, path)
        assert (stack["stack_status"], stack["stack_status_reason"]) == (
            "CREATE_FAILED", "Authorization failed.")
        events = _HTTP.get(served.url(project, f"{path}/events"),
                           headers={"X-Auth-Token": token}).json()["events"]
        assert ("CREATE_FAILED", "Authorization failed.") in [
            (e["resource_status"], e["resource_status_reason"]) for e in events]
        assert not [p for p in admin_conn.identity.projects()
                    if p.name == f"{project}-{stack_id}"[:64]]
        assert "Traceback" not in served.log.read_text()
    finally:
        deleted = _HTTP.delete(served.url(project, path), headers={"X-Auth-Token": token})
        assert deleted.status_code == 204, deleted.text
    _eventually(lambda: {t["id"] for t in _trusts_of(admin_conn, user_id)} <= before,
                "the failed stack's trust outlived it")
    gone = _HTTP.get(served.url(project, path), headers={"X-Auth-Token": token})
    assert gone.status_code == 404 or gone.json()["stack"]["stack_status"] == "DELETE_COMPLETE"
