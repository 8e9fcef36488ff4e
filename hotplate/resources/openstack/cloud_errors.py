"""What every service's types need of a failed cloud call: its kind, and Heat's name for it.

Plugins do not import the client layer (they reach the cloud through their
context only), so they tell a failure's kind by the HTTP status it carries
(``status``, set by the client layer's classified errors). A failure is shown
as Heat shows its service client's exception: a class named as that client
names it (``NotFound``, ``NetworkInUseClient``...) that is still an instance
of the client layer's classified kind, so ``except CloudNotFound`` keeps
working wherever the engine reads kinds.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["error_class", "ignoring", "is_conflict", "is_not_found"]

_CLASSES: dict[tuple[str, type, str], type] = {}
_LOCK = threading.Lock()


def is_not_found(exc: BaseException) -> bool:
    """Whether a cloud call failed because the object is not there (404)."""
    return getattr(exc, "status", None) == 404


def is_conflict(exc: BaseException) -> bool:
    """Whether the service refused because of the object's state (409), not a quota."""
    return getattr(exc, "status", None) == 409 and "OverQuota" not in type(exc).__name__


@contextmanager
def ignoring(*kinds: Callable[[BaseException], bool]) -> Iterator[None]:
    """Let a failure of one of these ``kinds`` (``is_not_found``...) pass silently."""
    try:
        yield
    except Exception as exc:
        if not any(kind(exc) for kind in kinds):
            raise


def error_class(name: str, base: type, module: str) -> type:
    """The class ``name`` deriving from ``base`` (a classified kind), made once per
    name, kind and module, so that the same failure is always the same class."""
    key = (name, base, module)
    with _LOCK:
        if key not in _CLASSES:
            _CLASSES[key] = type(name, (base,), {"__module__": module})
        return _CLASSES[key]
