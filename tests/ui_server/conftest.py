"""Servers for the web view's server side: real ``hotplate serve`` processes on a
temporary SQLite database (tokens made in that database), and in-process apps
over an embedded engine where a test counts what the API asks the engine."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from hotplate.api import EngineRpc, create_app
from hotplate.api.background import BackgroundServer, free_port
from hotplate.app import embedded
from hotplate.db.auth_store import AuthStore
from hotplate.db.engine import make_engine
from hotplate.ui.routes import UiOptions
from hotplate.ui.session import SessionCodec, derive_key
from tests.api.helpers import wait_until_serving

SESSION_KEY = "a shared secret of the web view's tests"
OPEN: list[httpx.Client] = []
"""The clients a test made, closed after it."""


def client(base: str) -> httpx.Client:
    made = httpx.Client(base_url=base, timeout=30)
    OPEN.append(made)
    return made


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    yield
    while OPEN:
        OPEN.pop().close()

INDEX_HTML = ('<!doctype html><html lang="en"><head><title>hotplate</title>'
              '<link rel="stylesheet" href="/ui/static/app.css">'
              '<script src="/ui/static/app.js" defer></script></head><body></body></html>')


def wait_templates(n: int, wait_secs: float) -> dict[str, Any]:
    """A stack of ``n`` TestResources in a chain, each taking ``wait_secs``: its events
    come over time, in a known order."""
    resources: dict[str, Any] = {}
    for i in range(n):
        res: dict[str, Any] = {"type": "OS::Heat::TestResource",
                               "properties": {"value": f"v{i}", "wait_secs": wait_secs}}
        if i:
            res["depends_on"] = [f"r{i - 1}"]
        resources[f"r{i}"] = res
    return {"heat_template_version": "2015-10-15", "resources": resources}


@dataclass
class Served:
    """One ``hotplate serve``: its base URL, its database, its process."""

    base: str
    db_url: str
    proc: subprocess.Popen[str]
    stores: list[AuthStore] = field(default_factory=list)

    def token(self, project: str, role: str, *, expires_at: datetime | None = None) -> str:
        if not self.stores:
            self.stores.append(AuthStore(make_engine(self.db_url, pool_size=1)))
        return self.stores[0].create_token(project, role, expires_at=expires_at)

    def revoke(self, token: str) -> None:
        assert self.stores[0].revoke_token(token)

    def client(self) -> httpx.Client:
        return client(self.base)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
            raise


def serve(data_dir: Path, *args: str, env: dict[str, str] | None = None) -> Served:
    """Start ``hotplate serve`` on a free port with ``args`` and wait until it answers."""
    port = free_port()
    environ = {**os.environ, "HOTPLATE_UI_SESSION_KEY": SESSION_KEY, **(env or {})}
    environ.pop("HOTPLATE_DB_URL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "hotplate.cli.main", "serve", "--port", str(port),
         "--cfn-port", "0", "--data-dir", str(data_dir), *args],
        env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    wait_until_serving(f"{base}/", proc, timeout=60)
    return Served(base, f"sqlite:///{data_dir / 'hotplate.sqlite'}", proc)


@pytest.fixture(scope="module")
def token_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``hotplate serve`` in its default mode (hotplate's tokens), sealing sessions
    with SESSION_KEY."""
    served = serve(tmp_path_factory.mktemp("ui-token") / "var")
    try:
        yield served
    finally:
        served.stop()
        if served.proc.stderr is not None:
            served.proc.stderr.close()


def codec() -> SessionCodec:
    """The codec of a server configured with SESSION_KEY."""
    return SessionCodec(derive_key(SESSION_KEY))


@dataclass
class InProcess:
    """An app over an embedded engine, served on loopback by uvicorn in a thread."""

    base: str
    app: Any

    def client(self) -> httpx.Client:
        return client(self.base)


@pytest.fixture
def static_dir(tmp_path: Path) -> Path:
    """A built page's files as the front end's build lays them out (a stand-in shell)."""
    static = tmp_path / "static"
    (static / "assets").mkdir(parents=True)
    (static / "index.html").write_text(INDEX_HTML)
    (static / "app.js").write_text("document.title = 'hotplate';\n")
    (static / "app.css").write_text("body { margin: 0 }\n")
    (static / "assets" / "graph-3fA9x0Qe.js").write_text("export const g = 1;\n")
    (static / "logo.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    (tmp_path / "secret.txt").write_text("outside the static directory")
    return static


@pytest.fixture
def in_process(tmp_path: Path, static_dir: Path) -> Iterator[InProcess]:
    """A noauth app over an embedded engine, its page files from ``static_dir``."""
    engine, transport = embedded(f"sqlite:///{tmp_path / 'hotplate.sqlite'}", workers=8)
    app = create_app(EngineRpc(transport, host=engine.deps.host),
                     ui=UiOptions(codec=codec(), static_dir=static_dir))
    try:
        with BackgroundServer(app) as base:
            yield InProcess(base, app)
    finally:
        engine.stop()
        transport.stop()
