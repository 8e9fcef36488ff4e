"""Partitions the kernel sees: an engine in a network namespace (netns.py) whose link a
packet filter cuts, on PostgreSQL and on MariaDB.

Across partition_proxy.py the kernels keep acknowledging; here nothing
crosses, so the cut engine's own TCP_USER_TIMEOUT and keepalives give up on
its connections, and the servers' give up on theirs (db/session_limits.py).
The engine must still fence itself before its work is taken over, within
the same bound, while reads and writes through the other engine go on.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator

import pytest

from tests.distributed import netns
from tests.distributed.engine_cluster import Cluster
from tests.distributed.test_partitions import (
    Reads,
    Writes,
    _cut_off,
    _e1_working,
)

pytestmark = pytest.mark.timeout(180)

WHY_NOT = netns.unavailable()


@pytest.fixture(scope="module", params=["postgresql", "mariadb"])
def inside(request: pytest.FixtureRequest, partition_clusters: Callable[[str], Cluster],
           ) -> Iterator[tuple[Cluster, netns.Namespace]]:
    """A cluster (shared with test_partitions.py) whose engine command e1 runs in a
    namespace of its own, for the module's tests on it."""
    if WHY_NOT is not None:
        pytest.skip(f"no network namespace here: {WHY_NOT}")
    cluster = partition_clusters(request.param)
    with netns.namespace() as ns:
        try:
            cluster.start("e1", prefix=ns.command(()),
                          HOTPLATE_DB_URL=ns.url(cluster.db_url),
                          HOTPLATE_TRANSPORT_URL=ns.url(cluster.env["HOTPLATE_TRANSPORT_URL"]))
            yield cluster, ns
        finally:
            ns.heal()
            cluster.commands["e1"].destroy()


def test_an_engine_whose_link_is_cut_fences_itself_before_its_work_is_taken_over(
        inside: tuple[Cluster, netns.Namespace]) -> None:
    cluster, ns = inside
    sid, victim = _e1_working(cluster, "netns")
    command = cluster.commands["e1"]
    pid, announced = command.current.pid, len(command.children)
    with Reads(cluster) as reads, Writes(cluster, "netns-w") as writes:
        cut = time.time()
        ns.cut()
        _cut_off(cluster, "the link (kernel drops)", sid, victim, pid, cut, ns.heal)
    reads.check("netns cut")
    writes.check("netns cut")
    stack = cluster.settle(sid, 60)
    assert cluster.state(sid) == "CREATE_COMPLETE", stack.status_reason
    cluster.assert_made_once(sid, 6)
    assert cluster.locks_of(sid) == {}
    assert "fenced itself" in command.log_tail(50000)
    command.child(after=announced, timeout=30)  # healed, its parent started another
    cluster.assert_no_dead_locks()
    print(f"netns cut on {cluster.db_url.split(':')[0]}", file=sys.stderr)
