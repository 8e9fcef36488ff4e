from typing import Any

import pytest

from hotplate.model.errors import StackValidationFailed
from hotplate.template import InvalidTemplateReference, parse_template
from hotplate.template.resource_parser import check_provider_outputs
from hotplate.template.validation import validate_functions
from tests.unit.template.fakes import FakeContext


def hot(resources: Any, version: str = "2021-04-16", **sections: Any) -> dict[str, Any]:
    return {"heat_template_version": version, "resources": resources, **sections}


def test_a_full_resource_definition() -> None:
    template = parse_template(
        hot(
            {
                "db": {"type": "OS::Heat::None"},
                "web": {
                    "type": "OS::Heat::TestResource",
                    "properties": {"value": "v"},
                    "metadata": {"m": {"get_resource": "db"}},
                    "depends_on": "db",
                    "deletion_policy": "retain",
                    "update_policy": {"batch": 2},
                    "description": "the web tier",
                    "external_id": "abc",
                    "condition": True,
                },
            }
        )
    )
    web = template.resources["web"]
    assert (web.name, web.type, web.depends_on) == ("web", "OS::Heat::TestResource", ("db",))
    assert web.deletion_policy == "Retain"
    assert dict(web.update_policy) == {"batch": 2}
    assert web.description == "the web tier"
    assert web.external_id == "abc"
    assert web.condition is True
    assert web.references() == frozenset({"db"})
    ctx = FakeContext(refs={"db": "db-1"})
    assert web.resolve_properties(ctx) == {"value": "v"}
    assert web.resolve_metadata(ctx) == {"m": "db-1"}
    assert list(template.resources) == ["db", "web"]


def test_defaults_of_a_minimal_resource() -> None:
    web = parse_template(hot({"web": {"type": "T", "properties": None}})).resources["web"]
    assert web.depends_on == ()
    assert web.deletion_policy == "Delete"
    assert dict(web.update_policy) == {}
    assert web.references() == frozenset()
    assert web.resolve_properties(FakeContext()) == {}
    assert web.resolve_metadata(FakeContext()) == {}


def test_references_gather_depends_on_get_resource_and_get_attr() -> None:
    template = parse_template(
        hot(
            {
                "a": {"type": "T"},
                "b": {"type": "T"},
                "c": {"type": "T"},
                "web": {
                    "type": "T",
                    "depends_on": ["a"],
                    "properties": {"x": {"get_resource": "b"}},
                    "metadata": {"y": {"get_attr": ["c", "z"]}},
                },
            }
        )
    )
    assert template.resources["web"].references() == frozenset({"a", "b", "c"})


BAD: list[tuple[str, Any, type[Exception], str]] = [
    ("unknown keyword", {"web": {"type": "T", "foo": 1}}, StackValidationFailed,
     '"foo" is not a valid keyword inside a resource definition'),
    ("missing type", {"web": {"properties": {}}}, StackValidationFailed,
     "Each resource must contain a type key."),
    ("empty resource", {"web": None}, StackValidationFailed,
     "Each resource must contain a type key."),
    ("resource not a map", {"web": "T"}, StackValidationFailed,
     "\"resources\" must contain a map of resource maps. "
     "Found a [<class 'str'>] instead"),
    ("type not text", {"web": {"type": ["T"]}}, StackValidationFailed,
     "Resource web type type must be string"),
    ("properties a list", {"web": {"type": "T", "properties": [1]}}, StackValidationFailed,
     "Resource web properties type must be object"),
    ("metadata text", {"web": {"type": "T", "metadata": "m"}}, StackValidationFailed,
     "Resource web metadata type must be object"),
    ("update_policy text", {"web": {"type": "T", "update_policy": "u"}}, StackValidationFailed,
     "Resource web update_policy type must be object"),
    ("depends_on a map", {"web": {"type": "T", "depends_on": {"a": 1}}}, StackValidationFailed,
     "Resource web depends_on type must be list or string"),
    ("depends_on numbers", {"web": {"type": "T", "depends_on": [1]}}, StackValidationFailed,
     "Resource web depends_on must be a list of strings"),
    ("depends_on unknown", {"web": {"type": "T", "depends_on": ["db"]}},
     InvalidTemplateReference, 'The specified reference "db" (in web) is incorrect.'),
    ("deletion policy", {"web": {"type": "T", "deletion_policy": "Keep"}}, StackValidationFailed,
     'Invalid deletion policy "Keep"'),
    ("deletion policy type", {"web": {"type": "T", "deletion_policy": 1}},
     StackValidationFailed,
     "Resource web deletion_policy type must be string"),
    ("deletion policy function", {"web": {"type": "T", "deletion_policy": {"get_param": "p"}}},
     StackValidationFailed,
     "resources.web.deletion_policy: Functions in deletion_policy are not supported yet; "
     "give a literal string"),
    ("description type", {"web": {"type": "T", "description": 1}}, StackValidationFailed,
     "Resource web description type must be string"),
    ("external_id type", {"web": {"type": "T", "external_id": 1}}, StackValidationFailed,
     "Resource web external_id type must be string"),
    ("condition type", {"web": {"type": "T", "condition": 1}}, StackValidationFailed,
     "Resource web condition type must be string_or_boolean"),
    ("condition unknown", {"web": {"type": "T", "condition": "nope"}}, StackValidationFailed,
     'resources.web.condition: Invalid condition "nope"'),
    ("first by name, as Heat", {"b": {"type": "T", "x": 1}, "a": {"type": "T", "y": 1}},
     StackValidationFailed,
     '"y" is not a valid keyword inside a resource definition'),
    ("section not a map", [1], StackValidationFailed,
     'resources: The "resources" section must be a map'),
]


@pytest.mark.parametrize(
    ("resources", "error", "message"), [c[1:] for c in BAD], ids=[c[0] for c in BAD]
)
def test_bad_resources(resources: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:  # what Heat checks before a create
        validate_functions(parse_template(hot(resources)))
    assert str(info.value) == message  # Heat's words: a resource's own fields name it
    if isinstance(resources, dict) and not isinstance(info.value, InvalidTemplateReference):
        assert info.value.path[0] == "resources"  # kept for positions in a text


@pytest.mark.parametrize("key", ["condition", "external_id"])
def test_keys_added_in_newton_are_unknown_before(key: str) -> None:
    with pytest.raises(StackValidationFailed) as info:
        parse_template(hot({"web": {"type": "T", key: "x"}}, version="2016-04-08"))
    assert str(info.value) == (
        f'"{key}" is not a valid keyword inside a resource definition'
    )


def test_lower_case_deletion_policies_only_from_newton() -> None:
    with pytest.raises(StackValidationFailed):
        parse_template(hot({"web": {"type": "T", "deletion_policy": "retain"}}, "2016-04-08"))
    policy = parse_template(hot({"web": {"type": "T", "deletion_policy": "snapshot"}}))
    assert policy.resources["web"].deletion_policy == "Snapshot"


def test_plainly_false_conditions_leave_resources_out() -> None:
    template = parse_template(
        hot(
            {
                "off": {"type": "T", "condition": "never"},
                "literal_off": {"type": "T", "condition": False},
                "unknown": {"type": "T", "condition": "depends"},
                "web": {
                    "type": "T",
                    "depends_on": ["off"],
                    "properties": {
                        "a": {"get_attr": ["off", "x"]},
                        "b": {"get_resource": "literal_off"},
                    },
                },
            },
            conditions={"never": False, "depends": {"equals": [{"get_param": "p"}, "x"]}},
            parameters={"p": {"type": "string", "default": "x"}},
        )
    )
    assert list(template.resources) == ["unknown", "web"]
    web = template.resources["web"]
    assert web.references() == frozenset()
    ctx = FakeContext(attrs={"off": {"x": 1}}, refs={"literal_off": "id"})
    with pytest.raises(InvalidTemplateReference, match="in unknown"):  # Heat's stack lacks it
        web.resolve_properties(ctx)
    assert ctx.attribute_reads == []
    assert template.resources["unknown"].condition == "depends"


def test_conditions_section_checks() -> None:
    with pytest.raises(StackValidationFailed) as info:
        parse_template(hot({}, conditions=[1]))
    assert str(info.value) == (
        "Conditions validation error: Condition definitions must be a map. Found a list instead"
    )
    with pytest.raises(StackValidationFailed) as info:
        parse_template(hot({}, conditions={"c": "text"}))
    assert str(info.value) == (
        'Condition validation error: The definition of condition "c" is invalid: text')
    assert info.value.path == ("conditions", "c")


def test_outputs() -> None:
    template = parse_template(
        hot(
            {"db": {"type": "T"}},
            outputs={
                "ip": {"value": {"get_attr": ["db", "ip"]}, "description": "the address"},
                "plain": {"value": [1, 2]},
                "hidden": {"value": {"get_attr": ["nope", "x"]}, "condition": False},
            },
        )
    )
    ctx = FakeContext(attrs={"db": {"ip": "1.2.3.4"}})
    ip = template.outputs["ip"]
    assert (ip.name, ip.description, ip.resolve(ctx)) == ("ip", "the address", "1.2.3.4")
    assert ip.references() == frozenset({"db"})
    assert template.outputs["plain"].description == "No description given"
    assert template.outputs["plain"].resolve(ctx) == [1, 2]
    assert template.outputs["hidden"].resolve(ctx) is None


BAD_OUTPUTS: list[tuple[Any, str]] = [
    ({"o": [1]},
     "Output validation error: outputs.o: Output definitions must be a map. Found a list instead"),
    ({"o": {"description": "d"}},
     "Output validation error: outputs.o: Each output definition must contain a value key."),
    ([1], 'outputs: The "outputs" section must be a map'),
]


@pytest.mark.parametrize(("outputs", "message"), BAD_OUTPUTS)
def test_bad_outputs(outputs: Any, message: str) -> None:
    with pytest.raises(StackValidationFailed) as info:
        parse_template(hot({}, outputs=outputs))
    assert str(info.value) == message


def test_an_output_s_unknown_keys_are_ignored_but_in_a_provider_template() -> None:
    """Heat reads a stack's outputs without looking at other keys; a provider
    template's outputs, read for its type's attributes, refuse them (HOT only)."""
    outputs = {"b": {"value": 1, "extra": 2}, "a": {"value": 2, "other": 3}}
    template = parse_template(hot({}, outputs=outputs))
    assert template.outputs["b"].resolve(FakeContext()) == 1
    with pytest.raises(StackValidationFailed) as info:
        check_provider_outputs(outputs, template.hot_version)
    assert str(info.value) == '"other" is not a valid keyword inside a output definition'
    check_provider_outputs({"o": {"value": 1, "description": "d"}}, template.hot_version)
    cfn = parse_template({"HeatTemplateFormatVersion": "2012-12-12",
                          "Outputs": {"o": {"Value": 1, "Extra": 2}}})
    check_provider_outputs({"o": {"Value": 1, "Extra": 2}}, cfn.hot_version)


def test_output_condition_only_from_newton() -> None:
    """Before newton ``condition`` is just another key of an output: ignored."""
    template = parse_template(
        hot({}, "2016-04-08", outputs={"o": {"value": 1, "condition": False}}))
    assert template.outputs["o"].resolve(FakeContext()) == 1
    with pytest.raises(StackValidationFailed):
        check_provider_outputs({"o": {"value": 1, "condition": False}}, template.hot_version)


def test_properties_from_a_function_must_resolve_to_a_map() -> None:
    template = parse_template(
        hot(
            {"web": {"type": "T", "properties": {"get_param": "props"}}},
            parameters={"props": {"type": "json"}},
        )
    )
    web = template.resources["web"]
    assert web.resolve_properties(FakeContext(params={"props": {"a": 1}})) == {"a": 1}
    with pytest.raises(StackValidationFailed) as info:
        web.resolve_properties(FakeContext(params={"props": [1]}))
    assert str(info.value) == (
        "resources.web.properties: Resource web properties type must be object"
    )
