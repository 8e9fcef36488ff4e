"""Function names a version reserves but hotplate does not evaluate.

Two kinds, both refused at parse time rather than passed through as data
(a ``digest`` mapping silently sent to a plugin would be far worse):

* ``Removed``: Heat dropped the function from this version; Heat's message,
  when the template is validated (as Heat: a resource left out by its
  condition, or an ``if`` branch not taken, is never validated).
* ``Unsupported``: the version has the function, hotplate does not yet.
  Registering the name keeps the per-version tables complete, so adding the
  function later is one class and one table entry.
"""

from __future__ import annotations

from typing import Any

from hotplate.model.errors import InvalidTemplateVersion, StackValidationFailed
from hotplate.template.context import ResolveContext
from hotplate.template.functions.base import Function, Node, ParseScope
from hotplate.template.paths import Path


class Removed(Function):
    __slots__ = ("args",)

    def __init__(self, fn_name: str, path: Path, args: Node) -> None:
        super().__init__(fn_name, path)
        self.args = args

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        return cls(fn_name, path, args)

    def children(self) -> tuple[Node, ...]:
        return (self.args,)

    def validate(self, scope: Any) -> None:
        raise InvalidTemplateVersion(
            "The template version is invalid: "
            f"The function {self.fn_name} is not supported in this version of HOT.")

    def resolve(self, ctx: ResolveContext) -> Any:
        """Never validated, the call stays the data it was written as (Heat's ``result``)."""
        return {self.fn_name: self.args.resolve(ctx)}


class Unsupported(Function):
    __slots__ = ()

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        raise StackValidationFailed(f'The function "{fn_name}" is not supported yet.', path)
