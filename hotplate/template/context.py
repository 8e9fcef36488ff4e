"""What resolving a template needs from the world, as one small Protocol.

The template never reaches into a store or a stack: the engine hands it a
context that knows parameter values and what finished resources reported.
"""

from __future__ import annotations

from typing import Any, Protocol


class ResolveContext(Protocol):
    def parameter(self, name: str) -> Any:
        """A validated parameter value, pseudo parameters included (``OS::stack_id``...).

        Raises KeyError for a name it does not know.
        """
        ...

    def resource_reference(self, name: str) -> str | None:
        """``get_resource``: the resource's reference id; None if not created yet."""
        ...

    def resource_attribute(self, name: str, attribute: str) -> Any:
        """``get_attr``: the whole attribute value (the template applies any path).

        ``attribute`` is ``ALL_ATTRIBUTES`` for ``get_attr: [name]``, which asks
        for a mapping of every attribute.
        """
        ...
