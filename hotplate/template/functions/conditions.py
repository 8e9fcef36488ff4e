"""Condition functions (equals, not, and, or), the named-condition table, and ``if``.

CFN's ``Fn::Equals``, ``Fn::And``, ``Fn::Or`` and ``Fn::If`` are these same
classes under their CFN names; only ``Fn::Not`` differs (``NotList``: its
condition comes in a one-item list).

A condition is a boolean, the name of a condition in the ``conditions``
section, or a condition function. Named conditions are compiled once into a
``ConditionTable``, each checked to be a boolean or a call. As in Heat, the
names a definition refers to are looked up, and cycles found, only when the
definition is evaluated (a definition nothing uses is never evaluated), and
an unknown name is reported at whatever evaluated it (an ``if``, a
resource's ``condition``). Messages are Heat's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from hotplate.model.errors import StackValidationFailed
from hotplate.template.context import ResolveContext
from hotplate.template.errors import condition_error
from hotplate.template.functions.base import (
    OMITTED,
    Function,
    Node,
    ParseScope,
    Static,
    compile_snippet,
    fail_at,
)
from hotplate.template.functions.whole import WholeArgs
from hotplate.template.paths import Path

_ACTIVE: ContextVar[frozenset[str]] = ContextVar("active_conditions", default=frozenset())
_REPORT_AT: ContextVar[Path] = ContextVar("condition_report_path", default=())
"""Where an unknown name met while evaluating named conditions is reported: the
outermost caller's path (Heat raises it as a ValueError only that caller words)."""


@dataclass(eq=False)
class ConditionTable:
    """The ``conditions`` section, compiled: each name to its node."""

    nodes: dict[str, Node] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)
    """Every defined name, known before any definition is parsed (they may refer ahead)."""
    section: str = "conditions"
    """The section's name as the template spells it (``Conditions`` in CFN), for paths."""

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def evaluate(self, name: str, ctx: ResolveContext) -> bool:
        """The named condition's value against ``ctx``'s parameters."""
        active = _ACTIVE.get()
        if name in active:
            raise condition_error(
                f'Circular definition for condition "{name}"', (self.section, name))
        token = _ACTIVE.set(active | {name})
        try:
            value = self.nodes[name].resolve(ctx)
        finally:
            _ACTIVE.reset(token)
        if not isinstance(value, bool):
            raise invalid_definition(name, value, (self.section, name))
        return value


def invalid_definition(name: str, definition: Any, path: Path) -> StackValidationFailed:
    """A named condition that is (or resolved to) neither a boolean nor a call."""
    return condition_error(f'The definition of condition "{name}" is invalid: {definition}',
                           tuple(str(p) for p in path))


def truth(value: Any, table: ConditionTable | None, ctx: ResolveContext, path: Path) -> bool:
    """A resolved condition argument as a boolean: itself, or the named condition's value."""
    if isinstance(value, bool):
        return value
    outer = _REPORT_AT.get() or path
    if not isinstance(value, str) or table is None or value not in table:
        fail_at(outer, f'Invalid condition "{value}"')
    token = _REPORT_AT.set(outer)
    try:
        return table.evaluate(value, ctx)
    finally:
        _REPORT_AT.reset(token)


def condition_scope(scope: ParseScope) -> ParseScope:
    """The scope for parsing a condition: only condition functions are functions."""
    return replace(scope, functions=scope.condition_functions)


def compile_condition(raw: Any, scope: ParseScope, path: Path) -> Node:
    """A condition (name, boolean or function), parsed; names are checked to exist."""
    node = compile_snippet(raw, condition_scope(scope), path)
    if isinstance(node, Static) and not isinstance(node.value, bool):
        _check_name(node.value, scope, path)
    return node


def _check_name(name: Any, scope: ParseScope, path: Path) -> None:
    if not isinstance(name, str) or scope.conditions is None or name not in scope.conditions:
        fail_at(path, f'Invalid condition "{name}"')


def compile_conditions(section: Mapping[str, Any], scope: ParseScope) -> ConditionTable:
    """Every named condition parsed into the scope's table, then each checked to be a
    boolean or a call (Heat parses them all before it checks any)."""
    table: ConditionTable = scope.conditions
    table.names.update(section)
    for name, definition in section.items():
        table.nodes[name] = compile_snippet(
            definition, condition_scope(scope), (table.section, name))
    for name, definition in section.items():
        call = (isinstance(definition, dict) and len(definition) == 1
                and next(iter(definition)) in scope.condition_functions)
        if not isinstance(definition, bool) and not call:  # as written, calls and all
            raise invalid_definition(name, definition, (table.section, name))
    return table


class Equals(WholeArgs):
    """``equals: [value_1, value_2]``."""

    __slots__ = ()

    def check(self, args: Node) -> None:
        items = args.as_list()
        if not items or len(items) != 2:
            self.fail(f'Arguments to "{self.fn_name}" must be of the form: [value_1, value_2]')

    def compute(self, args: Any) -> Any:
        return args[0] == args[1]


class ConditionBoolean(Function):
    """``and``/``or``: two or more conditions (names, booleans or functions)."""

    __slots__ = ("items", "table")

    def __init__(self, fn_name: str, path: Path, items: tuple[Node, ...], table: Any) -> None:
        super().__init__(fn_name, path)
        self.items = items
        self.table: ConditionTable | None = table

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        items = cls.arguments(fn_name, args, path)  # names are looked up when evaluated
        return cls(fn_name, path, tuple(items), scope.conditions)

    @classmethod
    def arguments(cls, fn_name: str, args: Node, path: Path) -> list[Node]:
        items = args.as_list()
        if items is None:
            fail_at(path, f'Arguments to "{fn_name}" must be a list of conditions')
        if len(items) < 2:
            fail_at(path, f'The minimum number of condition arguments to "{fn_name}" is 2.')
        return items

    def children(self) -> tuple[Node, ...]:
        return self.items

    def values(self, ctx: ResolveContext) -> Iterator[bool]:
        for item in self.items:
            yield truth(item.resolve(ctx), self.table, ctx, self.path)

    def resolve(self, ctx: ResolveContext) -> Any:
        raise NotImplementedError


class And(ConditionBoolean):
    __slots__ = ()

    def resolve(self, ctx: ResolveContext) -> Any:
        return all(self.values(ctx))


class Or(ConditionBoolean):
    __slots__ = ()

    def resolve(self, ctx: ResolveContext) -> Any:
        return any(self.values(ctx))


class Not(ConditionBoolean):
    """``not: condition``."""

    __slots__ = ()

    @classmethod
    def arguments(cls, fn_name: str, args: Node, path: Path) -> list[Node]:
        if isinstance(args, Static) and args.value is None:
            fail_at(path, f'Argument to "{fn_name}" must be a condition')
        return [args]

    def resolve(self, ctx: ResolveContext) -> Any:
        return not next(self.values(ctx))


class NotList(Not):
    """``Fn::Not: [condition]`` (CFN): the condition comes in a one-item list."""

    __slots__ = ()

    @classmethod
    def arguments(cls, fn_name: str, args: Node, path: Path) -> list[Node]:
        items = args.as_list()
        if not items or len(items) != 1:
            fail_at(path, f'Arguments to "{fn_name}" must be of the form: [condition]')
        return items


class Invalid(Function):
    """A function that is not allowed where it is used (e.g. get_attr in a condition)."""

    __slots__ = ()

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        raise StackValidationFailed(f'The function "{fn_name}" is invalid in this context', path)


class If(Function):
    """``if: [condition, value_if_true, value_if_false]`` (HOT 2016-10-14).

    As Heat's macro, only the chosen branch is parsed when the condition is
    known at parse time (a boolean, or parameter values were given), and
    the call stays in the tree (``Chosen``) so that errors in the branch
    are reported at the ``if``. Otherwise both branches are kept and the
    condition is decided when resolving. Branches are parsed at the call's
    own path and an inline condition at ``if``'s, as Heat parses them.
    """

    __slots__ = ("branches", "condition", "table")
    macro = True
    nullable: ClassVar[bool] = False
    """``if: [condition, value]`` is allowed; false leaves the value out (HOT 2021-04-16)."""

    def __init__(self, fn_name: str, path: Path, condition: Node,
                 branches: tuple[Node | None, Node | None],
                 table: ConditionTable | None) -> None:
        super().__init__(fn_name, path)
        self.condition = condition
        self.branches = branches
        self.table = table

    @classmethod
    def build_macro(cls, fn_name: str, args: Any, path: Path, scope: ParseScope) -> Node:
        counts = (2, 3) if cls.nullable else (3,)
        if not args or not isinstance(args, list) or len(args) not in counts:
            fail_at(
                path,
                f'Arguments to "{fn_name}" must be of the form: '
                "[condition_name, value_if_true, value_if_false]",
            )
        raw_branches = (args[1], args[2] if len(args) == 3 else _ABSENT)
        condition = compile_snippet(args[0], condition_scope(scope), (fn_name,))
        if isinstance(condition, Static) and not isinstance(condition.value, bool):
            _check_name(condition.value, scope, path)
        chosen = cls._known(condition, scope, path)
        if chosen is not None:
            branch = _branch(raw_branches[0 if chosen else 1], scope, path)
            # A literal branch has no call to validate: it folds into its container.
            return branch if isinstance(branch, Static) else Chosen(fn_name, path, branch)
        branches = (_branch(raw_branches[0], scope, path, defer=True),
                    _branch(raw_branches[1], scope, path, defer=True))
        return cls(fn_name, path, condition, branches, scope.conditions)

    @staticmethod
    def _known(condition: Node, scope: ParseScope, path: Path) -> bool | None:
        if isinstance(condition, Static) and isinstance(condition.value, bool):
            return condition.value
        if scope.parameter_values is None:
            return None
        value = condition.resolve(scope.parameter_values)
        return truth(value, scope.conditions, scope.parameter_values, path)

    def children(self) -> tuple[Node, ...]:
        return (self.condition, *(b for b in self.branches if b is not None))

    def resolve(self, ctx: ResolveContext) -> Any:
        chosen = truth(self.condition.resolve(ctx), self.table, ctx, self.path)
        branch = self.branches[0 if chosen else 1]
        return OMITTED if branch is None else branch.resolve(ctx)


class IfNullable(If):
    """``if`` from HOT 2021-04-16: ``[condition, value]`` leaves the value out when false."""

    __slots__ = ()
    nullable = True


_ABSENT = object()


class Chosen(Function):
    """An ``if`` whose condition the template decides: the branch it chose.

    Validation reports errors in the branch at the ``if`` (Heat validates a
    macro's parsed branch); a missing false branch resolves to nothing.
    """

    __slots__ = ("branch",)

    def __init__(self, fn_name: str, path: Path, branch: Node | None) -> None:
        super().__init__(fn_name, path)
        self.branch = branch
        self.call_args = Static(None) if branch is None else branch

    def children(self) -> tuple[Node, ...]:
        return () if self.branch is None else (self.branch,)

    def resolve(self, ctx: ResolveContext) -> Any:
        return OMITTED if self.branch is None else self.branch.resolve(ctx)


class _Deferred(Node):
    """A branch that did not parse: an error only if the branch is ever taken.

    Heat parses just the branch its condition picks, so a broken branch that
    is never taken is never seen. Before the condition is known both are
    parsed here; the broken one keeps its error for when it is chosen.
    """

    __slots__ = ("error",)

    def __init__(self, error: StackValidationFailed) -> None:
        self.error = error

    def resolve(self, ctx: ResolveContext) -> Any:
        raise self.error


def _branch(snippet: Any, scope: ParseScope, path: Path, *, defer: bool = False) -> Node | None:
    if snippet is _ABSENT:
        return None
    if not defer:
        return compile_snippet(snippet, scope, path)
    try:
        return compile_snippet(snippet, scope, path)
    except StackValidationFailed as exc:
        return _Deferred(exc)
