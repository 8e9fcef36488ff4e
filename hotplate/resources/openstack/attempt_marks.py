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

__all__ = ["ATTEMPT_METADATA_KEY", "attempt_tag", "is_attempt_tag", "metadata_without_marks",
           "tags_without_marks"]

ATTEMPT_METADATA_KEY = "hotplate-attempt"
"""The metadata key that carries the mark where a service has no tags (Cinder)."""

_TAG = re.compile(r"hotplate-[0-9a-f]{32}")


def attempt_tag(token: str) -> str:
    """The mark of one attempt: short enough for any service's tags (Nova: 60 chars)."""
    return "hotplate-" + hashlib.sha256(token.encode()).hexdigest()[:32]


def is_attempt_tag(tag: str) -> bool:
    return _TAG.fullmatch(tag) is not None


def tags_without_marks(tags: Iterable[str] | None) -> list[str]:
    """The user's tags of an object: its tags less hotplate's marks."""
    return [tag for tag in tags or () if not is_attempt_tag(tag)]


def metadata_without_marks(metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    """The user's metadata of an object: its metadata less hotplate's mark."""
    return {k: v for k, v in (metadata or {}).items() if k != ATTEMPT_METADATA_KEY}
