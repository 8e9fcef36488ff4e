"""Support status of a resource type, property or attribute, as Heat reports it.

Resource-type listings filter on it (``support_status=DEPRECATED``) and
hide HIDDEN entries, so plugins declare it the way Heat's do.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = ["SupportStatus", "Status"]


class Status(StrEnum):
    UNKNOWN = "UNKNOWN"
    SUPPORTED = "SUPPORTED"
    DEPRECATED = "DEPRECATED"  # still works; listings show the message
    UNSUPPORTED = "UNSUPPORTED"
    HIDDEN = "HIDDEN"  # still accepted in templates, left out of listings


@dataclass(frozen=True, slots=True)
class SupportStatus:
    status: Status = Status.SUPPORTED
    version: str | None = None
    message: str | None = None
    previous_status: SupportStatus | None = None
    substitute_class: Any = None
    """The class that stands in for a retired type (Heat's ``substitute_class``): a
    resource whose template moves it from this type to that one is updated in place,
    not replaced. Not shown (Heat does not show it either)."""

    def as_dict(self) -> dict[str, Any]:
        """Heat's ``support_status`` view in resource type schemas."""
        return {
            "status": str(self.status),
            "version": self.version,
            "message": self.message,
            "previous_status": (
                self.previous_status.as_dict() if self.previous_status is not None else None
            ),
        }
