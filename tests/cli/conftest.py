"""A real API server on a free loopback port (uvicorn in a thread, an embedded engine
on a temporary SQLite database), and the ``hotplate`` command run against it as a
separate process, with its own HOME and only the settings each test gives it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from hotplate.api import EngineRpc, create_app
from hotplate.api.background import BackgroundServer
from hotplate.app import embedded

POLL = "0.1"


@dataclass
class Server:
    base: str
    tokens: dict[str, str] = field(default_factory=dict)

    def endpoint(self, project: str = "admin") -> str:
        return f"{self.base}/v1/{project}"


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str


@dataclass
class Cli:
    """``cli("stack", "list")`` runs ``hotplate stack list`` with ``env`` set."""

    home: Path
    env: dict[str, str]

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "hotplate.cli.main", *args]

    def environ(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        base = {k: v for k, v in os.environ.items() if not k.startswith("HOTPLATE_")}
        return {**base, "HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / "config"),
                **self.env, **(extra or {})}

    def __call__(self, *args: str, env: Mapping[str, str] | None = None,
                 timeout: float = 60) -> Result:
        done = subprocess.run(self.command(*args), env=self.environ(env), text=True,
                              capture_output=True, timeout=timeout, cwd=self.home)
        assert "Traceback" not in done.stderr, done.stderr
        return Result(done.returncode, done.stdout, done.stderr)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Heat's noauth mode: every caller is an admin of project admin."""
    db = Path(tmp_path_factory.mktemp("cli")) / "hotplate.sqlite"
    engine, transport = embedded(f"sqlite:///{db}", workers=8)
    app = create_app(EngineRpc(transport, host=engine.deps.host))
    try:
        with BackgroundServer(app) as base:
            yield Server(base)
    finally:
        engine.stop()
        transport.stop()


@pytest.fixture
def cli(tmp_path: Path, server: Server) -> Cli:
    home = tmp_path / "home"
    home.mkdir()
    return Cli(home, {"HOTPLATE_URL": server.endpoint()})
