"""Each template version's functions: name to function class, as Heat's tables have them.

A key that is not in a version's table is plain data in templates of that
version. HOT tables are built from the previous version by listing what
changed, mirroring the HOT specification's history::

    2013-05-23             get_param get_resource get_attr list_join str_replace
                           get_file resource_facade + CFN's Fn::Select Fn::Join
                           Fn::Split Fn::Replace Fn::Base64 Fn::GetAZs
                           Fn::MemberListToMap Fn::ResourceFacade and Ref
    2014-10-16             those CFN functions removed (Fn::Select stays)
    2015-04-30             + repeat digest
                           (repeat over maps' keys from 2016-10-14, with
                           permutations from 2017-09-01, as Heat)
    2015-10-15             get_attr [res] for all attributes; list_join of many
                           lists; str_replace JSON-encodes; + str_split;
                           Fn::Select removed
    2016-04-08             + map_merge
    2016-10-14  newton     + yaql map_replace if; conditions (get_param equals
                           not and or; + yaql contains from pike)
    2017-02-24  ocata      + filter str_replace_strict
    2017-09-01  pike       + make_url list_concat list_concat_unique contains
                           str_replace_vstrict
    2021-04-16  wallaby    if [condition, value]: false leaves the value out

CFN has two versions: ``HeatTemplateFormatVersion: 2012-12-12`` (Ref,
Fn::GetAtt, Fn::FindInMap and the data functions) and
``AWSTemplateFormatVersion: 2010-09-09`` (the same, + Fn::If, and the
Conditions section with Fn::Equals Fn::Not Fn::And Fn::Or, Ref to a
parameter and Fn::FindInMap).

A condition table maps every function of the version to ``Invalid`` (or
keeps ``Removed``), then the functions a condition may use, as Heat does:
``get_attr`` in a condition is refused with its name, not taken as data.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from hotplate.template.functions import (
    And,
    Base64,
    CfnGetAtt,
    CfnParamRef,
    CfnRef,
    CfnReplace,
    CfnResourceFacade,
    Contains,
    Digest,
    Equals,
    Filter,
    FindInMap,
    Function,
    GetAttr,
    GetAttrAll,
    GetAZs,
    GetFile,
    GetParam,
    GetResource,
    If,
    IfNullable,
    Invalid,
    Join,
    JoinMultiple,
    ListConcat,
    ListConcatUnique,
    MakeURL,
    MapMerge,
    MapReplace,
    MemberListToMap,
    Not,
    NotList,
    Or,
    Ref,
    Removed,
    Repeat,
    RepeatWithMap,
    RepeatWithNestedLoop,
    Replace,
    ReplaceJson,
    ReplaceStrict,
    ReplaceVeryStrict,
    ResourceFacade,
    Select,
    Split,
    StrSplit,
    Yaql,
)

FunctionTable = Mapping[str, type[Function]]


def _table(base: FunctionTable, **changes: type[Function]) -> FunctionTable:
    merged = dict(base)
    merged.update(changes)
    return MappingProxyType(merged)


def _named(base: FunctionTable, names: str, cls: type[Function]) -> FunctionTable:
    return _table(base, **dict.fromkeys(names.split(), cls))


def _conditions(functions: FunctionTable, **allowed: type[Function]) -> FunctionTable:
    """Heat's condition table: listed functions; others Invalid, removed ones Removed."""
    table: dict[str, type[Function]] = {
        name: cls if cls is Removed else Invalid for name, cls in functions.items()
    }
    table.update(allowed)
    return MappingProxyType(table)


NO_FUNCTIONS: FunctionTable = MappingProxyType({})

# The CFN functions HOT 2013-05-23 inherited, with CFN's semantics.
_CFN_DATA: dict[str, type[Function]] = {
    "Fn::Select": Select,
    "Fn::Join": Join,
    "Fn::Split": Split,
    "Fn::Replace": CfnReplace,
    "Fn::Base64": Base64,
    "Fn::GetAZs": GetAZs,
    "Fn::MemberListToMap": MemberListToMap,
    "Fn::ResourceFacade": CfnResourceFacade,
}
_CFN_REMOVED_2014 = (
    "Fn::GetAZs Fn::Join Fn::Split Fn::Replace Fn::Base64 "
    "Fn::MemberListToMap Fn::ResourceFacade Ref"
)

F20130523 = _table(
    {},
    get_param=GetParam,
    get_resource=GetResource,
    get_attr=GetAttr,
    list_join=Join,
    str_replace=Replace,
    get_file=GetFile,
    resource_facade=ResourceFacade,
    Ref=Ref,
    **_CFN_DATA,
)
F20141016 = _named(F20130523, _CFN_REMOVED_2014, Removed)
F20150430 = _table(F20141016, repeat=Repeat, digest=Digest)
F20151015 = _named(
    _table(
        F20150430,
        get_attr=GetAttrAll,
        list_join=JoinMultiple,
        str_replace=ReplaceJson,
        str_split=StrSplit,
    ),
    "Fn::Select",
    Removed,
)
F20160408 = _table(F20151015, map_merge=MapMerge)
F20161014 = _table(
    F20160408, repeat=RepeatWithMap, yaql=Yaql, map_replace=MapReplace, **{"if": If}
)
F20170224 = _table(F20161014, filter=Filter, str_replace_strict=ReplaceStrict)
F20170901 = _table(
    F20170224,
    repeat=RepeatWithNestedLoop,
    make_url=MakeURL,
    list_concat=ListConcat,
    str_replace_vstrict=ReplaceVeryStrict,
    list_concat_unique=ListConcatUnique,
    contains=Contains,
)

F20210416 = _table(F20170901, **{"if": IfNullable})

C20161014 = _conditions(
    F20161014, get_param=GetParam, equals=Equals, **{"not": Not, "and": And, "or": Or}
)
C20170224 = _conditions(F20170224, **C20161014)
C20170901 = _conditions(
    F20170901,
    get_param=GetParam,
    equals=Equals,
    yaql=Yaql,
    contains=Contains,
    **{"not": Not, "and": And, "or": Or},
)

HEAT_20121212 = _table(
    {},
    **{
        "Fn::FindInMap": FindInMap,
        "Ref": CfnRef,
        "Fn::GetAtt": CfnGetAtt,
        **_CFN_DATA,
    },
)
AWS_20100909 = _table(HEAT_20121212, **{"Fn::If": If})
AWS_CONDITIONS_20100909 = _conditions(
    AWS_20100909,
    **{
        "Fn::Equals": Equals,
        "Ref": CfnParamRef,
        "Fn::FindInMap": FindInMap,
        "Fn::Not": NotList,
        "Fn::And": And,
        "Fn::Or": Or,
    },
)
C20210416 = _conditions(F20210416, **{k: v for k, v in C20170901.items()
                                      if v is not Invalid})
