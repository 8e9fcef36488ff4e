"""Fixtures of the cloud suites: the project's OpenStack cloud, found by ``locate``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.cloud.heat_fixtures import MadeByHeat, made_by_heat, running_heat_source
from tests.cloud.heat_source import HeatSource
from tests.cloud.locate import Cloud, cloud_or_skip
from tests.cloud.serving import Serving
from tests.cloud.stacks import serve_on_catalog_ports


@pytest.fixture(scope="session")
def cloud() -> Cloud:
    return cloud_or_skip()


@pytest.fixture(scope="session")
def admin_conn(cloud: Cloud) -> Iterator[Any]:
    """An openstacksdk connection as the cloud's admin."""
    conn = cloud.connect(cloud.admin)
    yield conn
    conn.close()


@pytest.fixture(scope="session")
def user_conn(cloud: Cloud) -> Iterator[Any]:
    """An openstacksdk connection as the test user (a member of its project)."""
    conn = cloud.connect()
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def served(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    """hotplate on the catalog's ports in Keystone mode with Heat's trustee, as the test
    user: one server a module, for the suites that drive it with the openstack CLI (a
    module that serves as another user, or configured otherwise, defines its own)."""
    yield from serve_on_catalog_ports(cloud, tmp_path_factory, "serve")


@pytest.fixture(scope="session")
def heat_source(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HeatSource]:
    """Real Heat 27.0.1 on a database, vhost and port of its own, started (a test may
    stop it, as an import requires, and start it again); dropped after the run."""
    yield from running_heat_source(cloud, tmp_path_factory)


@pytest.fixture(scope="module")
def made_by_heat_source(heat_source: HeatSource, admin_conn: Any) -> Iterator[MadeByHeat]:
    """Stacks the module makes with ``heat_source`` (``.make()``); whatever they made
    is deleted afterwards, even after a failure half-way."""
    heat_source.start()
    yield from made_by_heat(heat_source, admin_conn)
