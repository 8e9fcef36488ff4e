"""A stack's canonical ``{name}/{id}``: where its routes live on the API."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote


def segment(value: str) -> str:
    """One URL path segment: everything quoted, ``/`` included."""
    return quote(value, safe="")


@dataclass(frozen=True)
class StackRef:
    """A stack's name and id, as the lookup's ``Location`` names them."""

    name: str
    id: str

    @property
    def path(self) -> str:
        return f"/stacks/{segment(self.name)}/{segment(self.id)}"
