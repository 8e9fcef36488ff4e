"""The web view in a real browser: a ``hotplate serve`` subprocess (token auth) and
Debian's Chromium driven by Playwright, logged in through the page's own form.

Without /usr/bin/chromium, or without Playwright's Python package, or in a build whose
API does not serve ``/ui`` yet, the tests skip and say why.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from hotplate.api.background import free_port

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
AXE = REPO / "ui" / "node_modules" / "axe-core" / "axe.min.js"
SCREENSHOTS = REPO / "var" / "ui-screenshots"
RECORDER = Path(__file__).with_name("recorder.js")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
"""Without the networking flags Chromium keeps calling home, which this machine refuses."""


@dataclass
class UiServer:
    base: str
    admin_token: str
    reader_token: str
    log: Path

    @property
    def endpoint(self) -> str:
        return f"{self.base}/v1/admin"

    def heat(self, token: str | None = None) -> Any:
        """python-heatclient on the server's API, as the admin by default."""
        from heatclient.client import Client

        return Client("1", endpoint=self.endpoint, token=token or self.admin_token)

    def log_tail(self) -> str:
        return self.log.read_text()[-4000:] if self.log.exists() else ""


def _hotplate(*args: str) -> list[str]:
    return [sys.executable, "-m", "hotplate.cli.main", *args]


def _token(data: Path, role: str) -> str:
    made = subprocess.run(_hotplate("token", "create", "--project", "admin", "--role", role,
                                    "--data-dir", str(data)),
                          capture_output=True, text=True, timeout=120, check=True)
    return made.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="package")
def ui_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    if importlib.util.find_spec("hotplate.ui.session") is None:
        pytest.skip("this build's API does not serve the web view (no hotplate.ui.session)")
    work = tmp_path_factory.mktemp("ui-server")
    data = work / "var"
    admin, reader = _token(data, "admin"), _token(data, "reader")
    port = free_port()
    log = work / "serve.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(_hotplate("serve", "--port", str(port), "--data-dir", str(data)),
                                stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                cwd=work)
    server = UiServer(f"http://127.0.0.1:{port}", admin, reader, log)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{server.base}/ui/session", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, f"hotplate serve ended:\n{server.log_tail()}"
                assert time.monotonic() < deadline, \
                    f"hotplate serve did not start:\n{server.log_tail()}"
                time.sleep(0.1)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium under Playwright's sync driver; the test skips, saying why,
    without the browser or the package."""
    if not CHROMIUM.exists():
        pytest.skip(f"no browser: {CHROMIUM} is missing (Debian's chromium package installs it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright's Python package is not installed (the test extra has it)")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                                          headless=True)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """Playwright's sync driver keeps an event loop running in the main thread while it
    lives: it ends with this package's tests, so the tests after them can run their own."""
    with chromium() as launched:
        yield launched


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    """A fresh browser profile (no cookies) with the recorder of node classes and of any
    Content-Security-Policy violation installed before the page's own script runs."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 950})
    ctx.add_init_script(path=str(RECORDER))
    if AXE.exists():
        ctx.add_init_script(path=str(AXE))
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture
def page(context: Any) -> Any:
    page = context.new_page()
    page.set_default_timeout(20_000)
    return page


def shot(page: Any, name: str) -> Path:
    """A screenshot kept under var/ui-screenshots (the CI keeps it as an artefact)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
