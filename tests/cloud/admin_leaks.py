"""What a test of the admin's types left behind: Keystone, Nova and Glance objects.

``admin_leaks`` lists, as the cloud's admin, the Keystone domains, projects,
users, groups, roles, regions, services and endpoints, the flavors and host
aggregates, and the images whose name (a region's id, a service's type, the
last segment of an endpoint's URL) starts with the test module's
``LEAK_PREFIX``, before a test and after it; whatever is new afterwards fails
the test and is deleted, so that the cloud stays as it was found (endpoints
before services and regions, users and groups before projects, a domain
disabled before its delete). Objects of other suites never carry the prefix,
so they are never counted nor touched.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import suppress
from typing import Any

import pytest

KINDS: tuple[str, ...] = ("endpoint", "service", "region", "user", "group", "role", "project",
                          "domain", "flavor", "aggregate", "image")
"""Each kind, in the order to delete."""


def _listers(conn: Any) -> dict[str, Callable[[], list[tuple[str, str]]]]:
    identity = conn.identity

    def named(items: Any) -> list[tuple[str, str]]:
        return [(str(i.id), str(i.name or "")) for i in items]

    return {
        "endpoint": lambda: [(str(e.id), str(e.url or "").rpartition("/")[2])
                             for e in identity.endpoints()],
        "service": lambda: [(str(s.id), str(s.type or "")) for s in identity.services()],
        "region": lambda: [(str(r.id), str(r.id)) for r in identity.regions()],
        "user": lambda: named(identity.users()),
        "group": lambda: named(identity.groups()),
        "role": lambda: named(identity.roles()),
        "project": lambda: named(identity.projects()),
        "domain": lambda: named(identity.domains()),
        "flavor": lambda: named(conn.compute.flavors(is_public=None)),
        "aggregate": lambda: named(conn.compute.aggregates()),
        "image": lambda: named(conn.image.images()),
    }


def snapshot(conn: Any, prefix: str) -> dict[str, set[str]]:
    return {kind: {ident for ident, name in lister() if name.startswith(prefix)}
            for kind, lister in _listers(conn).items()}


def _delete(conn: Any, kind: str, ident: str) -> None:
    identity = conn.identity
    with suppress(Exception):
        if kind == "domain":
            identity.update_domain(ident, is_enabled=False)
            identity.delete_domain(ident)
        elif kind == "aggregate":
            aggregate = conn.compute.get_aggregate(ident)
            for host in aggregate.hosts or []:
                conn.compute.remove_host_from_aggregate(ident, host)
            conn.compute.delete_aggregate(ident)
        elif kind == "flavor":
            conn.compute.delete_flavor(ident)
        elif kind == "image":
            conn.image.update_image(ident, is_protected=False)
            conn.image.delete_image(ident)
        else:
            getattr(identity, f"delete_{kind}")(ident)


@pytest.fixture
def admin_leaks(admin_conn: Any, request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails the test if it leaves an object named with the module's ``LEAK_PREFIX``
    (and deletes it); a test that keeps one on purpose (Retain) deletes it itself."""
    prefix = str(request.module.LEAK_PREFIX)
    before = snapshot(admin_conn, prefix)
    yield
    after = snapshot(admin_conn, prefix)
    left = {kind: after[kind] - before[kind] for kind in KINDS if after[kind] - before[kind]}
    for kind in KINDS:
        for ident in sorted(left.get(kind, ())):
            _delete(admin_conn, kind, ident)
    if left:
        pytest.fail(f"admin objects left behind: {left}")
