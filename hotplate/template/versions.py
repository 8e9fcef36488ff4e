"""Every ``heat_template_version`` Heat accepts, and what each one allows.

One ``HotVersion`` per version: its sections, resource and output keys,
deletion policies, parameter schema keys, and its function table (name to
function class). A key that is not in a version's table is plain data in
templates of that version. Tables are built from the previous version by
listing what changed, mirroring the HOT specification's history::

    2013-05-23             get_param get_resource get_attr list_join str_replace
                           get_file resource_facade + the CFN Fn::* and Ref
    2014-10-16             CFN functions removed (Fn::Select stays)
    2015-04-30             + repeat digest
                           (repeat over maps' keys from 2016-10-14, with
                           permutations from 2017-09-01, as Heat)
    2015-10-15             get_attr [res] for all attributes; list_join of many
                           lists; str_replace JSON-encodes; + str_split;
                           Fn::Select removed
    2016-04-08             + map_merge
    2016-10-14  newton     + yaql map_replace if; conditions section (get_param
                           equals not and or; + yaql contains from pike);
                           condition/external_id keys; lower-case deletion policies
    2017-02-24  ocata      + filter str_replace_strict; modulo constraint
    2017-09-01  pike       + make_url list_concat list_concat_unique contains
                           str_replace_vstrict
    2018-03-02  queens     parameter tags
    2018-08-31  rocky
    2021-04-16  wallaby
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from hotplate.model.errors import InvalidTemplateVersion
from hotplate.template.functions import (
    And,
    Contains,
    Digest,
    Equals,
    Filter,
    Function,
    GetAttr,
    GetAttrAll,
    GetFile,
    GetParam,
    GetResource,
    If,
    Invalid,
    Join,
    JoinMultiple,
    ListConcat,
    ListConcatUnique,
    MakeURL,
    MapMerge,
    MapReplace,
    Not,
    Or,
    Removed,
    Repeat,
    RepeatWithMap,
    RepeatWithNestedLoop,
    Replace,
    ReplaceJson,
    ReplaceStrict,
    ReplaceVeryStrict,
    ResourceFacade,
    StrSplit,
    Unsupported,
    Yaql,
)

VERSION_KEY = "heat_template_version"
CFN_VERSION_KEYS = ("AWSTemplateFormatVersion", "HeatTemplateFormatVersion")

FunctionTable = Mapping[str, type[Function]]


@dataclass(frozen=True, slots=True)
class HotVersion:
    date: str
    name: str | None
    functions: FunctionTable
    condition_functions: FunctionTable
    """What a condition may use; every other function is ``Invalid`` there."""
    sections: frozenset[str]
    resource_keys: tuple[str, ...]
    output_keys: tuple[str, ...]
    deletion_policies: Mapping[str, str]
    parameter_keys: tuple[str, ...]
    modulo_constraint: bool

    @property
    def has_conditions(self) -> bool:
        return "conditions" in self.sections


def _table(base: FunctionTable, **changes: type[Function]) -> FunctionTable:
    merged = dict(base)
    merged.update(changes)
    return MappingProxyType(merged)


def _named(base: FunctionTable, names: str, cls: type[Function]) -> FunctionTable:
    return _table(base, **dict.fromkeys(names.split(), cls))


_CFN = (
    "Fn::GetAZs Ref Fn::Select Fn::Join Fn::Split Fn::Replace Fn::Base64 "
    "Fn::MemberListToMap Fn::ResourceFacade"
)
_CFN_REMOVED_2014 = (
    "Fn::GetAZs Fn::Join Fn::Split Fn::Replace Fn::Base64 "
    "Fn::MemberListToMap Fn::ResourceFacade Ref"
)

_F20130523 = _named(
    _table(
        {},
        get_param=GetParam,
        get_resource=GetResource,
        get_attr=GetAttr,
        list_join=Join,
        str_replace=Replace,
        get_file=GetFile,
        resource_facade=ResourceFacade,
    ),
    _CFN,
    Unsupported,
)
_F20141016 = _named(_F20130523, _CFN_REMOVED_2014, Removed)
_F20150430 = _table(_F20141016, repeat=Repeat, digest=Digest)
_F20151015 = _table(
    _F20150430,
    get_attr=GetAttrAll,
    list_join=JoinMultiple,
    str_replace=ReplaceJson,
    str_split=StrSplit,
)
_F20151015 = _named(_F20151015, "Fn::Select", Removed)
_F20160408 = _table(_F20151015, map_merge=MapMerge)
_F20161014 = _table(
    _F20160408, repeat=RepeatWithMap, yaql=Yaql, map_replace=MapReplace, **{"if": If}
)
_F20170224 = _table(_F20161014, filter=Filter, str_replace_strict=ReplaceStrict)
_F20170901 = _table(
    _F20170224,
    repeat=RepeatWithNestedLoop,
    make_url=MakeURL,
    list_concat=ListConcat,
    str_replace_vstrict=ReplaceVeryStrict,
    list_concat_unique=ListConcatUnique,
    contains=Contains,
)


def _conditions(functions: FunctionTable, **allowed: type[Function]) -> FunctionTable:
    """Heat's condition table: listed functions; others Invalid, removed ones Removed."""
    table: dict[str, type[Function]] = {
        name: cls if cls is Removed else Invalid for name, cls in functions.items()
    }
    table.update(allowed)
    return MappingProxyType(table)


_C20161014 = _conditions(
    _F20161014, get_param=GetParam, equals=Equals, **{"not": Not, "and": And, "or": Or}
)
_C20170901 = _conditions(
    _F20170901,
    get_param=GetParam,
    equals=Equals,
    yaql=Yaql,
    contains=Contains,
    **{"not": Not, "and": And, "or": Or},
)
_NO_CONDITIONS: FunctionTable = MappingProxyType({})

_SECTIONS = frozenset(
    {VERSION_KEY, "description", "parameter_groups", "parameters", "resources", "outputs"}
)
_RESOURCE_KEYS = (
    "type", "properties", "metadata", "depends_on", "deletion_policy", "update_policy",
    "description",
)
_POLICIES = MappingProxyType({"Delete": "Delete", "Retain": "Retain", "Snapshot": "Snapshot"})
_POLICIES_2016 = MappingProxyType(
    {**_POLICIES, "delete": "Delete", "retain": "Retain", "snapshot": "Snapshot"}
)
_PARAMETER_KEYS = (
    "type", "description", "default", "schema", "constraints", "hidden", "label", "immutable",
)


def _version(
    date: str,
    name: str | None,
    functions: FunctionTable,
    conditions: FunctionTable = _NO_CONDITIONS,
) -> HotVersion:
    newton = date >= "2016-10-14"
    return HotVersion(
        date=date,
        name=name,
        functions=functions,
        condition_functions=conditions,
        sections=(_SECTIONS | {"conditions"}) if newton else _SECTIONS,
        resource_keys=(*_RESOURCE_KEYS, "external_id", "condition") if newton else _RESOURCE_KEYS,
        output_keys=("description", "value", "condition") if newton else ("description", "value"),
        deletion_policies=_POLICIES_2016 if newton else _POLICIES,
        parameter_keys=(*_PARAMETER_KEYS, "tags") if date >= "2018-03-02" else _PARAMETER_KEYS,
        modulo_constraint=date >= "2017-02-24",
    )


VERSIONS: tuple[HotVersion, ...] = (
    _version("2013-05-23", None, _F20130523),
    _version("2014-10-16", None, _F20141016),
    _version("2015-04-30", None, _F20150430),
    _version("2015-10-15", None, _F20151015),
    _version("2016-04-08", None, _F20160408),
    _version("2016-10-14", "newton", _F20161014, _C20161014),
    _version("2017-02-24", "ocata", _F20170224, _conditions(_F20170224, **_C20161014)),
    _version("2017-09-01", "pike", _F20170901, _C20170901),
    _version("2018-03-02", "queens", _F20170901, _C20170901),
    _version("2018-08-31", "rocky", _F20170901, _C20170901),
    _version("2021-04-16", "wallaby", _F20170901, _C20170901),
)

_BY_LABEL: Mapping[str, HotVersion] = MappingProxyType(
    {label: v for v in VERSIONS for label in (v.date, v.name) if label is not None}
)


def _invalid(explanation: str) -> InvalidTemplateVersion:
    return InvalidTemplateVersion(f"The template version is invalid: {explanation}")


def find_version(template: Mapping[str, Any]) -> HotVersion:
    """The version a template declares, by date or by release name.

    Raises:
        InvalidTemplateVersion: no version, two version keys, a CFN template,
            or a version Heat does not know (Heat's messages).
    """
    keys = (VERSION_KEY, *CFN_VERSION_KEYS)
    present = sorted(k for k in keys if isinstance(template.get(k), str))
    if len(present) > 1:
        raise _invalid(f"Ambiguous versions ({', '.join(present)})")
    if not present:
        raise _invalid("Template version was not provided")
    key = present[0]
    value = template[key]
    if key != VERSION_KEY:
        raise _invalid(f'"{key}: {value}". Only "{VERSION_KEY}" templates are supported')
    version = _BY_LABEL.get(value)
    if version is None:
        available = ", ".join(sorted(_BY_LABEL))
        raise _invalid(f'"{key}: {value}". "{key}" should be one of: {available}')
    return version
