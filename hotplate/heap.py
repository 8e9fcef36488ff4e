"""A server's garbage collector, set for a server's heap (``hotplate serve``,
``hotplate api`` and ``hotplate engine`` processes, once started).

A listing of 1,000 resources builds some 60,000 dicts, lists and strings
(the engine's rows and views, the reply read back, the API's views). With
CPython's default thresholds (700, 10, 10) that is about 85 young
collections per request, and every few requests a full one, which walks
every object the process holds: on a server that has loaded its plugins and
cached a stack of 1,000 resources, 180,000 objects and some 100 ms, a third
of the listing's time on average and all of its slow tail.

So, once the server is up: what was loaded by then (modules, plugin
registries, the engine's setup) is collected once and frozen, never walked
again (``gc.freeze``), and the young generation is collected every
``YOUNG_THRESHOLD`` allocations rather than 700. Cycles are still
collected; a server just pays for it less often.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000
"""Allocations (less deallocations) between two collections of the young generation."""

__all__ = ["YOUNG_THRESHOLD", "settle"]


def settle() -> None:
    """Collect, freeze what survives, and raise the young generation's threshold
    (never lowering one already set higher)."""
    gc.collect()
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_THRESHOLD), middle, old)
