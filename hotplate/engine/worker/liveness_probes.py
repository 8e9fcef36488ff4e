"""Asking several engines at once whether they are alive (a recovery round's probes)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from hotplate.model.ids import EngineId

PROBES_AT_ONCE = 8
"""Liveness probes a recovery round has in flight at once."""


def probe_all(alive: Callable[[EngineId], bool], engines: list[EngineId]) -> list[bool]:
    """``alive(engine)`` for each engine, asked of all at once: a dead engine answers
    nothing and costs a whole engine_life_check_timeout, and several dead ones asked in
    turn (a restarted engine meets every row its dead predecessors left) would hold every
    takeover of the round up that many times as long."""
    if len(engines) <= 1:
        return [alive(e) for e in engines]
    with ThreadPoolExecutor(max_workers=min(len(engines), PROBES_AT_ONCE),
                            thread_name_prefix="hotplate-probe") as pool:
        return list(pool.map(alive, engines))
