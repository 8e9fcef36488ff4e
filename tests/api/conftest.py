"""A real API server on a free loopback port: uvicorn in a thread, an embedded engine
on a temporary SQLite database, reached by python-heatclient over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hotplate.api import EngineRpc, create_app
from hotplate.api.background import BackgroundServer
from hotplate.app import Engine, embedded
from hotplate.engine.options import EngineOptions
from hotplate.ports import Transport

LIMITED = EngineOptions(max_resources_per_stack=3, max_template_size=2000,
                        enable_stack_abandon=True, enable_stack_adopt=True)
"""The options of the ``limited`` server: small limits; abandon, export and adopt on."""
LIMITED_BODY_SIZE = 4000


@dataclass
class Api:
    base: str

    @property
    def endpoint(self) -> str:
        return f"{self.base}/v1/admin"

    def client(self) -> Any:
        from heatclient.client import Client

        return Client("1", endpoint=self.endpoint, token="noauth")


@contextmanager
def serving(engine: Engine, transport: Transport, **app_options: Any) -> Iterator[Api]:
    """The API over ``engine`` on a free port; the engine and transport stop afterwards."""
    app = create_app(EngineRpc(transport, host=engine.deps.host), **app_options)
    try:
        with BackgroundServer(app) as base:
            yield Api(base)
    finally:
        engine.stop()
        transport.stop()


@pytest.fixture(scope="session")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    db = Path(tmp_path_factory.mktemp("api")) / "hotplate.sqlite"
    with serving(*embedded(f"sqlite:///{db}", workers=8)) as served:
        yield served


@pytest.fixture
def hc(api: Api) -> Any:
    return api.client()


@pytest.fixture(scope="session")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """A second server whose engine has small limits and abandon enabled."""
    db = Path(tmp_path_factory.mktemp("limited")) / "hotplate.sqlite"
    with serving(*embedded(f"sqlite:///{db}", workers=4, options=LIMITED),
                 max_json_body_size=LIMITED_BODY_SIZE) as served:
        yield served
