"""``resource_facade``: data of the parent resource of a nested stack.

hotplate runs top-level stacks only, so the argument is checked as Heat
checks it and resolving reports that there is no parent resource.
"""

from __future__ import annotations

from typing import Any

from hotplate.template.context import ResolveContext
from hotplate.template.functions.base import Function, Node, ParseScope, Static, fail_at
from hotplate.template.paths import Path

FACADE_ATTRIBUTES = ("metadata", "deletion_policy", "update_policy")


class ResourceFacade(Function):
    """``resource_facade: metadata | deletion_policy | update_policy``."""

    __slots__ = ("attribute",)

    def __init__(self, fn_name: str, path: Path, attribute: str) -> None:
        super().__init__(fn_name, path)
        self.attribute = attribute

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        value = args.value if isinstance(args, Static) else None
        if value not in FACADE_ATTRIBUTES:
            fail_at(
                path,
                f'Incorrect arguments to "{fn_name}" should be one of: '
                f"{', '.join(FACADE_ATTRIBUTES)}",
            )
        return cls(fn_name, path, value)

    def resolve(self, ctx: ResolveContext) -> Any:
        self.fail(
            f'"{self.fn_name}" is not supported for a top-level stack: '
            "it reads the parent resource of a nested stack"
        )
