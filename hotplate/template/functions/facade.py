"""``resource_facade`` and CFN's ``Fn::ResourceFacade``: data of a nested stack's parent.

hotplate runs top-level stacks only, so the argument is checked as Heat
checks it and resolving reports that there is no parent resource.
"""

from __future__ import annotations

from typing import Any, ClassVar

from hotplate.template.context import ResolveContext
from hotplate.template.functions.base import Function, Node, ParseScope, Static, fail_at
from hotplate.template.paths import Path

FACADE_ATTRIBUTES = ("metadata", "deletion_policy", "update_policy")


class ResourceFacade(Function):
    """``resource_facade: metadata | deletion_policy | update_policy``."""

    __slots__ = ("attribute",)
    attributes: ClassVar[tuple[str, ...]] = FACADE_ATTRIBUTES

    def __init__(self, fn_name: str, path: Path, attribute: str) -> None:
        super().__init__(fn_name, path)
        self.attribute = attribute

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        value = args.value if isinstance(args, Static) else None
        if not isinstance(value, str) or value not in cls.attributes:
            fail_at(
                path,
                f'Incorrect arguments to "{fn_name}" should be one of: '
                f"{', '.join(cls.attributes)}",
            )
        return cls(fn_name, path, value)

    def resolve(self, ctx: ResolveContext) -> Any:
        self.fail(
            f'"{self.fn_name}" is not supported for a top-level stack: '
            "it reads the parent resource of a nested stack"
        )


class CfnResourceFacade(ResourceFacade):
    """``Fn::ResourceFacade: Metadata | DeletionPolicy | UpdatePolicy``."""

    __slots__ = ()
    attributes = ("Metadata", "DeletionPolicy", "UpdatePolicy")
