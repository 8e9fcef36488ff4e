"""A recovery round asks every silent engine at once (worker/recovery.py, ``probe_all``)."""

from __future__ import annotations

import time

from hotplate.engine.worker.liveness_probes import probe_all
from hotplate.model.ids import EngineId

LIFE_CHECK = 0.3


def _alive(engine: EngineId) -> bool:
    """A dead engine answers nothing: its probe takes the whole life check."""
    if engine.startswith("dead"):
        time.sleep(LIFE_CHECK)
        return False
    return True


def test_dead_engines_cost_one_life_check_together_and_answers_keep_their_order() -> None:
    engines = [EngineId(n) for n in ("dead-1", "live-1", "dead-2", "dead-3", "dead-4")]
    started = time.monotonic()
    assert probe_all(_alive, engines) == [False, True, False, False, False]
    assert time.monotonic() - started < 3 * LIFE_CHECK


def test_one_or_none_is_asked_in_the_round_itself() -> None:
    assert probe_all(_alive, []) == []
    assert probe_all(_alive, [EngineId("live-1")]) == [True]
