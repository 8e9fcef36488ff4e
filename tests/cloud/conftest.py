"""Fixtures of the cloud suites: the project's OpenStack cloud, found by ``locate``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.cloud.locate import Cloud, cloud_or_skip


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
