"""Names already looked up, for one engine: Heat's ``[resource_finder_cache]``.

With oslo.cache on (``[cache] enabled``; off by default, devstack turns it on)
Heat memoises its finders, an image, a flavor or a Neutron object by name or id
to its id, per project for ``[resource_finder_cache] expiration_time`` seconds
(3600). The same here, in the engine's memory, keyed by project, region, kind
and the value looked up: a group of a hundred servers booting one image by name
asks Glance once instead of once per member (and again before each update's
diff). What Heat keeps, and only that::

    kept        image, flavor, network, subnet, port, router, security_group,
                subnetpool, address_scope, qos_policy    (Heat's memoised finders)
    not kept    a miss, an ambiguous name, any failure   (a name made after a miss
                                                          is found at once)
                every other kind (volume, keypair, server, keystone's...)
                callers with no project (the standalone mode)

Beyond Heat, an object of a kept kind this engine makes is kept as found by its id
(``remember``): the stack's own port, given to its server, is not looked up again.
The price is Heat's too: within the TTL a renamed or deleted object still
resolves to the id it had, and the call handed that id fails at its service.
Concurrent lookups of one key wait for the first (dogpile's lock does this for
Heat) rather than all asking the cloud at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from hotplate.single_flight import LruCache

__all__ = ["CACHED_KINDS", "FinderCache", "Key"]

CACHED_KINDS = frozenset(
    {
        "image",
        "flavor",
        "network",
        "subnet",
        "port",
        "router",
        "security_group",
        "subnetpool",
        "address_scope",
        "qos_policy",
    }
)
"""The finder kinds Heat memoises (glance's, nova's flavor, neutronclient's by name or id)."""

MAX_ENTRIES = 10_000
"""Past this many entries, the least recently used is dropped."""

Key = tuple[str, str, str]
"""(project@region, kind, value looked up)."""


class FinderCache:
    """Ids found by name or id, each kept ``ttl`` seconds; ``ttl`` None keeps none."""

    def __init__(
        self, ttl: float | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl = ttl
        self._ids: LruCache[Key, str] = LruCache(MAX_ENTRIES, ttl=ttl, clock=clock)

    def lookup(self, scope: str | None, kind: str, value: str, find: Callable[[], str]) -> str:
        """The id ``find()`` gives, kept for ``scope`` (the caller's project@region)
        when the kind is one Heat memoises; a failure of ``find`` is raised, not kept."""
        if self.ttl is None or scope is None or kind not in CACHED_KINDS:
            return find()
        return self._ids.get_or_load((scope, kind, value), find)

    def remember(self, scope: str | None, kind: str, ident: str) -> None:
        """An object this engine has just made: its id is found as itself, as a lookup
        would have found it (a server given a port of its stack asks Neutron nothing)."""
        if self.ttl is not None and scope is not None and kind in CACHED_KINDS:
            self._ids.put((scope, kind, ident), ident)
