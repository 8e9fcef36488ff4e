"""The marks that tie a cloud object to the create attempt that made it.

A create retried after its engine died must find what the first try made before
making anything (README, "exactly once"). So each create puts a mark derived from
its attempt token on the object, where the service can search for it again: a tag
(Nova servers, Neutron resources) or a metadata key (Cinder volumes). The marks
are hotplate's own: what shows a resource's live state, compares it with the
template (drift), or writes the user's own tags and metadata leaves them out and
leaves them alone.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["ATTEMPT_METADATA_KEY", "attempt_tag", "is_attempt_tag", "marks_of",
           "metadata_with_mark", "metadata_without_marks", "part_tag", "tags_with_marks",
           "tags_without_marks"]

ATTEMPT_METADATA_KEY = "hotplate-attempt"
"""The metadata key that carries the mark where a service has no tags (Cinder)."""

_TAG = re.compile(r"hotplate-[0-9a-f]{32}")


def attempt_tag(token: str) -> str:
    """The mark of one attempt: short enough for any service's tags (Nova: 60 chars)."""
    return "hotplate-" + hashlib.sha256(token.encode()).hexdigest()[:32]


def part_tag(token: str, part: str) -> str:
    """The mark of one of several objects one attempt makes (a server's ``port-0``): each
    needs a mark of its own, found again by the same retry."""
    return attempt_tag(f"{token}#{part}")


def is_attempt_tag(tag: str) -> bool:
    return _TAG.fullmatch(tag) is not None


def tags_without_marks(tags: Iterable[str] | None) -> list[str]:
    """The user's tags of an object: its tags less hotplate's marks."""
    return [tag for tag in tags or () if not is_attempt_tag(tag)]


def metadata_without_marks(metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    """The user's metadata of an object: its metadata less hotplate's mark."""
    return {k: v for k, v in (metadata or {}).items() if k != ATTEMPT_METADATA_KEY}


def marks_of(tags: Iterable[str] | None) -> list[str]:
    """hotplate's marks among an object's tags."""
    return [tag for tag in tags or () if is_attempt_tag(tag)]


def tags_with_marks(user_tags: Iterable[str] | None, current: Iterable[str] | None,
                    ) -> list[str]:
    """What replaces an object's tags when the user's become ``user_tags``: those, and
    the marks it has now (``current``), which no update removes."""
    return [*tags_without_marks(user_tags), *marks_of(current)]


def metadata_with_mark(user_metadata: Mapping[str, Any] | None,
                       current: Mapping[str, Any] | None) -> dict[str, Any]:
    """What replaces an object's metadata when the user's becomes ``user_metadata``:
    that, and the mark it has now (``current``), which no update removes."""
    found = metadata_without_marks(user_metadata)
    if current and ATTEMPT_METADATA_KEY in current:
        found[ATTEMPT_METADATA_KEY] = current[ATTEMPT_METADATA_KEY]
    return found
