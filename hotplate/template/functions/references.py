"""Functions that read the world: get_param, get_resource, get_attr.

Messages follow Heat's (``heat/engine/hot/functions.py``) so that users and
tools see the same text, and so does their timing: a parameter name is
looked up when resolving, a resource name is checked when the template is
validated (``template.validation``), never when parsing.

A resource or attribute name may be computed, as Heat allows. When the
template is parsed with parameter values (``Template.with_parameters``,
which the engine always uses) the name is computed as Heat computes it
before a create, when no resource exists yet (``get_resource`` answers the
resource's name, ``get_attr`` None): that name makes the dependency and is
what validation checks. When resolving, the name is computed again, from
what the resources then report.

An attribute name computed from another resource's attribute
(``get_attr: [a, {get_attr: [b, name]}]``) is the exception: Heat computes
it as None before a create and then fails, where we leave it unknown
(``NOT_YET``) until resolving. The inner call still makes ``b`` a
dependency, so the name is computed once ``b`` is complete; validation
cannot check it, and the engine reads that attribute of ``a`` when it is
asked for (``GetAttr.needs_live_attribute``), since no list of what ``a``
must pass on could name it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import reduce
from typing import Any, ClassVar

from hotplate.model.errors import StackValidationFailed, UserParameterMissing
from hotplate.template.context import ResolveContext
from hotplate.template.document import copy_data
from hotplate.template.errors import InvalidTemplateReference, with_path
from hotplate.template.functions.base import (
    Function,
    Node,
    ParseScope,
    Static,
    iter_functions,
    present,
)
from hotplate.template.paths import Path, reference_key

ALL_ATTRIBUTES = "*"
"""The attribute name ``get_attr: [name]`` asks for: a mapping of every attribute."""


UNKNOWN = "unknown"
"""Where Heat says a reference is when resolving or validating a call ("(in unknown)")."""


class _NotYet:
    """A name that can only be had when resolving (it reads more than parameters)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_YET"


NOT_YET: Any = _NotYet()


def unknown_reference(name: str, path: Path) -> InvalidTemplateReference:
    """A reference to a resource that is not there (or left out by its condition)."""
    return InvalidTemplateReference(name, UNKNOWN, path)


def dependency_error(name: str, path: Path) -> InvalidTemplateReference:
    """A resource's reference to a resource the template does not define, as a
    create's validation words it (``(in web.Properties.image)``)."""
    return InvalidTemplateReference(name, reference_key(path), path)


class _Unbuilt:
    """The stack before a create: parameters known, no resource built yet."""

    def __init__(self, values: ResolveContext) -> None:
        self._values = values

    def parameter(self, name: str) -> Any:
        return self._values.parameter(name)

    def resource_reference(self, name: str) -> str | None:
        return name  # what Heat's stack definition answers for a resource with no data

    def resource_attribute(self, name: str, attribute: str) -> Any:
        return None


def known_name(node: Node, scope: ParseScope) -> Any:
    """What ``node`` (a resource or attribute name) is when parsing: literal data, or
    computed before a create (see the module docstring); else ``NOT_YET``."""
    if isinstance(node, Static):
        return node.value
    if scope.parameter_values is None:
        return NOT_YET
    try:
        return present(node.resolve(_Unbuilt(scope.parameter_values)))
    except StackValidationFailed:  # reported when resolved, if it still fails then
        return NOT_YET


def reads_attributes(node: Node) -> bool:
    """Whether ``node`` reads some resource's attribute (only known once it is complete)."""
    return any(isinstance(function, GetAttr) for function in iter_functions(node))


def _member(name: Any, names: Collection[Any]) -> bool:
    """``name in names``; a list or map as a name fails in Python's words, as in Heat."""
    try:
        return name in names
    except TypeError as exc:
        raise StackValidationFailed(str(exc)) from None


class ResourceRead(Function):
    """A call that reads a resource by name (see the module docstring)."""

    __slots__ = ("enabled_names", "name", "name_node")

    def __init__(self, fn_name: str, path: Path, name_node: Node, scope: ParseScope) -> None:
        super().__init__(fn_name, path)
        self.name_node = name_node
        self.name: Any = known_name(name_node, scope)
        self.enabled_names = scope.enabled

    @property
    def target(self) -> str | None:
        """The resource's name, when known before resolving and a name at all."""
        return self.name if isinstance(self.name, str) else None

    @property
    def enabled(self) -> bool:
        """The resource is known, and not left out by its condition."""
        target = self.target
        return target is not None and target in self.enabled_names

    @property
    def computed(self) -> bool:
        """Some name this call reads is not literal (``with_parameters`` must reparse)."""
        return not isinstance(self.name_node, Static)

    def resources_needed(self) -> Iterable[str]:
        target = self.target
        return (target,) if target is not None and self.enabled else ()

    def check_dependency(self, resources: Collection[str]) -> None:
        """Heat's dependencies, before a create: a name known now must be a resource
        of the stack (whose resources a false condition left out are not in it)."""
        if self.name is NOT_YET:
            return
        try:
            found = _member(self.name, resources)
        except StackValidationFailed as exc:  # Heat's text has no path; positions use it
            raise with_path(exc, self.path) from None
        if not found:
            raise dependency_error(str(self.name), self.path)

    def resource_name(self, ctx: ResolveContext) -> str:
        """The resource read now (see ``find``)."""
        return self.find(_now(self.name_node, ctx))

    def find(self, name: Any) -> str:
        """``name``, found among the enabled resources (Heat's stack has no other)."""
        try:
            found = _member(name, self.enabled_names)
        except StackValidationFailed as exc:
            self.fail(exc.detail)
        if not found:
            raise unknown_reference(str(name), self.path)
        return str(name)


class GetParam(Function):
    """``get_param: name`` or ``get_param: [name, key_or_index, ...]``."""

    __slots__ = ("args", "components", "name")

    def __init__(self, fn_name: str, path: Path, args: Node) -> None:
        super().__init__(fn_name, path)
        self.args = args
        self.name: str | None = None  # set when the whole argument is literal
        self.components: list[Any] = []

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        node = cls(fn_name, path, args)
        if isinstance(args, Static):
            with contextlib.suppress(StackValidationFailed):  # Heat says so when resolving
                node.name, node.components = node._split(args.value)
        return node

    def _check_name(self, name: Any) -> str:
        if not isinstance(name, str):
            self.fail(f'Parameter name in "{self.fn_name}" must be string')
        return name

    def _split(self, args: Any) -> tuple[str, list[Any]]:
        if not args:
            self.fail(f'Function "{self.fn_name}" must have arguments')
        if isinstance(args, str):
            return args, []
        if isinstance(args, list):
            return self._check_name(args[0]), args[1:]
        self.fail(f'Argument to "{self.fn_name}" must be string or list')

    def children(self) -> tuple[Node, ...]:
        return (self.args,)

    def resolve(self, ctx: ResolveContext) -> Any:
        if self.name is not None:
            name, components = self.name, self.components
        else:
            name, components = self._split(self.args.resolve(ctx))
        try:
            value = ctx.parameter(name)
        except KeyError:
            raise with_path(UserParameterMissing(name), self.path) from None
        if components:
            try:
                value = reduce(self._step, components, value)
            except (KeyError, IndexError, TypeError):
                # Heat answers an empty string for any path that does not lead anywhere.
                return ""
        return copy_data(value)

    @staticmethod
    def _step(collection: Any, key: Any) -> Any:
        if not isinstance(collection, Mapping | Sequence) or not isinstance(key, str | int):
            raise TypeError(key)
        if isinstance(collection, Sequence) and isinstance(key, str):
            try:
                key = int(key)
            except ValueError:
                raise TypeError(key) from None
        return collection[key]


class GetResource(ResourceRead):
    """``get_resource: name``: the resource's reference id."""

    __slots__ = ()

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        return cls(fn_name, path, args, scope)

    def children(self) -> tuple[Node, ...]:
        return () if isinstance(self.name_node, Static) else (self.name_node,)

    def resolve(self, ctx: ResolveContext) -> Any:
        return ctx.resource_reference(self.resource_name(ctx))


class GetAttr(ResourceRead):
    """``get_attr: [resource, attribute, key_or_index, ...]`` (HOT up to 2015-04-30)."""

    __slots__ = ("attribute", "attribute_node", "components", "computed_from_attribute")
    allow_all: ClassVar[bool] = False

    def __init__(self, fn_name: str, path: Path, items: list[Node], scope: ParseScope) -> None:
        super().__init__(fn_name, path, items[0], scope)
        self.attribute_node: Node = items[1] if len(items) > 1 else Static(ALL_ATTRIBUTES)
        self.computed_from_attribute = reads_attributes(self.attribute_node)
        self.attribute: Any = (NOT_YET if self.computed_from_attribute
                               else known_name(self.attribute_node, scope))
        self.components = tuple(items[2:])

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        return cls(fn_name, path, cls._items(fn_name, args, path), scope)

    @classmethod
    def _items(cls, fn_name: str, args: Node, path: Path) -> list[Node]:
        if cls.allow_all and isinstance(args, Static) and not args.value:
            raise StackValidationFailed(
                f'Arguments to "{fn_name}" can be of the next forms: '
                "[resource_name] or [resource_name, attribute, (path), ...]",
                path,
            )
        items = args.as_list()
        if items is None:
            raise StackValidationFailed(f'Argument to "{fn_name}" must be a list', path)
        if len(items) < (1 if cls.allow_all else 2):
            raise StackValidationFailed(
                f'Arguments to "{fn_name}" must be of the form '
                "[resource_name, attribute, (path), ...]",
                path,
            )
        return items

    @property
    def computed(self) -> bool:
        return super().computed or not isinstance(self.attribute_node, Static)

    def children(self) -> tuple[Node, ...]:
        names = (self.name_node, self.attribute_node)
        return (*(n for n in names if not isinstance(n, Static)), *self.components)

    def attributes_read(self) -> Iterable[tuple[str, str]]:
        target, attribute = self.target, self.attribute
        if target is None or not self.enabled or not isinstance(attribute, str):
            return ()  # a name known only when resolving: see ``needs_live_attribute``
        return ((target, attribute),)

    @property
    def needs_live_attribute(self) -> bool:
        """The attribute's name is known only when resolving (see the module docstring):
        whoever resolves this call must be able to read any attribute of the target."""
        return self.computed_from_attribute and self.enabled

    def validate(self, scope: Any) -> None:
        """The resource is in the stack and its type has the attribute (Heat's validate)."""
        if self.name is NOT_YET:
            return
        target = self.find(self.name)
        names = scope.attributes.get(target)
        attribute = self.attribute
        if attribute is NOT_YET or attribute == ALL_ATTRIBUTES or names is None:
            return
        if not _member(attribute, names):
            raise StackValidationFailed(
                f"The Referenced Attribute ({target} {attribute}) is incorrect.")

    def resolve(self, ctx: ResolveContext) -> Any:
        target = self.resource_name(ctx)
        attribute = _now(self.attribute_node, ctx)
        try:
            hash(attribute)
        except TypeError as exc:  # a list or map as a name: Python's words, as Heat's
            self.fail(str(exc))
        if self.components:
            keys = [node.resolve(ctx) for node in self.components]
            by_path = getattr(ctx, "resource_attribute_path", None)
            if by_path is not None:  # some types resolve a path themselves (groups)
                found, value = by_path(target, attribute, tuple(keys))
                if found:
                    return copy_data(value)
        value = ctx.resource_attribute(target, attribute)
        if value is not None and self.components:
            try:
                value = reduce(_select, keys, value)
            except (KeyError, IndexError, TypeError):
                return None
        # A copy: the caller may change what it gets, the context's data must not.
        return copy_data(value)


class GetAttrAll(GetAttr):
    """``get_attr`` from HOT 2015-10-15: ``[resource]`` alone reads every attribute."""

    __slots__ = ()
    allow_all = True


def _now(node: Node, ctx: ResolveContext) -> Any:
    """A name as it is when resolving: computed again, from what resources now report."""
    return node.value if isinstance(node, Static) else present(node.resolve(ctx))


def _select(collection: Any, key: Any) -> Any:
    """One step of an attribute path; Heat answers None for any step that fails."""
    if not isinstance(collection, Mapping | Sequence):
        raise TypeError("Can't traverse attribute path")
    if not isinstance(key, str | int):
        raise TypeError("Path components in attributes must be strings")
    value: Any = collection
    return value[key]
