"""Environments: sections, the resource registry, hooks, and merging as Heat does."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hotplate.model.errors import StackValidationFailed
from hotplate.template import (
    Environment,
    ResourceRegistry,
    merge_environments,
    parse_environment,
    parse_template,
)

HOOK_TYPES = (
    "('pre-create', 'pre-update', 'pre-delete', 'post-create', 'post-update', 'post-delete')"
)


def _error(source: Any) -> str:
    with pytest.raises(StackValidationFailed) as info:
        parse_environment(source)
    return str(info.value)


# -- sections ---------------------------------------------------------------------


def test_every_section_yaml() -> None:
    env = parse_environment("""
parameters: {flavor: m1.small}
parameter_defaults: {image: cirros}
resource_registry:
  "My::Server": "OS::Nova::Server"
event_sinks:
  - type: zaqar-queue
    target: q
encrypted_param_names: [password]
parameter_merge_strategies: {default: merge}
""")
    assert env.parameters == {"flavor": "m1.small"}
    assert env.parameter_defaults == {"image": "cirros"}
    assert env.resource_registry.types == {"My::Server": "OS::Nova::Server"}
    assert env.event_sinks == ({"type": "zaqar-queue", "target": "q"},)
    assert env.encrypted_param_names == ("password",)
    assert env.parameter_merge_strategies == {"default": "merge"}


def test_json_text_and_mapping_give_the_same_environment() -> None:
    data = {"parameters": {"n": 3}, "resource_registry": {"A::B": "OS::Heat::None"}}
    assert parse_environment(json.dumps(data)) == parse_environment(data)


def test_empty_inputs() -> None:
    for source in (None, "", "{}", {}):
        assert parse_environment(source) == Environment()


def test_timestamps_stay_text() -> None:
    assert parse_environment("parameters: {day: 2013-05-23}").parameters == {"day": "2013-05-23"}


def test_to_dict_round_trips_and_is_json() -> None:
    env = parse_environment({
        "parameters": {"a": [1, 2]},
        "resource_registry": {
            "OS::Networking::*": "OS::Neutron::*",
            "resources": {"web*": {"hooks": ["pre-update", "pre-create"]},
                          "db": {"OS::Nova::Server": "db.yaml", "restricted_actions": "replace"}},
        },
    })
    data = env.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["resource_registry"]["resources"]["web*"]["hooks"] == ["pre-create", "pre-update"]
    assert parse_environment(data) == env


def test_environment_is_a_private_copy() -> None:
    data: dict[str, Any] = {"parameters": {"x": {"y": 1}}}
    env = parse_environment(data)
    data["parameters"]["x"]["y"] = 2
    assert env.parameters == {"x": {"y": 1}}
    with pytest.raises(TypeError):
        env.parameters["z"] = 1  # type: ignore[index]


# -- errors -----------------------------------------------------------------------


def test_wrong_section() -> None:
    assert _error("parameters: {}\nresources: {}") == 'environment has wrong section "resources"'


def test_flat_parameters_are_a_wrong_section() -> None:
    assert _error({"KeyName": "k"}) == 'environment has wrong section "KeyName"'


def test_empty_section() -> None:
    assert _error("parameters:\n") == 'environment has empty section "parameters"'


@pytest.mark.parametrize("source", ["- a\n- b", "just text", "[1]"])
def test_not_a_mapping(source: str) -> None:
    assert _error(source) == "The environment is not a valid YAML mapping data type."


def test_error_carries_where() -> None:
    with pytest.raises(StackValidationFailed) as info:
        parse_environment("bogus: 1", path="env.yaml")
    assert info.value.path == ("env.yaml",)
    assert str(info.value) == 'environment has wrong section "bogus"'


def test_yaml_syntax_error() -> None:
    assert _error("parameters: [a").startswith("Error parsing environment environment ")


def test_section_shapes() -> None:
    assert _error({"parameters": [1]}) == 'environment section "parameters" must be a mapping'
    assert "list of names" in _error({"encrypted_param_names": "x"})
    assert "list of mappings" in _error({"event_sinks": {"type": "x"}})
    assert "must map to a type name" in _error({"resource_registry": {"A::B": 3}})


def test_invalid_hook() -> None:
    message = _error({"resource_registry": {"resources": {"web": {"hooks": "pre-explode"}}}})
    assert message == (
        'Invalid hook type "pre-explode" for resource breakpoint, '
        f"acceptable hook types are: {HOOK_TYPES}"
    )


def test_invalid_hook_in_list() -> None:
    message = _error({"resource_registry": {"resources": {"web": {"hooks": ["pre-create", "x"]}}}})
    assert message.startswith("Invalid hook type \"['pre-create', 'x']\" for resource breakpoint")


def test_invalid_restricted_action() -> None:
    message = _error({"resource_registry": {"resources": {"web": {"restricted_actions": "all"}}}})
    assert message == (
        'Invalid restricted_action type "all" for resource, '
        "acceptable restricted_action types are: ('update', 'replace')"
    )


# -- type resolution --------------------------------------------------------------


def _registry(data: dict[str, Any]) -> ResourceRegistry:
    return parse_environment({"resource_registry": data}).resource_registry


def test_unmapped_type_is_itself() -> None:
    assert ResourceRegistry().resolve_type("web", "OS::Nova::Server") == "OS::Nova::Server"


def test_alias_chain() -> None:
    reg = _registry({"My::A": "My::B", "My::B": "OS::Heat::None"})
    assert reg.resolve_type("r", "My::A") == "OS::Heat::None"
    assert reg.resolve_type("r", "My::B") == "OS::Heat::None"


def test_alias_loop() -> None:
    reg = _registry({"My::A": "My::B", "My::B": "My::A"})
    for _ in range(2):  # an answer is kept; a loop is found again each time
        with pytest.raises(StackValidationFailed, match="Circular resource type mapping: "
                                                        "My::A -> My::B -> My::A"):
            reg.resolve_type("r", "My::A")


def test_a_kept_answer_is_per_name_type_and_known_types() -> None:
    reg = _registry({"My::A": "My::Missing", "resources": {"db": {"My::A": "OS::Heat::None"}}})
    known = {"OS::Heat::None"}.__contains__
    for _ in range(2):
        assert reg.resolve_type("db", "My::A") == "OS::Heat::None"
        assert reg.resolve_type("web", "My::A") == "My::Missing"
        assert reg.resolve_type("web", "My::A", is_known=known) == "My::A"


def test_growing_wildcard_is_stopped() -> None:
    reg = _registry({"OS::*": "OS::X::*"})
    with pytest.raises(StackValidationFailed, match="longer than"):
        reg.resolve_type("r", "OS::Nova::Server")


def test_provider_template_ends_the_chain() -> None:
    reg = _registry({"My::Server": "server.yaml", "My::Old": "My::Server",
                     "My::T": "legacy.template"})
    assert reg.resolve_type("r", "My::Old") == "server.yaml"
    assert reg.resolve_type("r", "My::T") == "legacy.template"
    assert reg.resolve_type("r", "nested.yaml") == "nested.yaml"


def test_wildcard_type_mapping() -> None:
    # Heat's docs: "OS::Quantum*": "OS::Neutron*"
    reg = _registry({"OS::Quantum*": "OS::Neutron*"})
    assert reg.resolve_type("net", "OS::Quantum::Net") == "OS::Neutron::Net"
    assert reg.resolve_type("net", "OS::Neutron::Net") == "OS::Neutron::Net"


def test_many_to_one_wildcard() -> None:
    reg = _registry({"OS::Neutron::*": "OS::Heat::None"})
    assert reg.resolve_type("r", "OS::Neutron::Port") == "OS::Heat::None"
    assert reg.resolve_type("r", "OS::Heat::None") == "OS::Heat::None"


def test_per_resource_mapping_wins_and_is_by_exact_name() -> None:
    reg = _registry({
        "OS::Nova::Server": "My::Server",
        "My::Server": "OS::Heat::None",
        "resources": {"db": {"OS::Nova::Server": "db_server.yaml"}},
    })
    assert reg.resolve_type("db", "OS::Nova::Server") == "db_server.yaml"
    assert reg.resolve_type("web", "OS::Nova::Server") == "OS::Heat::None"
    assert reg.resolve_type("db2", "OS::Nova::Server") == "OS::Heat::None"


def test_per_resource_mapping_chains_through_global() -> None:
    reg = _registry({"My::Server": "OS::Heat::None",
                     "resources": {"web": {"OS::Nova::Server": "My::Server"}}})
    assert reg.resolve_type("web", "OS::Nova::Server") == "OS::Heat::None"


def test_unknown_targets_fall_back_when_known_types_are_given() -> None:
    reg = _registry({"OS::Nova::Server": "Broken::Type"})
    known = {"OS::Nova::Server", "OS::Heat::None"}.__contains__
    assert reg.resolve_type("r", "OS::Nova::Server") == "Broken::Type"
    assert reg.resolve_type("r", "OS::Nova::Server", is_known=known) == "OS::Nova::Server"
    assert reg.resolve_type("r", "Nope::Type", is_known=known) == "Nope::Type"


def test_environment_shorthands() -> None:
    env = parse_environment({"resource_registry": {
        "A::B": "OS::Heat::None", "resources": {"x": {"hooks": "pre-create"}}}})
    assert env.resolve_type("x", "A::B") == "OS::Heat::None"
    assert env.hooks_for("x") == {"pre-create"}


# -- hooks ------------------------------------------------------------------------


def test_hooks_exact_and_wildcards() -> None:
    reg = _registry({"resources": {
        "web": {"hooks": ["pre-create", "pre-update"]},
        "web*": {"hooks": "post-delete"},
        "*_db": {"hooks": "pre-delete", "restricted_actions": ["update"]},
    }})
    assert reg.hooks_for("web") == {"pre-create", "pre-update", "post-delete"}
    assert reg.hooks_for("web_1") == {"post-delete"}
    assert reg.hooks_for("main_db") == {"pre-delete"}
    assert reg.hooks_for("other") == frozenset()
    assert reg.restricted_actions_for("main_db") == {"update"}


def test_hook_match_is_case_sensitive() -> None:
    reg = _registry({"resources": {"Web*": {"hooks": "pre-create"}}})
    assert reg.hooks_for("web1") == frozenset()


def test_every_hook_type_accepted() -> None:
    hooks = ["pre-create", "pre-update", "pre-delete", "post-create", "post-update", "post-delete"]
    reg = _registry({"resources": {"r": {"hooks": hooks}}})
    assert reg.hooks_for("r") == set(hooks)


# -- merging ----------------------------------------------------------------------


def test_merge_overwrites_by_default_and_merges_registry() -> None:
    # Heat's functional test of environment_files merging.
    env_1 = """
parameters:
  p1: CORRECT
  p2: INCORRECT-E1
resource_registry:
  test::R1: OS::Heat::RandomString
  test::R2: BROKEN
  test::R3: OS::Heat::None
"""
    env_2 = """
parameters:
  p2: CORRECT
resource_registry:
  test::R2: OS::Heat::RandomString
  resources:
    r3b:
      test::R3: OS::Heat::RandomString
"""
    env = merge_environments([env_1, env_2])
    assert env.parameters == {"p1": "CORRECT", "p2": "CORRECT"}
    reg = env.resource_registry
    assert reg.resolve_type("r1", "test::R1") == "OS::Heat::RandomString"
    assert reg.resolve_type("r2", "test::R2") == "OS::Heat::RandomString"
    assert reg.resolve_type("r3a", "test::R3") == "OS::Heat::None"
    assert reg.resolve_type("r3b", "test::R3") == "OS::Heat::RandomString"


def test_later_resources_section_replaces_earlier() -> None:
    env = merge_environments([
        {"resource_registry": {"resources": {"a": {"hooks": "pre-create"}}}},
        {"resource_registry": {"resources": {"b": {"hooks": "pre-create"}}}},
    ])
    assert env.hooks_for("a") == frozenset()
    assert env.hooks_for("b") == {"pre-create"}


def test_merge_strategy_merge() -> None:
    env = merge_environments([
        {"parameter_defaults": {"tags": ["a"], "name": "web", "conf": {"x": {"a": 1}}}},
        {"parameter_defaults": {"tags": ["b"], "name": "-1", "conf": {"x": {"b": 2}}},
         "parameter_merge_strategies": {"default": "merge"}},
    ])
    assert env.parameter_defaults == {
        "tags": ["a", "b"], "name": "web-1", "conf": {"x": {"b": 2}},
    }
    assert env.parameter_merge_strategies == {}


def test_merge_strategy_deep_merge() -> None:
    env = merge_environments([
        {"parameters": {"conf": {"x": {"a": 1, "l": [1]}, "s": "ab", "k": 1}},
         "parameter_merge_strategies": {"conf": "deep_merge"}},
        {"parameters": {"conf": {"x": {"b": 2, "l": [2]}, "s": "cd", "k": 2, "nil": None}},
         "parameter_merge_strategies": {"conf": "deep_merge"}},
    ])
    assert env.parameters == {"conf": {"x": {"a": 1, "b": 2, "l": [1, 2]}, "s": "abcd", "k": 2}}


def test_merge_per_parameter_strategy_and_default() -> None:
    env = merge_environments([
        {"parameters": {"a": "1", "b": "1"}},
        {"parameters": {"a": "2", "b": "2"},
         "parameter_merge_strategies": {"default": "merge", "b": "overwrite"}},
    ])
    assert env.parameters == {"a": "12", "b": "2"}


def test_unknown_strategy_falls_back_to_file_default() -> None:
    env = merge_environments([
        {"parameters": {"a": "1"}},
        {"parameters": {"a": "2"}, "parameter_merge_strategies": {"a": "sideways"}},
    ])
    assert env.parameters == {"a": "2"}


def test_each_file_names_its_own_strategy() -> None:
    merging = {"parameter_merge_strategies": {"l": "merge"}}
    env = merge_environments([
        {"parameters": {"l": ["a"]}},
        {"parameters": {"l": ["b"]}, **merging},
        {"parameters": {"l": ["c"]}, **merging},
    ])
    assert env.parameters == {"l": ["a", "b", "c"]}
    with pytest.raises(StackValidationFailed, match="Conflicting merge strategy 'overwrite'"):
        merge_environments([{"parameters": {"l": ["a"]}},
                            {"parameters": {"l": ["b"]}, **merging},
                            {"parameters": {"l": ["c"]}}])  # no strategy: overwrite


def test_the_first_file_to_use_a_strategy_binds_it() -> None:
    # The first file merging into p overwrites it; a later "merge" for it conflicts.
    with pytest.raises(StackValidationFailed, match="Conflicting merge strategy 'merge'"):
        merge_environments([{"parameters": {"p": "a"}},
                            {"parameters": {"p": "b"}},
                            {"parameters": {"p": "c"},
                             "parameter_merge_strategies": {"p": "merge"}}])


def test_the_requests_own_environment_binds_nothing() -> None:
    env = merge_environments([
        {"parameters": {"p": "a"}, "parameter_merge_strategies": {"p": "overwrite"}},
        {"parameters": {"p": "b"}, "parameter_merge_strategies": {"p": "merge"}},
    ])
    assert env.parameters == {"p": "ab"}


def test_conflicting_strategy() -> None:
    with pytest.raises(StackValidationFailed) as info:
        merge_environments(
            [{"parameters": {"l": ["-"]}},
             {"parameters": {"l": ["a"]}, "parameter_merge_strategies": {"l": "merge"}},
             {"parameters": {"l": ["b"]}, "parameter_merge_strategies": {"l": "overwrite"}}],
            names=["request", "one.yaml", "two.yaml"],
        )
    assert str(info.value) == (
        "Conflicting merge strategy 'overwrite' for parameter 'l' in file 'two.yaml'."
    )


def test_boolean_cannot_merge() -> None:
    with pytest.raises(StackValidationFailed) as info:
        merge_environments([{"parameters": {"b": True}},
                            {"parameters": {"b": False},
                             "parameter_merge_strategies": {"default": "merge"}}])
    assert str(info.value) == "Invalid merge strategy 'merge' for parameter 'b'."


TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  names: {type: comma_delimited_list}
  conf: {type: json}
  text: {type: string}
"""


def test_merge_uses_template_types() -> None:
    tmpl = parse_template(TEMPLATE)
    env = merge_environments(
        ["parameters: {names: 'a,b', conf: '{\"x\": 1}', text: a}\n",
         {"parameters": {"names": "c", "conf": {"y": 2}, "text": "b", "undeclared": 1},
          "parameter_merge_strategies": {"default": "merge"}}],
        template=tmpl,
    )
    assert env.parameters == {"names": "a,b,c", "conf": {"x": 1, "y": 2}, "text": "ab"}


def test_merge_other_sections() -> None:
    env = merge_environments([
        Environment(encrypted_param_names=("a",)),
        {"encrypted_param_names": ["a", "b"], "event_sinks": [{"type": "zaqar-queue"}]},
        {"event_sinks": [{"type": "zaqar-queue", "target": "q"}]},
    ])
    assert env.encrypted_param_names == ("a", "b")
    assert len(env.event_sinks) == 2


def test_merge_does_not_change_inputs() -> None:
    first = parse_environment({"parameters": {"conf": {"a": [1]}},
                               "parameter_merge_strategies": {"conf": "deep_merge"}})
    merge_environments([first, {"parameters": {"conf": {"a": [2]}}}])
    assert first.parameters == {"conf": {"a": [1]}}


def test_merge_reports_the_file_that_fails_to_parse() -> None:
    with pytest.raises(StackValidationFailed) as info:
        merge_environments(["parameters: {}", "oops: 1"], names=["a.yaml", "b.yaml"])
    assert info.value.path == ("b.yaml",)


def test_merge_nothing() -> None:
    assert merge_environments([]) == Environment()


def test_a_nested_stack_gets_the_entries_for_its_resources() -> None:
    """Heat's remove_resources_except: matching patterns merge first, the exact
    name last; the parent's own hooks and mappings stay with the parent."""
    registry = parse_environment({"resource_registry": {
        "OS::Food": "fruity.yaml",
        "resources": {
            "a": {"OS::Fruit": "apples.yaml", "hooks": "pre-create"},
            "nested": {"hooks": "pre-update",
                       "b": {"OS::Fruit": "carrots.yaml"},
                       "nested_res": {"hooks": "pre-create"},
                       "c": {"hooks": "pre-delete"}},
            "nest*": {"c": {"hooks": "post-create"}, "d": {"hooks": "pre-create"}},
            "*_no_match": {"e": {"hooks": "pre-create"}},
        }}}).resource_registry
    assert registry.child_resources("nested") == {
        "b": {"OS::Fruit": "carrots.yaml"},
        "nested_res": {"hooks": ["pre-create"]},
        "c": {"hooks": ["pre-delete"]},
        "d": {"hooks": ["pre-create"]},
    }
    assert registry.child_resources("a") == {}
    child = parse_environment({"resource_registry": {
        "resources": registry.child_resources("nested")}}).resource_registry
    assert child.hooks_for("nested_res") == {"pre-create"}
    assert child.resolve_type("b", "OS::Fruit") == "carrots.yaml"
    assert registry.hooks_for("nested") == {"pre-update"}  # the parent's own


def test_a_nested_entry_is_checked_like_any_other() -> None:
    with pytest.raises(StackValidationFailed, match="Invalid hook type"):
        parse_environment({"resource_registry": {"resources": {
            "nested": {"inner": {"hooks": "mid-create"}}}}})
