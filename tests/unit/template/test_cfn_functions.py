"""CFN's functions, in CFN templates and in HOT 2013-05-23: values and Heat's messages."""

from typing import Any

import pytest

from hotplate.model.errors import StackValidationFailed, UserParameterMissing
from hotplate.template import InvalidTemplateReference, Template, parse_template
from hotplate.template.validation import validate_functions
from tests.unit.template.fakes import FakeContext

AWS = "AWSTemplateFormatVersion"
HEAT = "HeatTemplateFormatVersion"
VERSIONS = {AWS: "2010-09-09", HEAT: "2012-12-12"}

MAPPINGS = {
    "ValidMapping": {"TestKey": {"TestValue": "wibble"}},
    "InvalidMapping": {"ValueList": ["foo", "bar"], "ValueString": "baz"},
    "MapList": ["foo", {"bar": "baz"}],
    "MapString": "foobar",
}
PSEUDO = {"OS::stack_name": "my stack", "OS::stack_id": "1234", "OS::project_id": "p/1"}
CTX = FakeContext(
    params={"foo": "wibble", "blarg": "quux", "n": 3, "key": "TestKey", **PSEUDO},
    refs={"db": "db-id"},
    attrs={"db": {"ip": "10.0.0.1", "addrs": ["a", "b"]}},
)


def cfn(properties: Any, key: str = AWS, **sections: Any) -> Template:
    """A CFN template whose resource ``web`` has ``properties``; ``db`` exists too."""
    data: dict[str, Any] = {
        key: VERSIONS[key],
        "Parameters": {
            "foo": {"Type": "String"},
            "blarg": {"Type": "String", "Default": "quux"},
            "n": {"Type": "Number"},
            "key": {"Type": "String"},
        },
        "Mappings": MAPPINGS,
        "Resources": {
            "db": {"Type": "OS::Heat::None"},
            "web": {"Type": "OS::Heat::None", "Properties": properties},
        },
        **sections,
    }
    return parse_template(data)


def resolve(value: Any, key: str = AWS, ctx: FakeContext = CTX) -> Any:
    """Parsed, validated as before a create, then resolved."""
    template = cfn({"a": value}, key)
    validate_functions(template)
    return template.resources["web"].resolve_properties(ctx)["a"]


def hot2013(value: Any) -> Template:
    return parse_template(
        {
            "heat_template_version": "2013-05-23",
            "parameters": {"foo": {"type": "string"}},
            "resources": {
                "db": {"type": "OS::Heat::None"},
                "web": {"type": "OS::Heat::None", "properties": {"a": value}},
            },
        }
    )


GOOD: list[tuple[str, Any, Any]] = [
    # Fn::Select, with Heat's test values (heat/tests/test_template.py)
    ("select from list", {"Fn::Select": ["1", ["foo", "bar"]]}, "bar"),
    ("select integer index", {"Fn::Select": [1, ["foo", "bar"]]}, "bar"),
    ("select past the end", {"Fn::Select": ["2", ["foo", "bar"]]}, ""),
    ("select negative index", {"Fn::Select": [-1, ["foo", "bar"]]}, "bar"),
    ("select from map", {"Fn::Select": ["red", {"red": "robin", "re": "foo"}]}, "robin"),
    ("select digit key from map", {"Fn::Select": ["2", {"1": "bar", "2": "foo"}]}, "foo"),
    ("select missing key", {"Fn::Select": ["green", {"red": "robin"}]}, ""),
    ("select from null", {"Fn::Select": ["red", None]}, ""),
    ("select from empty text", {"Fn::Select": ["one", ""]}, ""),
    ("select from JSON map text", {"Fn::Select": ["re", '{"red": "robin", "re": "foo"}']}, "foo"),
    ("select from JSON list text", {"Fn::Select": ["0", '["foo", "fee", "fum"]']}, "foo"),
    ("nested selects",
     {"Fn::Select": ["e", {"Fn::Select": ["2", {"Fn::Select": [
         "b", {"b": ["een", "twee", {"d": "D", "e": "E"}]}]}]}]}, "E"),
    ("select with a computed index", {"Fn::Select": [{"Ref": "n"}, [0, 1, 2, 3]]}, 3),
    # Fn::Join
    ("join", {"Fn::Join": [" ", ["foo", "bar", "baz"]]}, "foo bar baz"),
    ("join null item", {"Fn::Join": [" ", ["foo", None, "baz"]]}, "foo  baz"),
    ("join recursive", {"Fn::Join": ["\n", [{"Fn::Join": [" ", ["foo", "bar"]]}, "baz"]]},
     "foo bar\nbaz"),
    # Fn::Split
    ("split", {"Fn::Split": [";", "foo; bar; achoo"]}, ["foo", " bar", " achoo"]),
    ("split without the delimiter", {"Fn::Split": [";", "foo, bar"]}, ["foo, bar"]),
    ("split a join", {"Fn::Split": [";", {"Fn::Join": [";", ["one", "two"]]}]}, ["one", "two"]),
    ("join a split", {"Fn::Join": ["-", {"Fn::Split": [",", "a,b,c"]}]}, "a-b-c"),
    # Fn::Replace
    ("replace", {"Fn::Replace": [{"$var1": "foo", "%var2%": "bar"}, "$var1 is %var2%"]},
     "foo is bar"),
    ("replace numbers", {"Fn::Replace": [{"$var1": 1.3, "%var2%": 2}, "$var1 is not %var2%"]},
     "1.3 is not 2"),
    ("replace nulls", {"Fn::Replace": [{"$var1": None, "${var2}": None}, '"$var1" is "${var2}"']},
     '"" is ""'),
    ("replace missing key", {"Fn::Replace": [{"$var1": "foo"}, '"$var1" is "${var3}"']},
     '"foo" is "${var3}"'),
    ("replace with parameters",
     {"Fn::Replace": [{"$var1": {"Ref": "foo"}, "%var2%": {"Ref": "blarg"}}, "$var1 is %var2%"]},
     "wibble is quux"),
    ("replace inside base64", {"Fn::Base64": {"Fn::Replace": [{"foo": "bar"}, "Meet at the foo"]}},
     "Meet at the bar"),
    ("base64 inside replace", {"Fn::Replace": [{"foo": "bar"}, {"Fn::Base64": "Meet at the foo"}]},
     "Meet at the bar"),
    # Fn::Base64 returns its text unencoded, as Heat does
    ("base64", {"Fn::Base64": "foobar"}, "foobar"),
    # Fn::MemberListToMap
    ("member list",
     {"Fn::MemberListToMap": ["Name", "Value", [".member.0.Name=metric", ".member.0.Value=cpu",
                                                ".member.1.Name=size", ".member.1.Value=56"]]},
     {"metric": "cpu", "size": "56"}),
    ("member list other names",
     {"Fn::MemberListToMap": ["Key", "Value", [".member.2.Key=metric", ".member.2.Value=cpu",
                                               ".member.5.Key=size", ".member.5.Value=56"]]},
     {"metric": "cpu", "size": "56"}),
    ("member list drops incomplete members",
     {"Fn::MemberListToMap": ["Key", "Value", [".member.1.Key=a", ".member.2.Value=b",
                                               "other.member.3.Key=c", ".member.4.Value=x=y",
                                               ".member.4.Key=d"]]},
     {"d": "x=y"}),
    ("select from a member list",
     {"Fn::Select": ["metric", {"Fn::MemberListToMap": [
         "Name", "Value", [".member.0.Name=metric", ".member.0.Value=cpu"]]}]}, "cpu"),
    # Fn::GetAZs: no compute service, so Heat's answer without a stack
    ("get azs", {"Fn::GetAZs": ""}, ["nova"]),
    ("get azs of a region", {"Fn::GetAZs": {"Ref": "AWS::Region"}}, ["nova"]),
    # Fn::FindInMap
    ("find in map", {"Fn::FindInMap": ["ValidMapping", "TestKey", "TestValue"]}, "wibble"),
    ("find in map computed", {"Fn::FindInMap": ["ValidMapping", {"Ref": "key"}, "TestValue"]},
     "wibble"),
    ("find in map list by index", {"Fn::FindInMap": ["MapList", 1, "bar"]}, "baz"),
    # Ref and Fn::GetAtt
    ("ref parameter", {"Ref": "foo"}, "wibble"),
    ("ref parameter default", {"Ref": "blarg"}, "quux"),
    ("ref resource", {"Ref": "db"}, "db-id"),
    ("ref computed parameter name", {"Ref": {"Fn::Join": ["", ["f", "oo"]]}}, "wibble"),
    ("ref stack name", {"Ref": "AWS::StackName"}, "my stack"),
    ("ref stack id", {"Ref": "AWS::StackId"}, "arn:openstack:heat::p%2F1:stacks/my%20stack/1234"),
    ("ref region", {"Ref": "AWS::Region"}, "ap-southeast-1"),
    ("get att", {"Fn::GetAtt": ["db", "ip"]}, "10.0.0.1"),
    ("get att unknown attribute", {"Fn::GetAtt": ["db", "nothing"]}, None),
]


@pytest.mark.parametrize(("value", "expected"), [c[1:] for c in GOOD], ids=[c[0] for c in GOOD])
def test_cfn_functions_resolve(value: Any, expected: Any) -> None:
    assert resolve(value) == expected


@pytest.mark.parametrize("value", [c[1] for c in GOOD[:20]], ids=[c[0] for c in GOOD[:20]])
def test_heat_cfn_version_has_the_same_data_functions(value: Any) -> None:
    assert resolve(value, HEAT) == resolve(value, AWS)


def test_get_azs_asks_the_context_for_zones() -> None:
    class Zoned(FakeContext):
        def availability_zones(self) -> list[str]:
            return ["az1", "az2"]

    assert resolve({"Fn::GetAZs": ""}, ctx=Zoned()) == ["az1", "az2"]


def test_pseudo_parameters_from_the_context_win() -> None:
    ctx = FakeContext(params={"AWS::Region": "RegionOne"})
    assert resolve({"Ref": "AWS::Region"}, ctx=ctx) == "RegionOne"


def test_pure_calls_are_computed_at_parse() -> None:
    template = cfn({"a": {"Fn::Split": [",", {"Fn::Join": [",", ["x", "y"]]}]}})
    assert template.resources["web"].resolve_properties(FakeContext()) == {"a": ["x", "y"]}


def test_ref_and_get_att_make_dependencies() -> None:
    template = cfn({"a": {"Ref": "db"}, "b": {"Fn::GetAtt": ["db", "ip"]}})
    assert template.resources["web"].references() == frozenset({"db"})
    assert template.attributes_referenced()["db"] == frozenset({"ip"})
    assert cfn({"a": {"Ref": "foo"}}).resources["web"].references() == frozenset()


def test_resource_wins_over_a_parameter_of_the_same_name() -> None:
    template = parse_template(
        {
            AWS: "2010-09-09",
            "Parameters": {"db": {"Type": "String", "Default": "param"}},
            "Resources": {
                "db": {"Type": "OS::Heat::None"},
                "web": {"Type": "OS::Heat::None", "Properties": {"a": {"Ref": "db"}}},
            },
        }
    )
    assert template.resources["web"].resolve_properties(CTX) == {"a": "db-id"}


BAD: list[tuple[str, Any, type[Exception], str]] = [
    ("select one argument", {"Fn::Select": ["4"]}, StackValidationFailed,
     'Fn::Select: Arguments to "Fn::Select" must be of the form [index, collection]'),
    ("select three arguments", {"Fn::Select": ["foo", {"foo": "bar"}, ""]},
     StackValidationFailed,
     'Fn::Select: Arguments to "Fn::Select" must be of the form [index, collection]'),
    ("select text index from list", {"Fn::Select": ["one", ["foo", "bar"]]},
     StackValidationFailed, 'Fn::Select: Index to "Fn::Select" must be an integer'),
    ("select number key from map", {"Fn::Select": [1, {"red": "robin"}]},
     StackValidationFailed, 'Fn::Select: Index to "Fn::Select" must be a string'),
    ("select list key from map", {"Fn::Select": [["f"], {"f": "food"}]},
     StackValidationFailed, 'Fn::Select: Index to "Fn::Select" must be a string'),
    ("select from text that is not JSON", {"Fn::Select": ["not", "no json"]},
     StackValidationFailed, '"Fn::Select": Expecting value: line 1 column 1 (char 0)'),
    ("select from a number", {"Fn::Select": [0, 5]}, StackValidationFailed,
     "Fn::Select: Arguments to Fn::Select not fully resolved"),
    ("join text", {"Fn::Join": [" ", "foo"]}, StackValidationFailed,
     '"Fn::Join" must operate on a list'),
    ("join map", {"Fn::Join": [" ", {"foo": "bar"}]}, StackValidationFailed,
     '"Fn::Join" must operate on a list'),
    ("join no arguments", {"Fn::Join": []}, StackValidationFailed,
     'Incorrect arguments to "Fn::Join" should be: "Fn::Join" : [ " ", [ "str1", "str2"]]'),
    ("join text arguments", {"Fn::Join": "oh"}, StackValidationFailed,
     'Incorrect arguments to "Fn::Join" should be: "Fn::Join" : [ " ", [ "str1", "str2"]]'),
    ("join three arguments", {"Fn::Join": [" ", {"foo": "bar"}, ""]}, StackValidationFailed,
     'Incorrect arguments to "Fn::Join" should be: "Fn::Join" : [ " ", [ "str1", "str2"]]'),
    ("join a number", {"Fn::Join": ["\n", [{"Fn::Join": [" ", ["foo", 45]]}, "baz"]]},
     StackValidationFailed, "Items to join must be strings not 45"),
    ("split no delimiter", {"Fn::Split": ["foo, bar, achoo"]}, StackValidationFailed,
     'Incorrect arguments to "Fn::Split" should be: "Fn::Split" : [ ",", "str1,str2"]]'),
    ("split text", {"Fn::Split": "foo, bar, achoo"}, StackValidationFailed,
     'Incorrect arguments to "Fn::Split" should be: "Fn::Split" : [ ",", "str1,str2"]]'),
    ("split computed delimiter", {"Fn::Split": [{"Ref": "foo"}, "a,b"]}, StackValidationFailed,
     "Fn::Split: Delimiter for Fn::Split must be string"),
    ("split a list", {"Fn::Split": [",", ["a"]]}, StackValidationFailed,
     "String to split must be string; got <class 'list'>"),
    ("base64 list", {"Fn::Base64": ["foobar"]}, StackValidationFailed,
     'Fn::Base64: "Fn::Base64" argument must be a string'),
    ("base64 map", {"Fn::Base64": {"foo": "bar"}}, StackValidationFailed,
     '"Fn::Base64" argument must be a string'),
    ("replace list value", {"Fn::Replace": [{"$var1": "foo", "%var2%": ["bar"]}, "$var1"]},
     StackValidationFailed,
     '"Fn::Replace" params must be strings or numbers, param %var2% is not valid'),
    ("replace list mapping", {"Fn::Replace": [["var1", "foo"], "$var1"]},
     StackValidationFailed, 'Fn::Replace: "Fn::Replace" parameters must be a mapping'),
    ("replace map arguments", {"Fn::Replace": {}}, StackValidationFailed,
     'Incorrect arguments to "Fn::Replace" should be: '
     '{"Fn::Replace": [ {"$var1": "foo", "%var2%": "bar"}, "$var1 is %var2%"]}'),
    ("replace missing template", {"Fn::Replace": [["var1", "foo"]]}, StackValidationFailed,
     'Incorrect arguments to "Fn::Replace" should be'),
    ("replace list template", {"Fn::Replace": [{"var1": "foo"}, ["$var1"]]},
     StackValidationFailed, '"Fn::Replace" template must be a string'),
    ("member list two arguments",
     {"Fn::MemberListToMap": ["Key", [".member.2.Key=metric"]]}, StackValidationFailed,
     "Fn::MemberListToMap: Wrong Arguments try: \"\n"
     "            {'Fn::MemberListToMap': ['Name', 'Value',\n"
     "                                     ['.member.0.Name=key',\n"
     "                                      '.member.0.Value=door']]}\n"
     "            \""),
    ("member list value name not text",
     {"Fn::MemberListToMap": ["Name", ["Value"], [".member.0.Name=metric"]]},
     StackValidationFailed, "Fn::MemberListToMap Value Name must be a string"),
    ("member list key name not text", {"Fn::MemberListToMap": [1, "Value", []]},
     StackValidationFailed, "Fn::MemberListToMap Key Name must be a string"),
    ("member list items not text", {"Fn::MemberListToMap": ["Name", "Value", [1]]},
     StackValidationFailed, "Member list items must be strings"),
    ("member list not a list", {"Fn::MemberListToMap": ["Name", "Value", 5]},
     StackValidationFailed, "Member list must be a list"),
    ("find in map text", {"Fn::FindInMap": "String"}, StackValidationFailed,
     "Fn::FindInMap: 'too many values to unpack (expected 3)'"),
    ("find in map short list", {"Fn::FindInMap": ["ShortList", "foo"]}, StackValidationFailed,
     "Fn::FindInMap: 'not enough values to unpack (expected 3, got 2)'"),
    ("find in map a map", {"Fn::FindInMap": {"Dict": "String"}}, StackValidationFailed,
     "'not enough values to unpack (expected 3, got 1)'"),
    ("find in map number", {"Fn::FindInMap": 5}, StackValidationFailed,
     "cannot unpack non-iterable int object"),
    # Python's indexing errors, in Python's words, as Heat reports them.
    ("find in map list value", {"Fn::FindInMap": ["InvalidMapping", "ValueList", "foo"]},
     StackValidationFailed, "Fn::FindInMap: list indices must be integers or slices, not str"),
    ("find in map text value", {"Fn::FindInMap": ["InvalidMapping", "ValueString", "baz"]},
     StackValidationFailed, "string indices must be integers, not 'str'"),
    ("find in map list mapping", {"Fn::FindInMap": ["MapList", "foo", "bar"]},
     StackValidationFailed, "list indices must be integers or slices, not str"),
    ("find in map text mapping", {"Fn::FindInMap": ["MapString", "foo", "bar"]},
     StackValidationFailed, "string indices must be integers, not 'str'"),
    ("find in unknown map", {"Fn::FindInMap": ["Nope", "a", "b"]},
     StackValidationFailed, "Fn::FindInMap: 'Nope'"),
    ("find in map unknown value", {"Fn::FindInMap": ["ValidMapping", "TestKey", "x"]},
     StackValidationFailed, "Fn::FindInMap: 'x'"),
    ("ref unknown", {"Ref": "nope"}, InvalidTemplateReference,
     'The specified reference "nope" (in unknown) is incorrect.'),
    ("ref not text", {"Ref": 5}, InvalidTemplateReference,
     'The specified reference "5" (in unknown) is incorrect.'),
    ("get att unknown resource", {"Fn::GetAtt": ["nope", "ip"]}, InvalidTemplateReference,
     'The specified reference "nope" (in web.Properties.a) is incorrect.'),
    ("get att three arguments", {"Fn::GetAtt": ["db", "addrs", 0]}, StackValidationFailed,
     'Fn::GetAtt: Arguments to "Fn::GetAtt" must be of the form [resource_name, attribute]'),
    ("get att text", {"Fn::GetAtt": "db.ip"}, StackValidationFailed,
     'Arguments to "Fn::GetAtt" must be of the form [resource_name, attribute]'),
    ("resource facade", {"Fn::ResourceFacade": "wibble"}, StackValidationFailed,
     'Resources.web.Properties.a.Fn::ResourceFacade: Incorrect arguments to '
     '"Fn::ResourceFacade" should be one of: Metadata, DeletionPolicy, UpdatePolicy'),
    ("resource facade in a top-level stack", {"Fn::ResourceFacade": "Metadata"},
     StackValidationFailed, '"Fn::ResourceFacade" is not supported for a top-level stack'),
]


@pytest.mark.parametrize(
    ("value", "error", "message"), [c[1:] for c in BAD], ids=[c[0] for c in BAD]
)
def test_cfn_function_errors(value: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        resolve(value)
    assert message in str(info.value)
    assert isinstance(info.value, StackValidationFailed)


def test_errors_name_the_cfn_path() -> None:
    with pytest.raises(StackValidationFailed) as info:
        cfn({"a": {"x": [1, {"Fn::Select": []}]}})
    assert info.value.path == ("Resources", "web", "Properties", "a", "x[1]", "Fn::Select")
    with pytest.raises(InvalidTemplateReference) as ref:  # Heat looks it up when resolving
        resolve({"Ref": "nope"})
    assert ref.value.path == ("Resources", "web", "Properties", "a", "Ref")


def test_a_computed_unknown_reference_fails_when_resolved() -> None:
    template = cfn({"a": {"Ref": {"Fn::Join": ["", [{"Ref": "foo"}, "x"]]}}})
    with pytest.raises(InvalidTemplateReference) as info:
        template.resources["web"].resolve_properties(CTX)
    assert str(info.value) == 'The specified reference "wibblex" (in unknown) is incorrect.'
    assert info.value.path == ("Resources", "web", "Properties", "a", "Ref")


def test_a_literal_computed_reference_is_checked_when_resolved() -> None:
    with pytest.raises(InvalidTemplateReference):
        resolve({"Ref": {"Fn::Join": ["", ["no", "pe"]]}})


def test_a_pseudo_parameter_needs_the_stack_values() -> None:
    template = cfn({"a": {"Ref": "AWS::StackName"}})
    with pytest.raises(UserParameterMissing) as info:
        template.resources["web"].resolve_properties(FakeContext())
    assert str(info.value).endswith("The Parameter (OS::stack_name) was not provided.")


def test_fn_functions_are_data_where_the_version_lacks_them() -> None:
    # HOT 2013-05-23 has no Fn::GetAtt or Fn::FindInMap; CFN has no get_param.
    value = {"Fn::GetAtt": ["db", "ip"]}
    assert hot2013(value).resources["web"].resolve_properties(CTX) == {"a": value}
    assert resolve({"get_param": "foo"}) == {"get_param": "foo"}


HOT_2013: list[tuple[str, Any, Any]] = [
    ("Ref parameter", {"Ref": "foo"}, "wibble"),
    ("Ref HOT pseudo parameter", {"Ref": "OS::stack_name"}, "my stack"),
    ("Ref resource", {"Ref": "db"}, "db-id"),
    ("Fn::Select", {"Fn::Select": ["1", ["a", "b"]]}, "b"),
    ("Fn::Join", {"Fn::Join": [",", ["a", "b"]]}, "a,b"),
    ("Fn::Split", {"Fn::Split": [",", "a,b"]}, ["a", "b"]),
    ("Fn::Replace", {"Fn::Replace": [{"$a": "x"}, "$a!"]}, "x!"),
    ("Fn::Base64", {"Fn::Base64": "text"}, "text"),
    ("Fn::GetAZs", {"Fn::GetAZs": ""}, ["nova"]),
    ("Fn::MemberListToMap",
     {"Fn::MemberListToMap": ["K", "V", [".member.0.K=a", ".member.0.V=b"]]}, {"a": "b"}),
]


@pytest.mark.parametrize(
    ("value", "expected"), [c[1:] for c in HOT_2013], ids=[c[0] for c in HOT_2013]
)
def test_hot_2013_05_23_evaluates_the_cfn_functions(value: Any, expected: Any) -> None:
    assert hot2013(value).resources["web"].resolve_properties(CTX) == {"a": expected}


def test_hot_2013_05_23_ref_has_no_aws_pseudo_parameters() -> None:
    template = hot2013({"Ref": "AWS::StackName"})
    with pytest.raises(InvalidTemplateReference) as info:
        template.resources["web"].resolve_properties(FakeContext(params={"foo": "x"}))
    assert str(info.value) == 'The specified reference "AWS::StackName" (in unknown) is incorrect.'
    assert info.value.path == ("resources", "web", "properties", "a", "Ref")


def test_hot_2013_05_23_ref_to_a_resource_is_a_dependency() -> None:
    assert hot2013({"Ref": "db"}).dependencies().edges == [("web", "db")]


def test_hot_2013_05_23_resource_facade_takes_cfn_names() -> None:
    with pytest.raises(StackValidationFailed) as info:
        hot2013({"Fn::ResourceFacade": "metadata"})
    assert str(info.value) == (
        "resources.web.properties.a.Fn::ResourceFacade: Incorrect arguments to "
        '"Fn::ResourceFacade" should be one of: Metadata, DeletionPolicy, UpdatePolicy'
    )
