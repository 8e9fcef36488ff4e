"""HOT functions: the node tree (``base``) and one module per family of functions."""

from hotplate.template.functions.base import (
    Function,
    ListNode,
    MapNode,
    Node,
    ParseScope,
    Static,
    compile_snippet,
    iter_functions,
)
from hotplate.template.functions.placeholders import Removed, Unsupported
from hotplate.template.functions.references import (
    ALL_ATTRIBUTES,
    GetAttr,
    GetAttrAll,
    GetParam,
    GetResource,
)
from hotplate.template.functions.strings import GetFile, Join, JoinMultiple, Replace, ReplaceJson

__all__ = [
    "ALL_ATTRIBUTES",
    "Function",
    "GetAttr",
    "GetAttrAll",
    "GetFile",
    "GetParam",
    "GetResource",
    "Join",
    "JoinMultiple",
    "ListNode",
    "MapNode",
    "Node",
    "ParseScope",
    "Removed",
    "Replace",
    "ReplaceJson",
    "Static",
    "Unsupported",
    "compile_snippet",
    "iter_functions",
]
