"""Functions computed from their whole resolved argument: one base, many small subclasses.

Each subclass checks, in Heat's three phases, what Heat checks in each:
the argument's shape when parsed (``check``), what Heat's ``validate``
checks before a create (``validate``), and the rest when computing the
value from the resolved argument (``compute``). All are pure, so calls
with literal arguments that validate are folded to their value when the
template is parsed.
"""

from __future__ import annotations

from typing import Any

from hotplate.template.context import ResolveContext
from hotplate.template.functions.base import Function, Node, ParseScope, fold
from hotplate.template.paths import Path


class WholeArgs(Function):
    """A call whose value is ``compute(resolved arguments)``."""

    __slots__ = ("args",)
    pure = True

    def __init__(self, fn_name: str, path: Path, args: Node) -> None:
        super().__init__(fn_name, path)
        self.args = args

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        node = cls(fn_name, path, args)
        node.check(args)
        return fold(node)

    def check(self, args: Node) -> None:
        """Refuse, at parse time, arguments whose literal shape is wrong."""

    def children(self) -> tuple[Node, ...]:
        return (self.args,)

    def resolve(self, ctx: ResolveContext) -> Any:
        return self.compute(self.args.resolve(ctx))

    def compute(self, args: Any) -> Any:
        raise NotImplementedError
