from typing import Any

import pytest

from hotplate.model.errors import (
    StackValidationFailed,
    UserParameterMissing,
)
from hotplate.template import ALL_ATTRIBUTES, InvalidTemplateReference
from tests.unit.template.fakes import FakeContext, resolve_web, template_with

PARAMS = {
    "p": {"type": "string"},
    "n": {"type": "number"},
    "j": {"type": "json"},
    "l": {"type": "comma_delimited_list"},
    "k": {"type": "string"},
    "pn": {"type": "string"},
}
CTX = FakeContext(
    params={
        "p": "x",
        "n": 5,
        "j": {"a": {"b": 1}, "list": [10, 20]},
        "l": ["x", "y"],
        "k": "a",
        "pn": "p",
        "OS::stack_name": "mystack",
    },
    refs={"db": "db-id"},
    attrs={
        "db": {
            "ip": "10.0.0.1",
            "addrs": {"net": ["10.0.0.1", "10.0.0.2"]},
            "name": "dbname",
            ALL_ATTRIBUTES: {"ip": "10.0.0.1"},
            "items": ["a", "b"],
            "map": {"b": 2, "a": 1},
        }
    },
)

GOOD: list[tuple[str, Any, str, Any]] = [
    # get_param
    ("get_param name", {"get_param": "p"}, "2021-04-16", "x"),
    ("get_param number", {"get_param": "n"}, "2021-04-16", 5),
    ("get_param json path", {"get_param": ["j", "a", "b"]}, "2021-04-16", 1),
    ("get_param list index", {"get_param": ["l", 1]}, "2021-04-16", "y"),
    ("get_param index as text", {"get_param": ["l", "1"]}, "2021-04-16", "y"),
    ("get_param json list index", {"get_param": ["j", "list", 0]}, "2021-04-16", 10),
    ("get_param missing key is empty", {"get_param": ["j", "zz"]}, "2021-04-16", ""),
    ("get_param bad index is empty", {"get_param": ["l", "x"]}, "2021-04-16", ""),
    ("get_param past a leaf is empty", {"get_param": ["n", "a"]}, "2021-04-16", ""),
    ("get_param pseudo", {"get_param": "OS::stack_name"}, "2021-04-16", "mystack"),
    ("get_param computed key", {"get_param": ["j", {"get_param": "k"}, "b"]}, "2021-04-16", 1),
    ("get_param computed name", {"get_param": {"get_param": "pn"}}, "2013-05-23", "x"),
    # get_resource
    ("get_resource", {"get_resource": "db"}, "2021-04-16", "db-id"),
    # get_attr
    ("get_attr", {"get_attr": ["db", "ip"]}, "2021-04-16", "10.0.0.1"),
    ("get_attr path", {"get_attr": ["db", "addrs", "net", 1]}, "2021-04-16", "10.0.0.2"),
    ("get_attr missing path", {"get_attr": ["db", "addrs", "nope"]}, "2021-04-16", None),
    ("get_attr unknown attr", {"get_attr": ["db", "nothing"]}, "2021-04-16", None),
    ("get_attr text index", {"get_attr": ["db", "name", 0]}, "2021-04-16", "d"),
    ("get_attr all", {"get_attr": ["db"]}, "2015-10-15", {"ip": "10.0.0.1"}),
    ("get_attr old", {"get_attr": ["db", "ip"]}, "2013-05-23", "10.0.0.1"),
    ("get_attr computed path", {"get_attr": ["db", "addrs", {"get_param": "n"}]}, "2021-04-16",
     None),
    # str_replace
    ("str_replace", {"str_replace": {"template": "$a-$b", "params": {"$a": "1", "$b": 2}}},
     "2021-04-16", "1-2"),
    ("str_replace longest first",
     {"str_replace": {"template": "abcd", "params": {"bcd": "X", "ab": "Y"}}},
     "2021-04-16", "aX"),
    ("str_replace ties in lexical order",
     {"str_replace": {"template": "aXb", "params": {"aX": "1", "Xb": "2"}}},
     "2021-04-16", "a2"),
    ("str_replace values not rescanned",
     {"str_replace": {"template": "$a", "params": {"$a": "$b", "$b": "no"}}},
     "2021-04-16", "$b"),
    ("str_replace none is empty", {"str_replace": {"template": "[$a]", "params": {"$a": None}}},
     "2021-04-16", "[]"),
    ("str_replace bool and float",
     {"str_replace": {"template": "$a $b", "params": {"$a": True, "$b": 1.5}}},
     "2021-04-16", "True 1.5"),
    ("str_replace json values",
     {"str_replace": {"template": "v=$x", "params": {"$x": [1, {"b": 2, "a": 1}]}}},
     "2015-10-15", 'v=[1, {"a": 1, "b": 2}]'),
    ("str_replace with get_attr",
     {"str_replace": {"template": "http://host/", "params": {"host": {"get_attr": ["db", "ip"]}}}},
     "2021-04-16", "http://10.0.0.1/"),
    ("str_replace json attr",
     {"str_replace": {"template": "m=M", "params": {"M": {"get_attr": ["db", "map"]}}}},
     "2021-04-16", 'm={"a": 1, "b": 2}'),
    ("str_replace repeated key", {"str_replace": {"template": "a.a.a", "params": {"a": "b"}}},
     "2013-05-23", "b.b.b"),
    # list_join
    ("list_join", {"list_join": [",", ["a", "b"]]}, "2013-05-23", "a,b"),
    ("list_join none items", {"list_join": ["-", ["a", None, "b"]]}, "2021-04-16", "a--b"),
    ("list_join many lists", {"list_join": [",", ["a"], ["b", "c"], []]}, "2015-10-15", "a,b,c"),
    ("list_join json items", {"list_join": [";", [{"b": 1, "a": 2}, [1]]]}, "2021-04-16",
     '{"a": 2, "b": 1};[1]'),
    ("list_join get_param list", {"list_join": ["+", {"get_param": "l"}]}, "2021-04-16", "x+y"),
    ("list_join get_attr list", {"list_join": ["+", {"get_attr": ["db", "items"]}]},
     "2021-04-16", "a+b"),
    ("list_join empty", {"list_join": [",", []]}, "2013-05-23", ""),
    # plain data where a version has no such function
    ("digest is data before 2015-04-30", {"digest": ["sha1", "x"]}, "2014-10-16",
     {"digest": ["sha1", "x"]}),
    ("str_split is data before 2015-10-15", {"str_split": [",", "a"]}, "2015-04-30",
     {"str_split": [",", "a"]}),
    ("two keys are data", {"get_param": "p", "other": 1}, "2021-04-16",
     {"get_param": "p", "other": 1}),
    ("nested", {"a": [{"b": {"get_param": "p"}}, 2]}, "2021-04-16", {"a": [{"b": "x"}, 2]}),
]


@pytest.mark.parametrize(
    ("value", "version", "expected"),
    [case[1:] for case in GOOD],
    ids=[case[0] for case in GOOD],
)
def test_functions_resolve(value: Any, version: str, expected: Any) -> None:
    result = resolve_web({"a": value}, CTX, version=version, parameters=PARAMS)
    assert result == {"a": expected}


BAD: list[tuple[str, Any, str, type[Exception], str]] = [
    ("get_param undefined", {"get_param": "nope"}, "2021-04-16", UserParameterMissing,
     "The Parameter (nope) was not provided."),
    ("get_param undefined in list", {"get_param": ["nope", "a"]}, "2021-04-16",
     UserParameterMissing, "The Parameter (nope) was not provided."),
    ("get_param no args", {"get_param": []}, "2021-04-16", StackValidationFailed,
     'resources.web.properties.a.get_param: Function "get_param" must have arguments'),
    ("get_param map args", {"get_param": {"a": 1}}, "2021-04-16", StackValidationFailed,
     'resources.web.properties.a.get_param: Argument to "get_param" must be string or list'),
    ("get_param name not text", {"get_param": [1, "a"]}, "2021-04-16", StackValidationFailed,
     'resources.web.properties.a.get_param: Parameter name in "get_param" must be string'),
    ("get_resource undefined", {"get_resource": "nope"}, "2021-04-16",
     InvalidTemplateReference,
     'The specified reference "nope" (in web.Properties.a) is incorrect.'),
    ("get_resource list", {"get_resource": ["db"]}, "2021-04-16", StackValidationFailed,
     "unhashable type: 'list'"),  # Heat looks the list up among the resources
    ("get_attr undefined", {"get_attr": ["nope", "ip"]}, "2021-04-16",
     InvalidTemplateReference,
     'The specified reference "nope" (in web.Properties.a) is incorrect.'),
    ("get_attr text", {"get_attr": "db"}, "2021-04-16", StackValidationFailed,
     'resources.web.properties.a.get_attr: Argument to "get_attr" must be a list'),
    ("get_attr empty", {"get_attr": []}, "2021-04-16", StackValidationFailed,
     'resources.web.properties.a.get_attr: Arguments to "get_attr" can be of the next forms: '
     "[resource_name] or [resource_name, attribute, (path), ...]"),
    ("get_attr one arg before 2015-10-15", {"get_attr": ["db"]}, "2015-04-30",
     StackValidationFailed,
     'resources.web.properties.a.get_attr: Arguments to "get_attr" must be of the form '
     "[resource_name, attribute, (path), ...]"),
    ("get_attr resource name a number", {"get_attr": [1, "ip"]}, "2021-04-16",
     InvalidTemplateReference, 'The specified reference "1" (in web.Properties.a) is incorrect.'),
    ("str_replace list args", {"str_replace": ["a"]}, "2021-04-16", StackValidationFailed,
     'resources.web.properties.a.str_replace: Arguments to "str_replace" must be a map'),
    ("str_replace no params", {"str_replace": {"template": "x"}}, "2021-04-16",
     StackValidationFailed,
     "resources.web.properties.a.str_replace: '\"str_replace\" syntax should be str_replace:"
     "\\n              template: This is var1 template var2\\n              params:\\n"
     "                var1: a\\n                var2: string'"),
    ("str_replace params list", {"str_replace": {"template": "x", "params": [1]}}, "2021-04-16",
     StackValidationFailed,
     'resources.web.properties.a.str_replace: "str_replace" parameters must be a mapping'),
    ("str_replace template not text", {"str_replace": {"template": 1, "params": {}}},
     "2021-04-16", StackValidationFailed,
     'resources.web.properties.a.str_replace: "str_replace" template must be a string'),
    ("str_replace list value before 2015-10-15",
     {"str_replace": {"template": "$x", "params": {"$x": [1]}}}, "2015-04-30",
     StackValidationFailed,
     'resources.web.properties.a.str_replace: "str_replace" params must be strings or numbers, '
     "param $x is not valid"),
    ("str_replace empty placeholder", {"str_replace": {"template": "x", "params": {"": "y"}}},
     "2021-04-16", StackValidationFailed,
     "resources.web.properties.a.str_replace: empty separator"),
    ("list_join several lists before 2015-10-15", {"list_join": [",", ["a"], ["b"]]},
     "2015-04-30", StackValidationFailed,
     'resources.web.properties.a.list_join: Incorrect arguments to "list_join" should be: '
     '"list_join" : [ " ", [ "str1", "str2"]]'),
    ("list_join no list", {"list_join": [","]}, "2021-04-16", StackValidationFailed,
     'resources.web.properties.a.list_join: Incorrect arguments to "list_join" should be: '
     '"list_join" : [ " ", [ "str1", "str2"] ...]'),
    ("list_join map args", {"list_join": {"a": 1}}, "2021-04-16", StackValidationFailed,
     'resources.web.properties.a.list_join: Incorrect arguments to "list_join" should be: '
     '"list_join" : [ " ", [ "str1", "str2"] ...]'),
    ("list_join text", {"list_join": [",", "abc"]}, "2021-04-16", StackValidationFailed,
     'resources.web.properties.a.list_join: "list_join" must operate on a list'),
    ("list_join delimiter", {"list_join": [1, ["a"]]}, "2021-04-16", StackValidationFailed,
     'resources.web.properties.a.list_join: "list_join" delimiter must be a string'),
    ("list_join number item", {"list_join": [",", [1]]}, "2021-04-16", StackValidationFailed,
     'resources.web.properties.a.list_join: Items to join must be string, map or list not 1'),
    ("list_join number item old", {"list_join": [",", ["a", 1]]}, "2014-10-16",
     StackValidationFailed,
     "resources.web.properties.a.list_join: Items to join must be strings not 1"),
    ("get_file missing", {"get_file": "b.txt"}, "2021-04-16", StackValidationFailed,
     'resources.web.properties.a.get_file: No content found in the "files" section for '
     "get_file path: b.txt"),
    ("get_file not text", {"get_file": ["a.txt"]}, "2021-04-16", StackValidationFailed,
     'resources.web.properties.a.get_file: Argument to "get_file" must be a string'),
    ("removed function", {"Fn::Join": [",", ["a"]]}, "2014-10-16", StackValidationFailed,
     "resources.web.properties.a.Fn::Join: The template version is invalid: "
     "The function Fn::Join is not supported in this version of HOT."),
    ("removed Fn::Select", {"Fn::Select": [0, ["a"]]}, "2015-10-15", StackValidationFailed,
     "resources.web.properties.a.Fn::Select: The template version is invalid: "
     "The function Fn::Select is not supported in this version of HOT."),
    ("CFN function of 2013-05-23", {"Fn::Select": [0]}, "2013-05-23", StackValidationFailed,
     'resources.web.properties.a.Fn::Select: '
     'Arguments to "Fn::Select" must be of the form [index, collection]'),
    ("error inside a list", {"x": [1, {"get_param": []}]}, "2021-04-16", StackValidationFailed,
     'resources.web.properties.a.x[1].get_param: Function "get_param" must have arguments'),
    ("error in nested function", {"list_join": [",", [{"get_attr": "db"}]]}, "2021-04-16",
     StackValidationFailed,
     "resources.web.properties.a.list_join[1][0].get_attr: "
     'Argument to "get_attr" must be a list'),
]


@pytest.mark.parametrize(
    ("value", "version", "error", "message"),
    [case[1:] for case in BAD],
    ids=[case[0] for case in BAD],
)
def test_function_errors_by_create(
    value: Any, version: str, error: type[Exception], message: str
) -> None:
    """Each error surfaces when Heat raises it: parsed, validated or resolved."""
    with pytest.raises(error) as info:
        resolve_web(
            {"a": value}, FakeContext(params={"s": "x", "n": 1}), version=version,
            parameters=PARAMS, files={"a.txt": "content"},
        )
    assert str(info.value) == message
    assert isinstance(info.value, StackValidationFailed)
    assert info.value.path[:3] == ("resources", "web", "properties")


RUNTIME_BAD: list[tuple[str, Any, str]] = [
    ("str_replace params not a map",
     {"str_replace": {"template": "x", "params": {"get_param": "l"}}},
     '"str_replace" params must be a map'),
    ("str_replace template from param",
     {"str_replace": {"template": {"get_param": "j"}, "params": {}}},
     '"str_replace" template must be a string'),
    ("list_join over a map attribute", {"list_join": [",", {"get_attr": ["db", "map"]}]},
     '"list_join" must operate on a list'),
    ("get_param computed name unknown", {"get_param": {"get_param": "p"}},
     "The Parameter (x) was not provided."),
]


@pytest.mark.parametrize(
    ("value", "message"), [c[1:] for c in RUNTIME_BAD], ids=[c[0] for c in RUNTIME_BAD]
)
def test_function_errors_at_resolve(value: Any, message: str) -> None:
    template = template_with({"a": value}, parameters=PARAMS)
    with pytest.raises(StackValidationFailed) as info:
        template.resources["web"].resolve_properties(CTX)
    assert str(info.value).endswith(message)
    assert info.value.path[:4] == ("resources", "web", "properties", "a")


def test_get_file_reads_files() -> None:
    assert resolve_web({"a": {"get_file": "a.txt"}}, files={"a.txt": "hello"}) == {"a": "hello"}


def test_get_resource_before_creation_is_none() -> None:
    assert resolve_web({"a": {"get_resource": "db"}}, FakeContext()) == {"a": None}


def test_get_attr_all_attributes_asks_for_the_marker() -> None:
    ctx = FakeContext(attrs={"db": {ALL_ATTRIBUTES: {"x": 1}}})
    assert resolve_web({"a": {"get_attr": ["db"]}}, ctx) == {"a": {"x": 1}}
    assert ctx.attribute_reads == [("db", ALL_ATTRIBUTES)]


def test_resolved_properties_are_fresh_copies() -> None:
    template = template_with({"a": {"b": [1, 2]}, "c": {"get_param": "j"}}, parameters=PARAMS)
    web = template.resources["web"]
    first = web.resolve_properties(CTX)
    first["a"]["b"].append(3)
    assert web.resolve_properties(CTX)["a"] == {"b": [1, 2]}
    assert template.to_dict()["resources"]["web"]["properties"]["a"] == {"b": [1, 2]}


def test_values_from_the_context_are_copied() -> None:
    ctx = FakeContext(params={"j": {"a": [1]}}, attrs={"db": {"m": {"b": [2]}}})
    template = template_with(
        {"p": {"get_param": "j"}, "q": {"get_attr": ["db", "m"]}}, parameters=PARAMS
    )
    resolved = template.resources["web"].resolve_properties(ctx)
    resolved["p"]["a"].append(9)
    resolved["q"]["b"].append(9)
    assert ctx.params["j"] == {"a": [1]}
    assert ctx.attrs["db"]["m"] == {"b": [2]}


def test_literal_functions_are_computed_once_at_parse() -> None:
    template = template_with({"a": {"str_replace": {"template": "a-b", "params": {"-": "+"}}}})
    node = template.resources["web"].properties_node
    assert node.as_mapping() is not None
    assert template.resources["web"].resolve_properties(FakeContext()) == {"a": "a+b"}
