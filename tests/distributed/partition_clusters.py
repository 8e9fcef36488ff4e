"""The clusters the partition tests share (test_partitions.py, test_netns_partitions.py).

One cluster per database backend for the whole session: engine command e2
on a database and a vhost of their own, with the short timers below. Each
test module starts its own victim (e1: through proxies, or in a network
namespace) and removes it when it ends, so the next module finds only e2
and the stacks the earlier ones left, all settled. Making a cluster (a
database migrated, a vhost, an engine started) costs seconds on a loaded
machine; made once per backend, it is paid twice, not four times.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.distributed.broker_proxy import private_vhost
from tests.distributed.engine_cluster import Cluster, private_database
from tests.real_services import MYSQL, POSTGRES, RABBIT, url_or_skip

DATABASES = {"postgresql": POSTGRES, "mariadb": MYSQL}

PERIOD, LIFE_CHECK = 2, 1
"""periodic_interval and engine_life_check_timeout: an engine's lease is 2P - min(L, P/2)
= 3 s."""
BOUND = 3 * PERIOD + LIFE_CHECK
"""Seconds from a cut within which work resumes: the same bound as for a killed engine."""


@contextlib.contextmanager
def partition_cluster(backend: str, root: Path) -> Iterator[Cluster]:
    """Engine command e2 on a database of ``backend``'s and a vhost of their own, with
    the short timers (the tests start their victims)."""
    server, rabbit = url_or_skip(DATABASES[backend]), url_or_skip(RABBIT)
    with private_database(server, "hotplate_partitions") as db_url, \
            private_vhost(rabbit, "hotplate-partitions") as broker:
        made = Cluster(db_url, broker, broker, root)
        made.env.update(HOTPLATE_PERIODIC_INTERVAL=str(PERIOD),
                        HOTPLATE_ENGINE_LIFE_CHECK_TIMEOUT=str(LIFE_CHECK))
        try:
            made.start_all("e2")
            yield made
        finally:
            made.stop()


@contextlib.contextmanager
def shared_clusters(root: Callable[[str], Path]) -> Iterator[Callable[[str], Cluster]]:
    """``get(backend)``: that backend's cluster, made on first use; all stopped at the end.
    ``root(name)`` makes a directory for a cluster's logs."""
    made: dict[str, Cluster] = {}
    with contextlib.ExitStack() as stack:
        def get(backend: str) -> Cluster:
            if backend not in made:
                made[backend] = stack.enter_context(
                    partition_cluster(backend, root(f"partitions-{backend}")))
            return made[backend]

        yield get
