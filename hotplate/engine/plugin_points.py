"""The entry points of the engine's plug points, read once per interpreter path.

Reading the installed distributions' entry points takes tens of milliseconds,
and every engine start asks for four groups (sinks and lifecycle plugins,
Heat's and hotplate's): they are read in one pass and kept until
``sys.path`` changes (a distribution added at run time is then seen).
"""

from __future__ import annotations

import sys
import threading
from importlib.metadata import EntryPoint, entry_points
from typing import Any

__all__ = ["registered"]

_lock = threading.Lock()
_seen: tuple[tuple[str, ...], Any] | None = None


def registered(group: str) -> list[EntryPoint]:
    """The entry points of ``group`` among the installed distributions."""
    global _seen
    path = tuple(sys.path)
    with _lock:
        if _seen is None or _seen[0] != path:
            _seen = (path, entry_points())
        found = _seen[1]
    points: list[EntryPoint] = list(found.select(group=group))
    return points
