"""The parsed form of a template snippet: a tree of nodes, each able to resolve itself.

A snippet is parsed once, when the template is parsed: plain data becomes
``Static``, containers holding functions become ``MapNode``/``ListNode``, and
a one-key mapping whose key is a function of the template's version becomes
that function's node. Resolving a resource's properties then walks only that
resource's tree; nothing rescans the template, and argument errors have
already been reported at parse time with their path.

::

    Node
    ├── Static            data without functions (copied on resolve)
    ├── MapNode           a mapping with functions somewhere inside
    ├── ListNode          a list with functions somewhere inside
    └── Function          one call: get_param, get_attr, str_replace, ...

A ``Function`` subclass declares what it reads (``resources_needed``,
``attributes_read``) so that dependencies and the attributes a finished
resource must report are known without resolving anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, NoReturn

from hotplate.model.errors import StackValidationFailed
from hotplate.template.context import ResolveContext
from hotplate.template.document import copy_data
from hotplate.template.paths import Path, index_path


class _Omitted:
    """What a nullable ``if`` without a false branch resolves to: no value at all."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "OMITTED"


OMITTED: Any = _Omitted()
"""Dropped from the mapping or list holding it; None anywhere else (Heat's Ellipsis)."""


def present(value: Any) -> Any:
    """``value``, or None when a nullable ``if`` left it out."""
    return None if value is OMITTED else value


class Node:
    """A parsed snippet. Immutable and shareable across threads."""

    __slots__ = ()
    is_static: ClassVar[bool] = False

    def resolve(self, ctx: ResolveContext) -> Any:
        """The snippet's value now: fresh containers, safe for the caller to mutate."""
        raise NotImplementedError

    def children(self) -> tuple[Node, ...]:
        """Nodes directly inside this one (for walking the tree)."""
        return ()

    def as_mapping(self) -> dict[str, Node] | None:
        """The entries, if this node is a literal mapping (whatever its values)."""
        return None

    def as_list(self) -> list[Node] | None:
        """The items, if this node is a literal list (whatever its items)."""
        return None


class Static(Node):
    __slots__ = ("value",)
    is_static = True

    def __init__(self, value: Any) -> None:
        self.value = value

    def resolve(self, ctx: ResolveContext) -> Any:
        value = self.value
        return copy_data(value) if isinstance(value, dict | list) else value

    def as_mapping(self) -> dict[str, Node] | None:
        if isinstance(self.value, dict):
            return {k: Static(v) for k, v in self.value.items()}
        return None

    def as_list(self) -> list[Node] | None:
        if isinstance(self.value, list):
            return [Static(v) for v in self.value]
        return None

    def __repr__(self) -> str:
        return f"Static({self.value!r})"


class MapNode(Node):
    __slots__ = ("items",)

    def __init__(self, items: tuple[tuple[str, Node], ...]) -> None:
        self.items = items

    def resolve(self, ctx: ResolveContext) -> Any:
        resolved = ((key, node.resolve(ctx)) for key, node in self.items)
        return {key: value for key, value in resolved if value is not OMITTED}

    def children(self) -> tuple[Node, ...]:
        return tuple(node for _, node in self.items)

    def as_mapping(self) -> dict[str, Node] | None:
        return dict(self.items)


class ListNode(Node):
    __slots__ = ("items",)

    def __init__(self, items: tuple[Node, ...]) -> None:
        self.items = items

    def resolve(self, ctx: ResolveContext) -> Any:
        resolved = (node.resolve(ctx) for node in self.items)
        return [value for value in resolved if value is not OMITTED]

    def children(self) -> tuple[Node, ...]:
        return self.items

    def as_list(self) -> list[Node] | None:
        return list(self.items)


@dataclass(frozen=True, slots=True)
class ParseScope:
    """What a function may check while being parsed."""

    functions: Mapping[str, type[Function]]
    parameters: frozenset[str]
    """Template parameters plus the pseudo parameters."""
    resources: frozenset[str]
    """Every resource the template names."""
    enabled: frozenset[str]
    """The resources not left out by a condition that is plainly false."""
    files: Mapping[str, Any]
    condition_functions: Mapping[str, type[Function]] = field(default_factory=dict)
    """The functions allowed inside a condition (``equals``, ``not``...)."""
    conditions: Any = None
    """The template's ``ConditionTable`` (named conditions), if it has one."""
    parameter_values: ResolveContext | None = None
    """Parameter values, when known at parse time: conditions are then decided."""
    mappings: Any = None
    """The CFN ``Mappings`` section as written (``Fn::FindInMap`` reads it)."""


class Function(Node):
    """One function call. Subclasses implement ``build`` and ``resolve``.

    ``path`` ends with the function's own name, as Heat reports it
    (``resources.web.properties.name.str_replace``).
    """

    __slots__ = ("call_args", "fn_name", "path")
    pure: ClassVar[bool] = False
    """The result depends on the arguments alone: folded to Static when they are."""
    macro: ClassVar[bool] = False
    """Takes its arguments unparsed (``build_macro``): ``if`` parses one branch only."""

    def __init__(self, fn_name: str, path: Path) -> None:
        self.fn_name = fn_name
        self.path = path
        self.call_args: Node = Static(None)
        """The arguments as parsed, for validating them where Heat does (see ``validate``)."""

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        """Check the arguments and return the node for this call."""
        raise NotImplementedError

    @classmethod
    def build_macro(cls, fn_name: str, args: Any, path: Path, scope: ParseScope) -> Node:
        """Parse the call from its raw arguments (for ``macro`` functions)."""
        raise NotImplementedError

    def fail(self, message: str) -> NoReturn:
        raise StackValidationFailed(message, self.path)

    def validate(self, scope: Any) -> None:
        """Heat's ``validate`` checks of this call, run before a create, never on resolve.

        The arguments' own calls are validated first, by the caller
        (``template.validation``), which also puts the path in front of what
        this raises. ``scope`` is a ``validation.ValidationScope``.
        """

    def resources_needed(self) -> Iterable[str]:
        """Resources this call reads (they become dependencies)."""
        return ()

    def attributes_read(self) -> Iterable[tuple[str, str]]:
        """``(resource, attribute)`` pairs this call reads."""
        return ()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {'.'.join(self.path)}>"


def fail_at(path: Path, message: str) -> NoReturn:
    """Report a problem with the snippet at ``path``."""
    raise StackValidationFailed(message, path)


def key_error_text(message: str) -> str:
    """``message`` as users see it when Heat raises it as a ``KeyError``: quoted.

    ``str()`` of a ``KeyError`` is the ``repr`` of its argument, so Heat's
    "syntax should be" texts reach users in quotes, newlines escaped.
    """
    return repr(message)


class _NoContext:
    """Stands in for a context when folding pure functions; they never use it."""

    def parameter(self, name: str) -> Any:
        raise RuntimeError("a pure function read a parameter")

    def resource_reference(self, name: str) -> str | None:
        raise RuntimeError("a pure function read a resource")

    def resource_attribute(self, name: str, attribute: str) -> Any:
        raise RuntimeError("a pure function read an attribute")


_NO_CONTEXT = _NoContext()


def fold(node: Function) -> Node:
    """Compute a pure call with literal arguments now, once for every resolve.

    A call that fails keeps its node: Heat reports a function's result errors
    when the function is resolved, not when the template is parsed, and its
    ``validate`` errors before a create (so a pure call's ``validate`` must
    not read its scope: folding runs it with none).
    """
    if node.pure and all(child.is_static for child in node.children()):
        try:
            node.validate(None)
            return Static(node.resolve(_NO_CONTEXT))
        except StackValidationFailed:
            return node
    return node


def compile_snippet(snippet: Any, scope: ParseScope, path: Path) -> Node:
    """Parse normalized data into nodes, recognising the version's functions."""
    if isinstance(snippet, dict):
        if len(snippet) == 1:
            ((key, args),) = snippet.items()
            function = scope.functions.get(key)
            if function is not None:
                call_path = (*path, key)
                if function.macro:
                    return function.build_macro(key, args, call_path, scope)
                arguments = compile_snippet(args, scope, call_path)
                node = function.build(key, arguments, call_path, scope)
                if isinstance(node, Function) and node.path == call_path:
                    node.call_args = arguments
                return node
        return _compile_mapping(snippet, scope, path)
    if isinstance(snippet, list):
        return _compile_list(snippet, scope, path)
    return Static(snippet)


# Both helpers rebuild literal containers from their children's values rather
# than reusing the snippet: a call folded at parse time replaces its snippet.
# Scalars take a fast path (no node, no path) since they are most of a template.


def _compile_mapping(snippet: dict[str, Any], scope: ParseScope, path: Path) -> Node:
    literal: dict[str, Any] = {}
    entries: list[tuple[str, Node]] | None = None
    for key, value in snippet.items():
        if isinstance(value, dict | list):
            node = compile_snippet(value, scope, (*path, key))
            if not isinstance(node, Static):
                if entries is None:
                    entries = [(k, Static(v)) for k, v in literal.items()]
                entries.append((key, node))
                continue
            value = node.value
        if entries is None:
            literal[key] = value
        else:
            entries.append((key, Static(value)))
    return Static(literal) if entries is None else MapNode(tuple(entries))


def _compile_list(snippet: list[Any], scope: ParseScope, path: Path) -> Node:
    literal: list[Any] = []
    items: list[Node] | None = None
    for i, value in enumerate(snippet):
        if isinstance(value, dict | list):
            node = compile_snippet(value, scope, index_path(path, i))
            if not isinstance(node, Static):
                if items is None:
                    items = [Static(v) for v in literal]
                items.append(node)
                continue
            value = node.value
        if items is None:
            literal.append(value)
        else:
            items.append(Static(value))
    return Static(literal) if items is None else ListNode(tuple(items))


def iter_functions(node: Node) -> Iterator[Function]:
    """Every function call in the tree, arguments' calls included."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Function):
            yield current
        stack.extend(current.children())
