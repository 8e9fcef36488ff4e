"""A version's functions as Heat's ``GET /template_versions/<v>/functions`` lists them.

Heat answers with each function's name and the first line of its function
class's docstring, in the order its version table declares them; with
``with_condition_func`` it adds the condition table's functions after the
others (a name already listed keeps its place and takes the condition's
class: CFN's ``Ref`` becomes the parameter-only reference). Removed functions
are left out.

Those words are part of what a client sees, so they are kept here as data,
one per function class, rather than read from hotplate's own docstrings
(which document hotplate's classes, and may change without changing the
API). The order is one list per family of versions: Heat's HOT tables from
2014-10-16 on all follow one sequence, 2013-05-23 (with its CFN functions)
and the two CFN versions each follow their own::

    family      order (condition-only functions last)
    hot 2013    Fn::GetAZs get_param get_resource Ref get_attr Fn::Select ...
    hot         get_attr get_file get_param get_resource list_join repeat ...
                then equals not and or
    cfn         Fn::FindInMap Fn::GetAZs Ref Fn::GetAtt Fn::Select ... Fn::If
                then Fn::Equals Fn::Not Fn::And Fn::Or
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from hotplate.template import functions as fn
from hotplate.template.versions import CFN, TemplateVersion

_ATTRIBUTES = "A function for resolving resource attributes."
_FACADE = "A function for retrieving data in a parent provider template."
_IF = "A function to return corresponding value based on condition evaluation."
_JOIN = "A function for joining strings."
_NOT = "A function that acts as a NOT operator on a condition."
_PARAMETER = "A function for resolving parameter references."
_REF = "A function for resolving parameters or resource references."
_REPEAT_MAP = "A function for iterating over a list of items or a dict of keys."
_SUBSTITUTE = "A function for performing string substitutions."
_SUBSTITUTE_MAPS = "A function for performing substitutions on maps."

_DESCRIPTIONS: Mapping[type[fn.Function], str] = MappingProxyType({
    fn.And: "A function that acts as an AND operator on conditions.",
    fn.Base64: "A placeholder function for converting to base64.",
    fn.CfnGetAtt: _ATTRIBUTES,
    fn.CfnParamRef: _PARAMETER,
    fn.CfnRef: _REF,
    fn.CfnReplace: _SUBSTITUTE,
    fn.CfnResourceFacade: _FACADE,
    fn.Contains: "A function for checking whether specific value is in sequence.",
    fn.Digest: "A function for performing digest operations.",
    fn.Equals: "A function for comparing whether two values are equal.",
    fn.Filter: "A function for filtering out values from lists.",
    fn.FindInMap: "A function for resolving keys in the template mappings.",
    fn.GetAZs: "A function for retrieving the availability zones.",
    fn.GetAttr: _ATTRIBUTES,
    fn.GetAttrAll: _ATTRIBUTES,
    fn.GetFile: "A function for including a file inline.",
    fn.GetParam: _PARAMETER,
    fn.GetResource: "A function for resolving resource references.",
    fn.If: _IF,
    fn.IfNullable: _IF,
    fn.Join: _JOIN,
    fn.JoinMultiple: "A function for joining one or more lists of strings.",
    fn.ListConcat: "A function for extending lists.",
    fn.ListConcatUnique: "A function for extending lists with unique items.",
    # Heat's make_url shares map_replace's words.
    fn.MakeURL: _SUBSTITUTE_MAPS,
    fn.MapMerge: "A function for merging maps.",
    fn.MapReplace: _SUBSTITUTE_MAPS,
    fn.MemberListToMap: "A function to convert lists with enumerated keys and values to mapping.",
    fn.Not: _NOT,
    fn.NotList: _NOT,
    fn.Or: "A function that acts as an OR operator on conditions.",
    fn.Ref: _REF,
    fn.Repeat: "A function for iterating over a list of items.",
    fn.RepeatWithMap: _REPEAT_MAP,
    fn.RepeatWithNestedLoop: _REPEAT_MAP,
    fn.Replace: _SUBSTITUTE,
    fn.ReplaceJson: _SUBSTITUTE,
    fn.ReplaceStrict: _SUBSTITUTE,
    fn.ReplaceVeryStrict: _SUBSTITUTE,
    fn.ResourceFacade: _FACADE,
    fn.Select: "A function for selecting an item from a list or map.",
    fn.Split: "A function for splitting strings.",
    fn.StrSplit: "A function for splitting delimited strings into a list.",
    fn.Yaql: "A function for executing a yaql expression.",
})


def _names(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_HOT_2013_ORDER = _names(
    "Fn::GetAZs get_param get_resource Ref get_attr Fn::Select Fn::Join list_join Fn::Split "
    "str_replace Fn::Replace Fn::Base64 Fn::MemberListToMap resource_facade "
    "Fn::ResourceFacade get_file"
)
_HOT_ORDER = _names(
    "get_attr get_file get_param get_resource list_join repeat resource_facade str_replace "
    "Fn::Select digest str_split map_merge yaql map_replace if filter str_replace_strict "
    "make_url list_concat str_replace_vstrict list_concat_unique contains "
    "equals not and or"
)
_CFN_ORDER = _names(
    "Fn::FindInMap Fn::GetAZs Ref Fn::GetAtt Fn::Select Fn::Join Fn::Split Fn::Replace "
    "Fn::Base64 Fn::MemberListToMap Fn::ResourceFacade Fn::If "
    "Fn::Equals Fn::Not Fn::And Fn::Or"
)

_NOT_LISTED = (fn.Removed, fn.Unsupported, fn.Invalid)


def _order(version: TemplateVersion) -> tuple[str, ...]:
    if version.kind == CFN:
        return _CFN_ORDER
    return _HOT_2013_ORDER if version.date == "2013-05-23" else _HOT_ORDER


def listed_functions(
    version: TemplateVersion, *, with_conditions: bool = False
) -> list[tuple[str, str]]:
    """``(name, description)`` of each function the version offers, in Heat's order.

    ``with_conditions`` adds the functions a condition may use; where a name
    means something else in a condition (CFN's ``Ref``), the condition's
    meaning is the one described, as Heat's merged table does.
    """
    table = {n: c for n, c in version.functions.items() if c not in _NOT_LISTED}
    if with_conditions:
        table.update(
            (n, c) for n, c in version.condition_functions.items() if c not in _NOT_LISTED
        )
    rank = {name: i for i, name in enumerate(_order(version))}
    names = sorted(table, key=lambda name: rank.get(name, len(rank)))
    return [(name, describe(table[name])) for name in names]


def describe(cls: type[fn.Function]) -> str:
    """Heat's one-line description of the function a class implements ("" if unknown)."""
    return _DESCRIPTIONS.get(cls, "")
