"""CFN templates parse into the same ``Template`` the engine runs: definitions, graph, values."""

from typing import Any

import pytest

from hotplate.model.errors import InvalidTemplateSection, StackValidationFailed
from hotplate.template import (
    InvalidTemplateReference,
    Template,
    parse_template,
    resolve_parameters,
    version_key,
)
from hotplate.template.validation import validate_functions
from tests.unit.template.fakes import FakeContext

WEB_TIER = """
AWSTemplateFormatVersion: 2010-09-09
Description: A web tier in CFN
Parameters:
  Env:
    Type: String
    Default: test
    AllowedValues: [test, prod]
  Size:
    Type: Number
    Default: 2
Mappings:
  Images:
    test: {image: cirros}
    prod: {image: fedora}
Conditions:
  IsProd: {"Fn::Equals": [{Ref: Env}, prod]}
Resources:
  db:
    Type: OS::Heat::None
    Properties:
      image: {"Fn::FindInMap": [Images, {Ref: Env}, image]}
    Metadata:
      role: database
    DeletionPolicy: Retain
  web:
    Type: OS::Heat::None
    DependsOn: db
    Description: the front end
    Properties:
      name: {"Fn::Join": ["-", [{Ref: "AWS::StackName"}, web]]}
      db: {Ref: db}
      ip: {"Fn::GetAtt": [db, ip]}
      zone: {"Fn::Select": [0, {"Fn::GetAZs": ""}]}
      size: {Ref: Size}
      mode: {"Fn::If": [IsProd, big, small]}
    UpdatePolicy:
      AutoScalingRollingUpdate: {MinInstancesInService: 1}
  monitor:
    Type: OS::Heat::None
    Condition: IsProd
    DependsOn: [web, db]
Outputs:
  url:
    Description: Where the web tier answers
    Value: {"Fn::Join": ["", ["http://", {"Fn::GetAtt": [web, ip]}]]}
  monitored:
    Condition: IsProd
    Value: {Ref: monitor}
"""
STACK = {"OS::stack_name": "shop", "OS::stack_id": "abc", "OS::project_id": "demo"}


def decided(template: Template, **params: Any) -> tuple[Template, dict[str, Any]]:
    values = resolve_parameters(template, params)
    values.update(STACK)
    return template.with_parameters(values), values


def test_a_cfn_template_gives_the_engine_its_definitions() -> None:
    template = parse_template(WEB_TIER)
    assert (template.version, template.version_key) == ("2010-09-09", "AWSTemplateFormatVersion")
    assert template.description == "A web tier in CFN"
    assert list(template.parameters) == ["Env", "Size"]
    assert list(template.resources) == ["db", "web", "monitor"]
    assert dict(template.conditions) == {"IsProd": {"Fn::Equals": [{"Ref": "Env"}, "prod"]}}
    web = template.resources["web"]
    assert (web.type, web.depends_on, web.description) == ("OS::Heat::None", ("db",),
                                                            "the front end")
    assert dict(web.update_policy) == {
        "AutoScalingRollingUpdate": {"MinInstancesInService": 1}
    }
    assert template.resources["db"].deletion_policy == "Retain"
    assert web.deletion_policy == "Delete"
    assert template.resources["monitor"].condition == "IsProd"
    assert template.dependencies().to_text() == "db\nmonitor -> db, web\nweb -> db"
    assert template.attributes_referenced() == {
        "db": frozenset({"ip"}), "web": frozenset({"ip"}), "monitor": frozenset(),
    }


def test_a_cfn_template_resolves_for_a_stack() -> None:
    template, values = decided(parse_template(WEB_TIER))
    assert list(template.resources) == ["db", "web"]  # IsProd is false
    ctx = FakeContext(params=values, refs={"db": "db-id"},
                      attrs={"db": {"ip": "10.0.0.1"}, "web": {"ip": "10.0.0.2"}})
    assert template.resources["db"].resolve_properties(ctx) == {"image": "cirros"}
    assert template.resources["db"].resolve_metadata(ctx) == {"role": "database"}
    assert template.resources["web"].resolve_properties(ctx) == {
        "name": "shop-web", "db": "db-id", "ip": "10.0.0.1", "zone": "nova", "size": 2,
        "mode": "small",
    }
    assert template.outputs["url"].resolve(ctx) == "http://10.0.0.2"
    assert template.outputs["url"].description == "Where the web tier answers"
    assert template.outputs["monitored"].resolve(ctx) is None


def test_conditions_decide_resources_and_values() -> None:
    template, values = decided(parse_template(WEB_TIER), Env="prod")
    assert list(template.resources) == ["db", "web", "monitor"]
    ctx = FakeContext(params=values, refs={"monitor": "m-id"})
    assert template.resources["web"].resolve_properties(ctx)["mode"] == "big"
    assert template.resources["db"].resolve_properties(ctx) == {"image": "fedora"}
    assert template.outputs["monitored"].resolve(ctx) == "m-id"


def test_heat_cfn_version_and_empty_sections() -> None:
    text = "HeatTemplateFormatVersion: 2012-12-12\nParameters:\nResources:\nOutputs:\n"
    template = parse_template(text)
    assert (template.version, template.version_key) == ("2012-12-12",
                                                        "HeatTemplateFormatVersion")
    assert (dict(template.resources), dict(template.outputs)) == ({}, {})
    assert template.description == "No description"


def test_every_cfn_section() -> None:
    template = parse_template(
        {
            "AWSTemplateFormatVersion": "2010-09-09",
            "Description": "foo",
            "Parameters": {},
            "Mappings": {},
            "Conditions": {},
            "Resources": {"server": {"Type": "OS::Nova::Server"}},
            "Outputs": {},
        }
    )
    assert list(template.resources) == ["server"]


@pytest.mark.parametrize(
    ("key", "version", "section"),
    [
        ("AWSTemplateFormatVersion", "2010-09-09", "Parameteers"),
        ("AWSTemplateFormatVersion", "2010-09-09", "resources"),
        ("HeatTemplateFormatVersion", "2012-12-12", "Conditions"),
        ("HeatTemplateFormatVersion", "2012-12-12", "parameter_groups"),
    ],
)
def test_unknown_cfn_sections(key: str, version: str, section: str) -> None:
    with pytest.raises(InvalidTemplateSection) as info:
        parse_template({key: version, section: {}})
    assert str(info.value) == f"The template section is invalid: {section}"


def test_the_empty_template_of_a_stack_keeps_its_format() -> None:
    for source in (WEB_TIER, "HeatTemplateFormatVersion: '2012-12-12'\n",
                   "heat_template_version: wallaby\n"):
        template = parse_template(source)
        empty = parse_template({version_key(template.version): template.version})
        assert empty.hot_version is template.hot_version


def test_unknown_keys_in_cfn_resources_and_outputs_are_ignored_as_heat_does() -> None:
    template = parse_template(
        {
            "HeatTemplateFormatVersion": "2012-12-12",
            "Resources": {
                "a": {"Type": "T", "Wibble": 1, "Condition": "nope", "ExternalId": {"x": 1}},
            },
            "Outputs": {"o": {"Value": 1, "Other": 2, "Condition": "nope"}},
        }
    )
    assert template.resources["a"].condition is None
    assert template.resources["a"].external_id is None
    assert template.outputs["o"].resolve(FakeContext()) == 1


def test_depends_on_forms() -> None:
    template = parse_template(
        {
            "AWSTemplateFormatVersion": "2010-09-09",
            "Resources": {
                "a": {"Type": "T"},
                "b": {"Type": "T", "DependsOn": "a"},
                "c": {"Type": "T", "DependsOn": ["a", "b", "a"]},
            },
        }
    )
    assert template.resources["b"].depends_on == ("a",)
    assert template.resources["c"].depends_on == ("a", "b")


def test_literal_conditions_leave_resources_out_at_parse() -> None:
    template = parse_template(
        {
            "AWSTemplateFormatVersion": "2010-09-09",
            "Conditions": {"Never": False},
            "Resources": {
                "a": {"Type": "T", "Condition": "Never"},
                "b": {"Type": "T", "Properties": {"x": {"Ref": "a"},
                                                   "y": {"Fn::If": ["Never", 1, 2]}}},
            },
        }
    )
    assert list(template.resources) == ["b"]
    assert template.resources["b"].references() == frozenset()
    with pytest.raises(InvalidTemplateReference, match="in unknown"):  # as Heat's stack lacks a
        template.resources["b"].resolve_properties(FakeContext())


RESOURCE_ERRORS: list[tuple[str, Any, type[Exception], str]] = [
    ("no data", {"a": None}, StackValidationFailed,
     "Each Resource must contain a Type key."),
    ("no type", {"a": {"Properties": {}}}, StackValidationFailed,
     "Each Resource must contain a Type key."),
    ("empty type", {"a": {"Type": ""}}, StackValidationFailed,
     "Each Resource must contain a Type key."),
    ("text resource", {"a": "AWS::EC2::Instance"}, StackValidationFailed,
     "Resources must contain Resource. Found a [<class 'str'>] instead"),
    ("type not text", {"a": {"Type": ["T"]}}, StackValidationFailed,
     "Resource a Type type must be string"),
    ("properties not a map", {"a": {"Type": "T", "Properties": [1]}}, StackValidationFailed,
     "Resource a Properties type must be object"),
    ("metadata not a map", {"a": {"Type": "T", "Metadata": "m"}}, StackValidationFailed,
     "Resource a Metadata type must be object"),
    ("update policy not a map", {"a": {"Type": "T", "UpdatePolicy": 1}}, StackValidationFailed,
     "Resource a UpdatePolicy type must be object"),
    ("depends on a map", {"a": {"Type": "T", "DependsOn": {"b": 1}}}, StackValidationFailed,
     "Resource a DependsOn type must be list or string"),
    ("depends on numbers", {"a": {"Type": "T", "DependsOn": [1]}}, StackValidationFailed,
     "Resource a DependsOn must be a list of strings"),
    ("depends on unknown", {"a": {"Type": "T", "DependsOn": "b"}}, InvalidTemplateReference,
     'The specified reference "b" (in a) is incorrect.'),
    ("deletion policy", {"a": {"Type": "T", "DeletionPolicy": "retain"}},
     StackValidationFailed, 'Invalid deletion policy "retain"'),
    ("description not text", {"a": {"Type": "T", "Description": 1}}, StackValidationFailed,
     "Resource a Description type must be string"),
    ("condition type", {"a": {"Type": "T", "Condition": 1}}, StackValidationFailed,
     "Resource a Condition type must be string or boolean"),
    ("unknown condition", {"a": {"Type": "T", "Condition": "nope"}}, StackValidationFailed,
     'Resources.a.Condition: Invalid condition "nope"'),
    ("get att in properties", {"a": {"Type": "T", "Properties": {"p": {"Fn::GetAtt": "x"}}}},
     StackValidationFailed,
     'Resources.a.Properties.p.Fn::GetAtt: Arguments to "Fn::GetAtt" must be of the form '
     "[resource_name, attribute]"),
]


@pytest.mark.parametrize(
    ("resources", "error", "message"),
    [c[1:] for c in RESOURCE_ERRORS],
    ids=[c[0] for c in RESOURCE_ERRORS],
)
def test_resource_errors_name_their_cfn_path(
    resources: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as info:  # what Heat checks before a create
        validate_functions(parse_template(
            {"AWSTemplateFormatVersion": "2010-09-09", "Resources": resources}))
    assert str(info.value) == message  # Heat's words: a resource's own fields name it
    if not isinstance(info.value, InvalidTemplateReference):
        assert info.value.path[:2] == ("Resources", "a")  # kept for positions in a text


def test_resources_section_must_be_a_map() -> None:
    with pytest.raises(StackValidationFailed) as info:
        parse_template({"AWSTemplateFormatVersion": "2010-09-09", "Resources": ["a"]})
    assert str(info.value) == 'Resources: The "Resources" section must be a map'


OUTPUT_ERRORS: list[tuple[str, Any, str]] = [
    ("not a map", {"o": "v"},
     "Output validation error: Outputs.o: Output definitions must be a map. Found a str instead"),
    ("no value", {"o": {"Description": "d"}},
     "Output validation error: Outputs.o: Each output definition must contain a Value key."),
    ("HOT spelling", {"o": {"value": 1}},
     "Output validation error: Outputs.o: Each output definition must contain a Value key."),
    ("bad function", {"o": {"Value": {"Fn::Join": "x"}}},
     'Outputs.o.Value.Fn::Join: Incorrect arguments to "Fn::Join" should be: '
     '"Fn::Join" : [ " ", [ "str1", "str2"]]'),
    ("unknown condition", {"o": {"Value": 1, "Condition": "nope"}},
     'Outputs.o.Condition: Invalid condition "nope"'),
    ("section not a map", [1], 'Outputs: The "Outputs" section must be a map'),
]


@pytest.mark.parametrize(
    ("outputs", "message"), [c[1:] for c in OUTPUT_ERRORS], ids=[c[0] for c in OUTPUT_ERRORS]
)
def test_output_errors_name_their_cfn_path(outputs: Any, message: str) -> None:
    with pytest.raises(StackValidationFailed) as info:
        parse_template({"AWSTemplateFormatVersion": "2010-09-09", "Outputs": outputs})
    assert str(info.value) == message


CONDITION_ERRORS: list[tuple[str, Any, str]] = [
    ("not a map", [1], "Conditions validation error: Condition definitions must be a map. "
     "Found a list instead"),
    ("not a condition", {"c": "text"},
     'Condition validation error: The definition of condition "c" is invalid: text'),
    ("get att in a condition", {"c": {"Fn::Equals": [{"Fn::GetAtt": ["a", "b"]}, 1]}},
     'Conditions.c.Fn::Equals[0].Fn::GetAtt: The function "Fn::GetAtt" is invalid in this '
     "context"),
    ("if in a condition", {"c": {"Fn::If": [True, True, False]}},
     'Conditions.c.Fn::If: The function "Fn::If" is invalid in this context'),
    ("equals arguments", {"c": {"Fn::Equals": ["test", "prod", "invalid"]}},
     'Conditions.c.Fn::Equals: Arguments to "Fn::Equals" must be of the form: '
     "[value_1, value_2]"),
    ("equals a map", {"c": {"Fn::Equals": {"equal": False}}},
     'Arguments to "Fn::Equals" must be of the form: [value_1, value_2]'),
    ("not text", {"c": {"Fn::Not": "invalid"}},
     'Conditions.c.Fn::Not: Arguments to "Fn::Not" must be of the form: [condition]'),
    ("not two", {"c": {"Fn::Not": ["cd1", "cd2"]}},
     'Arguments to "Fn::Not" must be of the form: [condition]'),
    ("not unknown", {"c": {"Fn::Not": ["invalid_arg"]}}, 'Invalid condition "invalid_arg"'),
    ("and one", {"c": {"Fn::And": ["c"]}},
     'Conditions.c.Fn::And: The minimum number of condition arguments to "Fn::And" is 2.'),
    ("and text", {"c": {"Fn::And": "invalid"}},
     'Arguments to "Fn::And" must be a list of conditions'),
    ("or unknown", {"c": {"Fn::Or": ["invalid_cd", True]}}, 'Invalid condition "invalid_cd"'),
    ("circular", {"c": {"Fn::Not": ["b"]}, "b": {"Fn::Not": ["c"]}},
     'Condition validation error: Circular definition for condition "c"'),
]


@pytest.mark.parametrize(
    ("conditions", "message"),
    [c[1:] for c in CONDITION_ERRORS],
    ids=[c[0] for c in CONDITION_ERRORS],
)
def test_condition_errors(conditions: Any, message: str) -> None:
    with pytest.raises(StackValidationFailed) as info:
        parse_template(
            {
                "AWSTemplateFormatVersion": "2010-09-09",
                "Conditions": conditions,
                "Resources": {"r": {"Type": "T", "Condition": "c"}},
            }
        ).with_parameters({})  # Heat evaluates the conditions a stack uses, with its values
    assert message in str(info.value)


CONDITIONS: dict[str, Any] = {
    "prod": {"Fn::Equals": [{"Ref": "env"}, "prod"]},
    "beijing": {"Fn::Equals": [{"Ref": "zone"}, "beijing"]},
    "not_prod": {"Fn::Not": ["prod"]},
    "prod_outside_beijing": {"Fn::And": ["prod", {"Fn::Not": ["beijing"]}]},
    "prod_or_beijing": {"Fn::Or": ["prod", "beijing"]},
    "mapped_big": {"Fn::Equals": [{"Fn::FindInMap": ["Sizes", {"Ref": "env"}, "size"]}, "big"]},
}


@pytest.mark.parametrize(
    ("env", "zone", "enabled"),
    [
        ("test", "shanghai", ["not_prod"]),
        ("prod", "shanghai", ["prod", "prod_outside_beijing", "prod_or_beijing", "mapped_big"]),
        ("prod", "beijing", ["prod", "beijing", "prod_or_beijing", "mapped_big"]),
        ("test", "beijing", ["beijing", "not_prod", "prod_or_beijing"]),
    ],
)
def test_condition_functions(env: str, zone: str, enabled: list[str]) -> None:
    template = parse_template(
        {
            "AWSTemplateFormatVersion": "2010-09-09",
            "Parameters": {"env": {"Type": "String"}, "zone": {"Type": "String"}},
            "Mappings": {"Sizes": {"prod": {"size": "big"}, "test": {"size": "small"}}},
            "Conditions": CONDITIONS,
            "Resources": {name: {"Type": "T", "Condition": name} for name in CONDITIONS},
        }
    )
    decided_template, _ = decided(template, env=env, zone=zone)
    assert list(decided_template.resources) == enabled


def test_heat_cfn_version_has_no_conditions() -> None:
    template = parse_template(
        {
            "HeatTemplateFormatVersion": "2012-12-12",
            "Resources": {"a": {"Type": "T", "Properties": {"x": {"Fn::If": ["c", 1, 2]}}}},
        }
    )
    assert template.resources["a"].resolve_properties(FakeContext()) == {
        "x": {"Fn::If": ["c", 1, 2]}
    }
