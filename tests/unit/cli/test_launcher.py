"""The launcher's restart back-off (cli/launcher.py, ``restart_delay``)."""

from __future__ import annotations

from hotplate.cli.launcher import FIRST_BACKOFF, MAX_BACKOFF, STABLE_SECS, restart_delay
from hotplate.engine.lease import EXIT_FENCED


def test_deaths_young_double_the_back_off_up_to_its_cap() -> None:
    backoff, delays = FIRST_BACKOFF, []
    for _ in range(10):
        delay, backoff = restart_delay(backoff, 1.0, 1)
        delays.append(delay)
    assert delays[:4] == [0.5, 1.0, 2.0, 4.0]
    assert delays[-1] == MAX_BACKOFF


def test_a_stable_child_resets_the_back_off() -> None:
    assert restart_delay(16.0, STABLE_SECS, -9) == (FIRST_BACKOFF, 2 * FIRST_BACKOFF)


def test_a_fenced_child_is_replaced_without_the_grown_back_off() -> None:
    """A partition fences the slot's engine, the engines started while it lasts die
    young; once it heals, the fenced one's successor must not wait out their back-off."""
    _, grown = restart_delay(8.0, 0.5, 1)
    assert grown == 16.0
    assert restart_delay(grown, 3.0, EXIT_FENCED) == (FIRST_BACKOFF, 2 * FIRST_BACKOFF)
