"""Function names a version reserves but hotplate does not evaluate.

Two kinds, both refused at parse time rather than passed through as data
(a ``digest`` mapping silently sent to a plugin would be far worse):

* ``Removed``: Heat dropped the function from this version; Heat's message.
* ``Unsupported``: the version has the function, hotplate does not yet.
  Registering the name keeps the per-version tables complete, so adding the
  function later is one class and one table entry.
"""

from __future__ import annotations

from hotplate.model.errors import InvalidTemplateVersion, StackValidationFailed
from hotplate.template.functions.base import Function, Node, ParseScope
from hotplate.template.paths import Path


class Removed(Function):
    __slots__ = ()

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        raise InvalidTemplateVersion(
            "The template version is invalid: "
            f"The function {fn_name} is not supported in this version of HOT.",
            path,
        )


class Unsupported(Function):
    __slots__ = ()

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        raise StackValidationFailed(f'The function "{fn_name}" is not supported yet.', path)
