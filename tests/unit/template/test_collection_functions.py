"""Table tests for repeat, digest, map_*, str_split, strict str_replace, list_*, filter,
contains, make_url, yaql and resource_facade: values, and Heat's messages with paths."""

import hashlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hotplate.model.errors import StackValidationFailed
from tests.unit.template.fakes import FakeContext, resolve_web, template_with

PARAMS = {
    "l": {"type": "comma_delimited_list"},
    "j": {"type": "json"},
    "s": {"type": "string"},
}
CTX = FakeContext(params={"l": ["x", "y"], "j": {"a": 1}, "s": "a,b,c"})
W = "2021-04-16"

GOOD: list[tuple[str, Any, str, Any]] = [
    # repeat
    ("repeat list", {"repeat": {"for_each": {"%v%": ["a", "b"]}, "template": "n-%v%"}},
     "2015-04-30", ["n-a", "n-b"]),
    ("repeat nested body",
     {"repeat": {"for_each": {"<p>": ["80", "443"]},
                 "template": {"port": "<p>", "k<p>": ["<p>"]}}},
     W, [{"port": "80", "k80": ["80"]}, {"port": "443", "k443": ["443"]}]),
    ("repeat permutations",
     {"repeat": {"for_each": {"%a%": ["1", "2"], "%b%": ["x", "y"]}, "template": "%a%%b%"}},
     W, ["1x", "1y", "2x", "2y"]),
    ("repeat no permutations",
     {"repeat": {"for_each": {"%a%": ["1", "2"], "%b%": ["x", "y"]}, "template": "%a%%b%",
                 "permutations": False}}, W, ["1x", "2y"]),
    ("repeat map keys", {"repeat": {"for_each": {"%k%": {"p": 1, "q": 2}}, "template": "%k%"}},
     "2016-10-14", ["p", "q"]),
    ("repeat get_param", {"repeat": {"for_each": {"%v%": {"get_param": "l"}}, "template": "%v%"}},
     W, ["x", "y"]),
    ("repeat null list", {"repeat": {"for_each": {"%v%": None}, "template": "%v%"}}, W, []),
    ("repeat non-text body", {"repeat": {"for_each": {"%v%": ["a"]}, "template": 3}}, W, [3]),
    # digest
    ("digest md5", {"digest": ["md5", "abc"]}, "2015-04-30", "900150983cd24fb0d6963f7d28e17f72"),
    ("digest sha1", {"digest": ["SHA1", "abc"]}, W, "a9993e364706816aba3e25717850c26c9cd0d89d"),
    ("digest sha256", {"digest": ["sha256", "abc"]}, W,
     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    ("digest param", {"digest": ["sha512", {"get_param": "s"}]}, W,
     hashlib.sha512(b"a,b,c").hexdigest()),
    # map_merge
    ("map_merge", {"map_merge": [{"a": 1, "b": 1}, {"b": 2}, None]}, "2016-04-08",
     {"a": 1, "b": 2}),
    ("map_merge param", {"map_merge": [{"get_param": "j"}, {"c": 3}]}, W, {"a": 1, "c": 3}),
    # map_replace
    ("map_replace", {"map_replace": [{"k1": "v1", "k2": "v2"},
                                     {"keys": {"k1": "K1"}, "values": {"v2": "V2"}}]},
     "2016-10-14", {"K1": "v1", "k2": "V2"}),
    ("map_replace list value kept", {"map_replace": [{"k": [1]}, {"values": {"x": "y"}}]}, W,
     {"k": [1]}),
    ("map_replace swap keys",
     {"map_replace": [{"a": 1, "b": 2}, {"keys": {"a": "a"}}]}, W, {"a": 1, "b": 2}),
    # str_split
    ("str_split", {"str_split": [",", "a,b,c"]}, "2015-10-15", ["a", "b", "c"]),
    ("str_split index", {"str_split": [",", "a,b,c", 1]}, W, "b"),
    ("str_split text index", {"str_split": [",", "a,b,c", "2"]}, W, "c"),
    ("str_split param", {"str_split": [",", {"get_param": "s"}]}, W, ["a", "b", "c"]),
    ("str_split null", {"str_split": [",", None]}, W, None),
    # strict replace
    ("str_replace_strict", {"str_replace_strict": {"template": "a-$x", "params": {"$x": 1}}},
     "2017-02-24", "a-1"),
    ("str_replace_vstrict", {"str_replace_vstrict": {"template": "$x", "params": {"$x": [1]}}},
     W, "[1]"),
    # list_concat
    ("list_concat", {"list_concat": [[1, 2], None, [2, 3]]}, "2017-09-01", [1, 2, 2, 3]),
    ("list_concat_unique", {"list_concat_unique": [[1, 2], [2, 3, 1]]}, W, [1, 2, 3]),
    ("list_concat param", {"list_concat": [{"get_param": "l"}, ["z"]]}, W, ["x", "y", "z"]),
    # filter
    ("filter", {"filter": [[1, None], [1, 2, None, 3]]}, "2017-02-24", [2, 3]),
    ("filter nothing", {"filter": [None, [1]]}, W, [1]),
    ("filter empty", {"filter": [[1], []]}, W, []),
    # contains
    ("contains", {"contains": ["x", {"get_param": "l"}]}, "2017-09-01", True),
    ("contains not", {"contains": ["q", ["a"]]}, W, False),
    ("contains text", {"contains": ["b", "abc"]}, W, True),
    # make_url
    ("make_url", {"make_url": {"scheme": "https", "host": "example.com", "port": 8080,
                               "path": "/a b", "query": {"q": "1/2"}, "fragment": "f"}},
     "2017-09-01", "https://example.com:8080/a%20b?q=1/2#f"),
    ("make_url user ipv6", {"make_url": {"scheme": "http", "username": "u@", "password": "p",
                                         "host": "::1", "port": "80"}},
     W, "http://u%40:p@[::1]:80"),
    ("make_url bracketed host", {"make_url": {"host": "[fe80::1]"}}, W, "//[fe80::1]"),
    # yaql
    ("yaql", {"yaql": {"expression": "$.data.v.sum()", "data": {"v": [3, 2, 1]}}},
     "2016-10-14", 6),
    ("yaql list", {"yaql": {"expression": "$.data.l.select($ + '!')",
                            "data": {"l": {"get_param": "l"}}}}, W, ["x!", "y!"]),
    ("yaql map", {"yaql": {"expression": "dict(a => 1)"}}, W, {"a": 1}),
    # if with literal conditions
    ("if true", {"if": [True, "yes", "no"]}, "2016-10-14", "yes"),
    ("if false", {"if": [False, "yes", {"get_param": "s"}]}, W, "a,b,c"),
    # plain data before their versions
    ("map_replace is data before 2016-10-14", {"map_replace": []}, "2016-04-08",
     {"map_replace": []}),
    ("equals is data in properties", {"equals": [1, 1]}, W, {"equals": [1, 1]}),
    ("contains is data before 2017-09-01", {"contains": [1, [1]]}, "2017-02-24",
     {"contains": [1, [1]]}),
]


@pytest.mark.parametrize(
    ("value", "version", "expected"), [c[1:] for c in GOOD], ids=[c[0] for c in GOOD]
)
def test_functions_resolve(value: Any, version: str, expected: Any) -> None:
    assert resolve_web({"a": value}, CTX, version=version, parameters=PARAMS) == {"a": expected}


P = "resources.web.properties.a."
MAP_REPLACE_EXAMPLE = (
    '"map_replace" : [ { "key1": "val1" }, '
    '{"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]'
)

BAD: list[tuple[str, Any, str, str]] = [
    ("repeat not a map", {"repeat": ["a"]}, W, 'repeat: Arguments to "repeat" must be a map'),
    ("repeat no template", {"repeat": {"for_each": {}}}, W,
     "repeat: '\"repeat\" syntax should be repeat:\\n              template: This is %var%"
     "\\n              for_each:\\n                %var%: [\\'a\\', \\'b\\', \\'c\\']'"),
    ("repeat for_each list", {"repeat": {"for_each": ["a"], "template": "x"}}, W,
     'repeat: The "for_each" argument to "repeat" must contain a map'),
    ("repeat values text", {"repeat": {"for_each": {"%v%": "ab"}, "template": "x"}}, W,
     'repeat: The values of the "for_each" argument to "repeat" must be lists or maps'),
    ("repeat map before 2016-10-14", {"repeat": {"for_each": {"%v%": {"a": 1}}, "template": "x"}},
     "2016-04-08", 'repeat: The values of the "for_each" argument to "repeat" must be lists'),
    ("repeat permutations type",
     {"repeat": {"for_each": {"%v%": ["a"]}, "template": "x", "permutations": "no"}}, W,
     'repeat: "permutations" should be boolean type for repeat function.'),
    ("repeat unequal lengths",
     {"repeat": {"for_each": {"%a%": ["1"], "%b%": ["x", "y"]}, "template": "x",
                 "permutations": False}}, W,
     "repeat: For repeat, the length of for_each values should be equal if no nested loop."),
    ("digest not list", {"digest": "md5"}, W,
     'digest: Argument to function "digest" must be a list of strings'),
    ("digest arity", {"digest": ["md5"]}, W,
     'digest: Function "digest" usage: ["<algorithm>", "<value>"]'),
    ("digest algorithm", {"digest": ["crc", "x"]}, W,
     "digest: Algorithm must be one of {'blake2b', 'blake2s', 'md5', "),
    ("repeat numbers in text", {"repeat": {"for_each": {"<p>": [80]}, "template": "p<p>"}}, W,
     "repeat: replace() argument 2 must be str, not int"),
    ("map_merge not list", {"map_merge": {"a": 1}}, W,
     'map_merge: Incorrect arguments to "map_merge" should be: '
     '"map_merge" : [ { "key1": "val1" }, { "key2": "val2" } ]'),
    ("map_merge item", {"map_merge": [{"a": 1}, [1]]}, W,
     "map_merge: Incorrect arguments: Items to merge must be maps."),
    ("map_replace arity", {"map_replace": [{"a": 1}]}, W,
     f'map_replace: Incorrect arguments to "map_replace" should be: {MAP_REPLACE_EXAMPLE}'),
    ("map_replace bad key", {"map_replace": [{"a": 1}, {"kees": {}}]}, W,
     f'map_replace: Incorrect arguments to "map_replace" should be: {MAP_REPLACE_EXAMPLE}'),
    ("map_replace not maps", {"map_replace": [[1], {}]}, W,
     'map_replace: Incorrect arguments: to "map_replace", arguments must be a list of maps. '
     f"Example:  {MAP_REPLACE_EXAMPLE}"),
    ("map_replace input collision", {"map_replace": [{"a": 1, "b": 2}, {"keys": {"a": "b"}}]}, W,
     "map_replace: key replacement b collides with a key in the input map"),
    ("map_replace output collision",
     {"map_replace": [{"a": 1, "b": 2}, {"keys": {"a": "c", "b": "c"}}]}, W,
     "map_replace: key replacement c collides with a key in the output map"),
    ("str_split text", {"str_split": "a,b"}, W,
     'str_split: Incorrect arguments to "str_split" should be: '
     '"str_split" : [ ",", "apples,pears", <index>]'),
    ("str_split short", {"str_split": [","]}, W,
     'str_split: Incorrect arguments to "str_split" should be: '
     '"str_split" : [ ",", "apples,pears", <index>]'),
    ("str_split index text", {"str_split": [",", "a,b", "x"]}, W,
     'str_split: Incorrect index to "str_split" should be: '
     '"str_split" : [ ",", "apples,pears", <index>]'),
    ("str_split index range", {"str_split": [",", "a,b", 5]}, W,
     'str_split: Incorrect index to "str_split" should be between 0 and 1'),
    ("str_replace_strict missing",
     {"str_replace_strict": {"template": "$a", "params": {"$a": 1, "$bb": 2, "$c": 3}}}, W,
     "str_replace_strict: The following params were not found in the template: $bb,$c"),
    ("str_replace_vstrict empty",
     {"str_replace_vstrict": {"template": "$a", "params": {"$a": ""}}}, W,
     "str_replace_vstrict: str_replace_vstrict has an undefined or empty value for param $a, "
     "must be a defined non-empty value"),
    ("str_replace_vstrict null",
     {"str_replace_vstrict": {"template": "$a", "params": {"$a": None}}}, W,
     "str_replace_vstrict: str_replace_vstrict has an undefined or empty value for param $a, "
     "must be a defined non-empty value"),
    ("list_concat not list", {"list_concat": "ab"}, W,
     'list_concat: Incorrect arguments to "list_concat" should be: '
     '"list_concat" : [ [ <value 1>, <value 2> ], [ <value 3>, <value 4> ] ]'),
    ("list_concat item", {"list_concat": [[1], "ab"]}, W,
     "list_concat: Incorrect arguments: Items to concat must be lists."),
    ("filter not list", {"filter": "ab"}, W, 'filter: Argument to "filter" must be a list'),
    ("filter arity", {"filter": [[1]]}, W,
     'filter: "filter" expected 2 arguments of the form [values, sequence] '
     "but got 1 arguments instead"),
    ("filter sequence", {"filter": [[1], {"a": 1}]}, W, 'filter: "filter" only works with lists'),
    ("filter values", {"filter": [{"a": 1}, [1]]}, W, 'filter: "filter" filters a list of values'),
    ("contains empty", {"contains": []}, W,
     'contains: Incorrect arguments to "contains" should be: '
     '"contains" : [ "value1", [ "value1", "value2"]]'),
    ("contains arity", {"contains": [1, 2, 3]}, W,
     'contains: Arguments to "contains" must be of the form: [value1, [value1, value2]]'),
    ("contains not sequence", {"contains": [1, 2]}, W,
     'contains: Second argument to "contains" should be a sequence.'),
    ("make_url not map", {"make_url": ["a"]}, W,
     'make_url: The arguments to "make_url" must be a map'),
    ("make_url bad key", {"make_url": {"hots": "a"}}, W,
     'make_url: Invalid arguments to "make_url": hots'),
    ("make_url query", {"make_url": {"query": "a"}}, W,
     'make_url: The "query" argument to "make_url" must be a map'),
    ("make_url host", {"make_url": {"host": 1}}, W,
     'make_url: The "host" argument to "make_url" must be a string'),
    ("make_url port text", {"make_url": {"port": "x"}}, W,
     "make_url: Invalid URL port \"x\" for make_url called with {'port': 'x'}"),
    ("make_url port range", {"make_url": {"port": 70000}}, W,
     "make_url: Invalid URL port 70000, must be in range 1-65535"),
    ("make_url scheme", {"make_url": {"scheme": "http:"}}, W,
     "make_url: URL \"scheme\" should not contain ':'"),
    ("yaql not map", {"yaql": "x"}, W, 'yaql: Arguments to "yaql" must be a map.'),
    ("yaql extra key", {"yaql": {"expression": "1", "x": 1}}, W,
     "'\"yaql\" syntax should be yaql:\\n              expression: $.data.var1.sum()\\n"
     "              data:\\n                var1: [3, 2, 1]'"),
    ("yaql expression type", {"yaql": {"expression": 1}}, W,
     'yaql: The "expression" argument to yaql must contain a string.'),
    ("yaql too long", {"yaql": {"expression": "1+" * 1100 + "1"}}, W,
     'yaql: The "expression" argument to yaql is longer than 2048 characters.'),
    ("yaql bad expression", {"yaql": {"expression": "$.data.("}}, W, "yaql: Bad expression "),
    ("yaql too large", {"yaql": {"expression": "range(0, 100000).toList()"}}, W,
     "yaql: Collection length exceeds 200 elements"),
    ("resource_facade", {"resource_facade": "tags"}, W,
     'resource_facade: Incorrect arguments to "resource_facade" should be one of: '
     "metadata, deletion_policy, update_policy"),
    ("if arity", {"if": [True]}, W,
     'if: Arguments to "if" must be of the form: '
     "[condition_name, value_if_true, value_if_false]"),
    ("if unknown condition", {"if": ["nope", 1, 2]}, W, 'if: Invalid condition "nope"'),
]


@pytest.mark.parametrize(
    ("value", "version", "message"), [c[1:] for c in BAD], ids=[c[0] for c in BAD]
)
def test_function_errors(value: Any, version: str, message: str) -> None:
    with pytest.raises(StackValidationFailed) as info:
        template = template_with({"a": value}, version=version, parameters=PARAMS)
        template.resources["web"].resolve_properties(CTX)
    assert str(info.value).startswith(P + message) or str(info.value).endswith(message)
    assert info.value.path[:4] == ("resources", "web", "properties", "a")


RUNTIME_BAD: list[tuple[str, Any, str]] = [
    ("digest of a list param", {"digest": ["md5", {"get_param": "l"}]},
     'Argument to function "digest" must be a list of strings'),
    ("map_merge of a text param", {"map_merge": [{"get_param": "s"}]},
     "Incorrect arguments: Items to merge must be maps. 'a,b,c' is type <class 'str'> "
     "instead of a dict"),
    ("repeat over text param", {"repeat": {"for_each": {"%v%": {"get_param": "s"}},
                                           "template": "x"}},
     'The values of the "for_each" argument to "repeat" must be lists or maps'),
    ("resource_facade top-level", {"resource_facade": "metadata"},
     '"resource_facade" is not supported for a top-level stack: '
     "it reads the parent resource of a nested stack"),
]


@pytest.mark.parametrize(
    ("value", "message"), [c[1:] for c in RUNTIME_BAD], ids=[c[0] for c in RUNTIME_BAD]
)
def test_function_errors_at_resolve(value: Any, message: str) -> None:
    template = template_with({"a": value}, parameters=PARAMS)
    with pytest.raises(StackValidationFailed) as info:
        template.resources["web"].resolve_properties(CTX)
    assert str(info.value) == P + value.__iter__().__next__() + ": " + message


@given(st.lists(st.integers(0, 4), max_size=12))
def test_list_concat_unique_keeps_each_first_occurrence(items: list[int]) -> None:
    from hotplate.template.functions.collections import _first_of_each

    assert _first_of_each(items) == list(dict.fromkeys(items))  # Heat 27's loop
