"""CFN's functions that read the stack: Ref, Fn::GetAtt, Fn::FindInMap, Fn::GetAZs.

``Ref`` names a resource (its reference id, a dependency) or else a
parameter, as in Heat: the resource wins when both have the name. HOT
2013-05-23 has the same ``Ref`` over HOT's parameters; CFN's adds the
pseudo parameters ``AWS::StackId``, ``AWS::StackName`` and ``AWS::Region``,
computed here from the ``OS::`` pseudo parameters every context supplies,
so the engine needs to know nothing of CFN. Messages are Heat's.
"""

from __future__ import annotations

from typing import Any, ClassVar
from urllib.parse import quote

from hotplate.model.errors import StackValidationFailed, UserParameterMissing
from hotplate.template.context import ResolveContext
from hotplate.template.document import copy_data
from hotplate.template.errors import InvalidTemplateReference, with_path
from hotplate.template.functions.base import Function, Node, ParseScope, Static, fail_at, fold
from hotplate.template.functions.references import GetAttr, GetResource
from hotplate.template.paths import Path

CFN_PSEUDO_PARAMETERS = ("AWS::StackId", "AWS::StackName", "AWS::Region")
DEFAULT_REGION = "ap-southeast-1"
"""What Heat answers for ``AWS::Region`` (it has no notion of an AWS region)."""

DEFAULT_ZONES = ("nova",)
"""What ``Fn::GetAZs`` answers when the context knows no availability zones."""

# Heat words an unresolvable parameter reference with no location.
_UNKNOWN = "unknown"


def _pseudo_value(name: str, ctx: ResolveContext) -> Any:
    """A CFN pseudo parameter, from the ``OS::`` ones (Heat's values)."""
    if name == "AWS::Region":
        return DEFAULT_REGION
    stack_name = str(ctx.parameter("OS::stack_name"))
    if name == "AWS::StackName":
        return stack_name
    # Heat's stack ARN, each part quoted as a URL path segment.
    project = quote(str(ctx.parameter("OS::project_id")), safe="")
    stack_id = quote(str(ctx.parameter("OS::stack_id")), safe="")
    return f"arn:openstack:heat::{project}:stacks/{quote(stack_name, safe='')}/{stack_id}"


class ParamRef(Function):
    """``Ref: parameter_name``: a parameter's value (HOT 2013-05-23's parameters)."""

    __slots__ = ("args", "name")
    pseudo: ClassVar[frozenset[str]] = frozenset()
    """Pseudo parameters computed here when the context does not have them."""

    def __init__(self, fn_name: str, path: Path, args: Node, name: str | None) -> None:
        super().__init__(fn_name, path)
        self.args = args
        self.name = name

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        # Heat looks the name up when resolving, so an unknown one fails then.
        name = args.value if isinstance(args, Static) else None
        return cls(fn_name, path, args, name if isinstance(name, str) else None)

    def children(self) -> tuple[Node, ...]:
        return (self.args,)

    def resolve(self, ctx: ResolveContext) -> Any:
        name = self.name if self.name is not None else self.args.resolve(ctx)
        if not isinstance(name, str):
            raise InvalidTemplateReference(str(name), _UNKNOWN, self.path)
        try:
            value = ctx.parameter(name)
        except KeyError:
            if name not in self.pseudo:
                raise InvalidTemplateReference(name, _UNKNOWN, self.path) from None
            try:
                value = _pseudo_value(name, ctx)
            except KeyError as exc:
                raise with_path(UserParameterMissing(str(exc.args[0])), self.path) from None
        return copy_data(value)


class CfnParamRef(ParamRef):
    """``Ref: parameter_name`` in CFN: parameters and the ``AWS::`` pseudo parameters."""

    __slots__ = ()
    pseudo = frozenset(CFN_PSEUDO_PARAMETERS)


class Ref(Function):
    """``Ref: name``: a resource's reference id, or else a parameter's value."""

    __slots__ = ()
    param_ref: ClassVar[type[ParamRef]] = ParamRef

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        name = args.value if isinstance(args, Static) else None
        try:  # Heat looks the name up among the resources as it parses the call
            is_resource = name in scope.resources
        except TypeError as exc:  # a list or map: Python's words, as Heat's
            fail_at(path, str(exc))
        if isinstance(name, str) and is_resource:
            return GetResource.build(fn_name, args, path, scope)
        return cls.param_ref.build(fn_name, args, path, scope)


class CfnRef(Ref):
    """``Ref: name`` in CFN: a resource, a parameter or an ``AWS::`` pseudo parameter."""

    __slots__ = ()
    param_ref = CfnParamRef


class CfnGetAtt(GetAttr):
    """``Fn::GetAtt: [resource, attribute]``: one attribute, no path into it."""

    __slots__ = ()

    @classmethod
    def _items(cls, fn_name: str, args: Node, path: Path) -> list[Node]:
        items = args.as_list()
        if items is None or len(items) != 2:
            raise StackValidationFailed(
                f'Arguments to "{fn_name}" must be of the form [resource_name, attribute]', path
            )
        return items


def _unpack_error(args: Node, count: int) -> str:
    """Python's words for unpacking ``args`` into ``count`` names, as Heat reports them."""
    value = args.value if isinstance(args, Static) else args
    if not isinstance(value, str | list | dict):
        return f"cannot unpack non-iterable {type(value).__name__} object"
    if len(value) > count:
        message = f"too many values to unpack (expected {count})"
    else:
        message = f"not enough values to unpack (expected {count}, got {len(value)})"
    return repr(message)  # Heat passes it through a KeyError, which quotes it


class FindInMap(Function):
    """``Fn::FindInMap: [mapping, key, value]``: an entry of the ``Mappings`` section."""

    __slots__ = ("items", "mappings")
    pure = True

    def __init__(self, fn_name: str, path: Path, items: tuple[Node, ...], mappings: Any) -> None:
        super().__init__(fn_name, path)
        self.items = items
        self.mappings = mappings

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        items = args.as_list()
        if items is None or len(items) != 3:
            fail_at(path, _unpack_error(args, 3))
        mappings = {} if scope.mappings is None else scope.mappings
        return fold(cls(fn_name, path, tuple(items), mappings))

    def children(self) -> tuple[Node, ...]:
        return self.items

    def resolve(self, ctx: ResolveContext) -> Any:
        # Python's indexing, as Heat's, and its words when it fails (a KeyError's
        # text is the key quoted); the map is chosen before the other two are resolved.
        name, key, entry = self.items
        mapping = self._index(self.mappings or {}, name.resolve(ctx))
        key_value, entry_value = key.resolve(ctx), entry.resolve(ctx)
        return copy_data(self._index(self._index(mapping, key_value), entry_value))

    def _index(self, collection: Any, key: Any) -> Any:
        try:
            return collection[key]
        except (KeyError, IndexError, TypeError) as exc:
            self.fail(str(exc))


class GetAZs(Function):
    """``Fn::GetAZs: region``: the availability zones, a list of names.

    Heat asks the compute service for the zones of the stack's region and
    ignores the argument. hotplate has no compute service: a context that
    knows the zones offers them as ``availability_zones()``; otherwise the
    answer is ``["nova"]``, what Heat itself answers without a stack. The
    argument is walked (a ``Ref`` in it still makes a dependency), not used.
    """

    __slots__ = ("args",)

    def __init__(self, fn_name: str, path: Path, args: Node) -> None:
        super().__init__(fn_name, path)
        self.args = args

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        return cls(fn_name, path, args)

    def children(self) -> tuple[Node, ...]:
        return (self.args,)

    def resolve(self, ctx: ResolveContext) -> Any:
        zones = getattr(ctx, "availability_zones", None)
        if callable(zones):
            return [str(zone) for zone in zones()]
        return list(DEFAULT_ZONES)
