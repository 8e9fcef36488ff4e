"""``resource_facade`` and CFN's ``Fn::ResourceFacade``: data of a nested stack's parent.

The engine hands a nested stack its parent resource's metadata and policies
as the ``OS::resource_facade`` value of its resolve context; a top-level
stack has none, and resolving there is an error, as in Heat.
"""

from __future__ import annotations

from typing import Any, ClassVar

from hotplate.template.context import ResolveContext
from hotplate.template.functions.base import Function, Node, ParseScope, Static, fail_at
from hotplate.template.paths import Path

FACADE_ATTRIBUTES = ("metadata", "deletion_policy", "update_policy")
FACADE_PARAMETER = "OS::resource_facade"
_KEYS = {"Metadata": "metadata", "DeletionPolicy": "deletion_policy",
         "UpdatePolicy": "update_policy"}


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
        try:
            facade = ctx.parameter(FACADE_PARAMETER)
        except KeyError:
            facade = None
        if not isinstance(facade, dict):
            self.fail(
                f'"{self.fn_name}" is not supported for a top-level stack: '
                "it reads the parent resource of a nested stack"
            )
        return facade.get(_KEYS.get(self.attribute, self.attribute))


class CfnResourceFacade(ResourceFacade):
    """``Fn::ResourceFacade: Metadata | DeletionPolicy | UpdatePolicy``."""

    __slots__ = ()
    attributes = ("Metadata", "DeletionPolicy", "UpdatePolicy")
