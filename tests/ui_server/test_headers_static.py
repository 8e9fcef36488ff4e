"""Every ``/ui`` answer carries the security headers; the page's files come only from
its static directory, with their types, and nothing outside it is reachable."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import pytest

from hotplate.ui.headers import CONTENT_SECURITY_POLICY
from tests.ui_server.conftest import INDEX_HTML, InProcess

pytestmark = pytest.mark.timeout(60)


def assert_secured(answer: httpx.Response, *, cached: bool = False) -> None:
    headers = answer.headers
    assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["x-frame-options"] == "DENY"
    if not cached:
        assert headers["cache-control"] == "no-store"


def raw_get(base: str, path: str) -> tuple[int, bytes]:
    """GET ``path`` sent exactly as written (clients fold ``..`` away themselves)."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
                     .encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, data.split(b"\r\n\r\n", 1)[1]


def test_the_shell_and_every_ui_answer_carry_the_headers(in_process: InProcess) -> None:
    client = in_process.client()
    for path in ("/ui", "/ui/"):
        page = client.get(path)
        assert page.status_code == 200 and page.text == INDEX_HTML
        assert page.headers["content-type"] == "text/html; charset=utf-8"
        assert_secured(page)
    session = client.get("/ui/session")
    assert session.status_code == 200
    assert_secured(session)
    for missing in ("/ui/static/nope.js", "/ui/elsewhere", "/ui/static/"):
        answer = client.get(missing)
        assert answer.status_code == 404, missing
        assert_secured(answer)
    refused = client.post("/ui/session", content=b"x", headers={"Content-Type": "text/plain"})
    assert refused.status_code == 415
    assert_secured(refused)
    assert "content-security-policy" not in client.get("/v1/admin/stacks").headers


def test_static_files_have_their_types_and_caching(in_process: InProcess) -> None:
    client = in_process.client()
    expected = {"/ui/static/app.js": "text/javascript; charset=utf-8",
                "/ui/static/app.css": "text/css; charset=utf-8",
                "/ui/static/logo.svg": "image/svg+xml",
                "/ui/static/assets/graph-3fA9x0Qe.js": "text/javascript; charset=utf-8"}
    for path, content_type in expected.items():
        answer = client.get(path)
        assert answer.status_code == 200, path
        assert answer.headers["content-type"] == content_type
        assert_secured(answer, cached=True)
    assert client.get("/ui/static/app.js").headers["cache-control"] == "no-cache"
    assert client.get("/ui/static/assets/graph-3fA9x0Qe.js").headers["cache-control"] == (
        "public, max-age=31536000, immutable")


def test_nothing_outside_the_static_directory(in_process: InProcess, static_dir: Path) -> None:
    (static_dir / "link-out.txt").symlink_to(static_dir.parent / "secret.txt")
    (static_dir / ".hidden").write_text("hidden")
    for path in ("/ui/static/../secret.txt", "/ui/static/%2e%2e/secret.txt",
                 "/ui/static/..%2fsecret.txt", "/ui/static/assets/../../secret.txt",
                 "/ui/static/link-out.txt", "/ui/static/.hidden", "/ui/static/assets",
                 "/ui/static/assets/", "/ui/static//etc/passwd", "/ui/static/%2fetc%2fpasswd",
                 "/ui/static/..\\secret.txt", "/ui/static/app.js%00.css"):
        status, body = raw_get(in_process.base, path)
        assert status == 404, path
        assert b"outside" not in body and b"root:" not in body and b"hidden" not in body


def test_the_ui_can_be_switched_off(tmp_path: Path) -> None:
    from hotplate.api import EngineRpc, create_app
    from hotplate.api.background import BackgroundServer
    from hotplate.app import embedded
    from hotplate.ui.routes import UiOptions

    engine, transport = embedded(f"sqlite:///{tmp_path / 'off.sqlite'}", workers=2)
    app = create_app(EngineRpc(transport, host=engine.deps.host),
                     ui=UiOptions(enabled=False))
    try:
        with BackgroundServer(app) as base, httpx.Client(base_url=base) as client:
            off = client.get("/ui/session")
            assert off.status_code != 200 and "csrf_token" not in off.text
            assert "content-security-policy" not in off.headers
            assert client.get("/v1/admin/stacks").status_code == 200
    finally:
        engine.stop()
        transport.stop()
