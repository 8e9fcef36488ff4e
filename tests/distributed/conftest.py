"""A real broker and a real database server for the scale-out tests.

HOTPLATE_TEST_RABBIT_URL names the RabbitMQ server and
HOTPLATE_TEST_POSTGRES_URL the PostgreSQL server; unset, the standard local
ports are probed (5672, 5432), and set empty they turn these tests off
(tests/real_services.py); without either server they skip. Each session
gets a virtual host of its own when ``rabbitmqctl`` can make one (deleted
afterwards), so queues left by another run never reach these engines, and a
database of its own, created fresh.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.distributed.broker_proxy import private_vhost
from tests.distributed.databases import fresh_postgres_database
from tests.distributed.engine_cluster import Cluster
from tests.distributed.partition_clusters import shared_clusters
from tests.real_services import POSTGRES, RABBIT, url_or_skip


@pytest.fixture(scope="session")
def broker_url() -> Iterator[str]:
    with private_vhost(url_or_skip(RABBIT), "hotplate-test") as url:
        yield url


@pytest.fixture(scope="session")
def server_db_url() -> str:
    """A PostgreSQL database of this session's, migrated."""
    return fresh_postgres_database(url_or_skip(POSTGRES), "hotplate_distributed")


@pytest.fixture(scope="session")
def partition_clusters(tmp_path_factory: pytest.TempPathFactory,
                       ) -> Iterator[Callable[[str], Cluster]]:
    """The partition tests' clusters, one per database backend (partition_clusters.py)."""
    with shared_clusters(tmp_path_factory.mktemp) as get:
        yield get
