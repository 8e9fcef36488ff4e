"""A notification as Heat sends one: what the engine hands to ``ports.Notifier``.

Heat tells the world (Ceilometer, billing, auditing) about each stack state
it writes and each scaling action of a group, through oslo.messaging's
notifier. The names and payloads are a contract with those consumers, so
they are Heat's; the value here is only their envelope, kept free of
oslo.messaging so the engine builds it without importing a broker client.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["Notification", "Priority"]


class Priority(StrEnum):
    """The two priorities Heat uses: errors at ERROR, the rest at its default INFO."""

    INFO = "INFO"
    ERROR = "ERROR"


@dataclass(frozen=True, slots=True)
class Notification:
    """One notification: ``event_type`` is the whole name, ``orchestration.`` included.

    ``context`` is the request context of the stack's owner as a dict (what
    oslo.messaging puts in the envelope's ``_context_*`` keys); ``payload``
    is JSON-safe.
    """

    event_type: str
    priority: Priority
    payload: Mapping[str, Any]
    context: Mapping[str, Any] = field(default_factory=dict)
