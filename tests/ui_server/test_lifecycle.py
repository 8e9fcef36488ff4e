"""A real ``hotplate serve`` stops promptly with a page's stream open; the stream's
watcher ends with it."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import httpx
import pytest

from tests.ui_server.conftest import serve, wait_templates
from tests.ui_server.sse import Stream

pytestmark = pytest.mark.timeout(120)


def test_sigterm_ends_open_streams_and_the_server(tmp_path: Path) -> None:
    served = serve(tmp_path / "var", "--noauth")
    try:
        client = served.client()
        csrf = client.get("/ui/session").json()["csrf_token"]
        made = client.post("/v1/admin/stacks", headers={"X-CSRF-Token": csrf},
                           json={"stack_name": "open", "template": wait_templates(1, 0)})
        assert made.status_code == 201, made.text
        stack_id = made.json()["stack"]["id"]
        page = Stream(httpx.Client(base_url=served.base, cookies=client.cookies),
                      f"/ui/stream/admin/stacks/{stack_id}").start()
        assert page.status == 200
        page.wait_for(lambda: page.stack_status() is not None)
        asked = time.monotonic()
        served.proc.send_signal(signal.SIGTERM)
        assert served.proc.wait(20) == 0
        assert time.monotonic() - asked < 10
        assert page.ended.wait(5)
        page.stop()
    finally:
        if served.proc.poll() is None:
            served.proc.kill()
            served.proc.wait(10)
        if served.proc.stderr is not None:
            served.proc.stderr.close()
