"""What a plugin's action is told (which try it is) and what its checks answer.

Kept apart from ``Resource`` so that the engine's waiting code and the plugins
share these two small types without the whole plugin base; ``resources.base``
re-exports them, where plugins have always found them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FIRST_TRY", "Attempt", "CheckAgain", "CheckResult"]


@dataclass(frozen=True, slots=True)
class CheckAgain:
    """What a ``check_*_complete`` may answer instead of ``False``: not done yet,
    and not worth asking again for ``after`` seconds (a server that builds for
    minutes, a cloud that says "retry after").

    It is falsy, so code written for Heat's protocol (``if not check(data)``)
    reads it as "not done". The engine asks again after that long rather than
    on its back-off; a cancel, the stack's deadline or a wake-up (``wake_key``)
    still bring the next check sooner.
    """

    after: float

    def __bool__(self) -> bool:
        return False


CheckResult = bool | CheckAgain
"""What ``check_*_complete`` answers: done (True), not yet (False, or CheckAgain)."""


@dataclass(frozen=True, slots=True)
class Attempt:
    """Which try of an action a handler runs, set by the engine before each handle_*.

    ``token`` is the same on every try of one action of one resource in one
    traversal: pass it to a cloud API as its client token (idempotency key),
    so the cloud makes one thing however many engines tried. ``retry`` says
    that an earlier try may have run (its engine died): look before making.
    """

    token: str
    retry: bool = False


FIRST_TRY = Attempt("", False)
"""Before the engine says otherwise (previews, validation): a first try, no token."""
