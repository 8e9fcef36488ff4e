"""Request limits, parameter groups and error positions: the checks a request passes
before anything is stored (engine/options.py, engine/service/validation.py)."""

from __future__ import annotations

from typing import Any

import pytest

from hotplate.engine.options import UNLIMITED, EngineOptions
from hotplate.engine.service.validation import (
    check_resource_count,
    check_template_size,
    located_in,
    position_text,
)
from hotplate.model.errors import (
    RequestLimitExceeded,
    StackValidationFailed,
    UnknownUserParameter,
)
from hotplate.template import parse_template

VERSION = "2021-04-16"


def _nones(count: int) -> dict[str, Any]:
    return {"heat_template_version": VERSION,
            "resources": {f"r{i}": {"type": "OS::Heat::None"} for i in range(count)}}


def test_defaults_are_heats() -> None:
    options = EngineOptions()
    assert options.max_resources_per_stack == 1000
    assert options.max_template_size == 524288
    assert options.enable_stack_abandon is False
    assert options.enable_stack_adopt is False


def test_options_from_the_environment() -> None:
    options = EngineOptions.from_environ({
        "HOTPLATE_MAX_RESOURCES_PER_STACK": "-1", "HOTPLATE_ENABLE_STACK_ABANDON": "yes",
        "HOTPLATE_MAX_TEMPLATE_SIZE": "", "OTHER": "1"})
    assert options == EngineOptions(max_resources_per_stack=UNLIMITED,
                                    enable_stack_abandon=True)
    with pytest.raises(ValueError, match="HOTPLATE_MAX_TEMPLATE_SIZE must be an integer"):
        EngineOptions.from_environ({"HOTPLATE_MAX_TEMPLATE_SIZE": "big"})
    with pytest.raises(ValueError, match="HOTPLATE_ENABLE_STACK_ADOPT must be true or false"):
        EngineOptions.from_environ({"HOTPLATE_ENABLE_STACK_ADOPT": "perhaps"})


def test_the_report_interval_is_a_positive_number_of_seconds() -> None:
    assert EngineOptions().periodic_interval == 60
    assert EngineOptions.from_environ(
        {"HOTPLATE_PERIODIC_INTERVAL": "1"}).periodic_interval == 1
    with pytest.raises(ValueError, match="HOTPLATE_PERIODIC_INTERVAL must be at least 1"):
        EngineOptions.from_environ({"HOTPLATE_PERIODIC_INTERVAL": "0"})
    with pytest.raises(ValueError, match="HOTPLATE_PERIODIC_INTERVAL must be an integer"):
        EngineOptions.from_environ({"HOTPLATE_PERIODIC_INTERVAL": "1.5"})
    with pytest.raises(ValueError, match="periodic_interval must be at least 1 second"):
        EngineOptions(periodic_interval=-1)


def test_template_size_counts_the_text_or_the_mapping_as_text() -> None:
    text = "x" * 100
    check_template_size(EngineOptions(max_template_size=100), text)
    with pytest.raises(RequestLimitExceeded) as too_big:
        check_template_size(EngineOptions(max_template_size=99), text)
    assert str(too_big.value) == ("Request limit exceeded: Template size (100 bytes) "
                                  "exceeds maximum allowed size (99 bytes).")
    mapping = _nones(2)
    check_template_size(EngineOptions(max_template_size=len(str(mapping))), mapping)
    with pytest.raises(RequestLimitExceeded):
        check_template_size(EngineOptions(max_template_size=len(str(mapping)) - 1), mapping)


def test_resource_count_includes_resources_a_condition_leaves_out() -> None:
    template = _nones(3)
    template["conditions"] = {"never": False}
    template["resources"]["r0"]["condition"] = "never"
    parsed = parse_template(template)
    assert len(parsed.resources) == 2
    check_resource_count(EngineOptions(max_resources_per_stack=3), template, parsed)
    with pytest.raises(RequestLimitExceeded) as many:
        check_resource_count(EngineOptions(max_resources_per_stack=2), template, parsed)
    assert str(many.value) == "Request limit exceeded: Maximum resources per stack exceeded."
    text = (f"heat_template_version: {VERSION}\nresources:\n"
            "  a: {type: OS::Heat::None}\n  b: {type: OS::Heat::None}\n")
    with pytest.raises(RequestLimitExceeded):
        check_resource_count(EngineOptions(max_resources_per_stack=1), text,
                             parse_template(text))
    check_resource_count(EngineOptions(max_resources_per_stack=UNLIMITED), _nones(5000),
                         parse_template(_nones(1)))


@pytest.mark.parametrize(("groups", "message"), [
    ({"label": "g"}, "Parameter Groups error: parameter_groups: The parameter_groups "
                     "should be a list."),
    ([{"label": "g"}], "Parameter Groups error: parameter_groups.g: The parameters must "
                       "be provided for each parameter group."),
    ([{"label": "g", "parameters": "a"}], "Parameter Groups error: parameter_groups.g: The "
                                          "parameters of parameter group should be a list."),
    ([{"label": "g", "parameters": ["a"]}, {"parameters": ["a"]}],
     "Parameter Groups error: parameter_groups.: The a parameter must be assigned to one "
     "parameter group only."),
    ([{"label": "g", "parameters": ["zz"]}], "Parameter Groups error: parameter_groups.g: "
                                             "The grouped parameter zz does not reference a "
                                             "valid parameter."),
])
def test_parameter_groups_follow_heats_rules(groups: Any, message: str) -> None:
    with pytest.raises(StackValidationFailed) as failed:
        parse_template({"heat_template_version": VERSION, "parameter_groups": groups,
                        "parameters": {"a": {"type": "string"}}})
    assert str(failed.value) == message


def test_parameter_groups_may_list_pseudo_parameters() -> None:
    parse_template({
        "heat_template_version": VERSION, "parameters": {"a": {"type": "string"}},
        "parameter_groups": [{"label": "g", "parameters": ["a", "OS::stack_name"]}]})


def test_position_text_keeps_the_full_stop_last() -> None:
    assert position_text("Unknown Property x", 3, 5) == "Unknown Property x at line 3, column 5"
    assert position_text("It is incorrect.", 1, 2) == "It is incorrect at line 1, column 2."


TEXT = f"""heat_template_version: {VERSION}
parameters:
  size: {{type: number}}
resources:
  web:
    type: OS::Heat::None
"""


def test_located_in_adds_the_line_for_text_templates_only() -> None:
    error = StackValidationFailed("bad", ("resources", "web", "type"))
    with pytest.raises(StackValidationFailed) as raised, located_in(TEXT):
        raise error
    assert raised.value is error
    assert str(error) == "resources.web.type: bad at line 6, column 5"
    assert error.path == ("resources", "web", "type")
    untouched = StackValidationFailed("bad", ("resources", "web", "type"))
    with pytest.raises(StackValidationFailed), located_in({"heat_template_version": VERSION}):
        raise untouched
    assert str(untouched) == "resources.web.type: bad"


def test_located_in_cites_a_section_only_from_inside_it() -> None:
    unknown = UnknownUserParameter("colour")
    unknown.path = ("parameters", "colour")  # the user's parameter is not in the text
    with pytest.raises(StackValidationFailed), located_in(TEXT):
        raise unknown
    assert str(unknown) == "The Parameter (colour) was not defined in template."
    inside = StackValidationFailed("bad value", ("resources", "web", "properties", "x"))
    with pytest.raises(StackValidationFailed), located_in(TEXT):
        raise inside
    assert str(inside).endswith("bad value at line 5, column 3")
