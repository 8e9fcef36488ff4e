"""Heat's less obvious template behaviours, found while building the corpus.

Each test asserts what Heat does. A new difference goes here as an
``xfail(strict=True)`` test whose reason names Heat's code that decides it;
once hotplate matches, the marker comes off and the test guards it.
"""

from __future__ import annotations

from typing import Any

import pytest

from hotplate.model.errors import StackValidationFailed
from hotplate.template import merge_environments, parse_template, resolve_parameters
from tests.unit.template.fakes import FakeContext, resolve_web


def _resolve(template_data: dict[str, Any], **params: Any) -> dict[str, Any]:
    """Create-time resolution: parameters decided, then ``web``'s properties."""
    template = parse_template(template_data)
    values = {**resolve_parameters(template, params), "OS::stack_name": "s"}
    decided = template.with_parameters(values)
    return decided.resources["web"].resolve_properties(FakeContext(params=values))


def test_an_untaken_if_branch_is_never_evaluated() -> None:
    data = {
        "heat_template_version": "2017-02-24",
        "parameters": {"large": {"type": "boolean", "default": False}},
        "conditions": {"large": {"equals": [{"get_param": "large"}, True]}},
        "resources": {"web": {"type": "OS::Heat::None", "properties": {"v": {"if": [
            "large",
            {"str_replace_strict": {"template": "a", "params": {"missing": "x"}}},
            "small",
        ]}}}},
    }
    assert _resolve(data) == {"v": "small"}


def test_repeat_over_numbers_fails_as_in_heat() -> None:
    with pytest.raises(StackValidationFailed):
        resolve_web({"v": {"repeat": {"template": "n-%i%", "for_each": {"%i%": [1, 2]}}}})


def test_list_concat_unique_keeps_the_first_occurrence() -> None:
    assert resolve_web({"v": {"list_concat_unique": [[0, 1], [0, 2, 1, 2]]}}) == {
        "v": [0, 1, 2]
    }


def test_digest_hashes_latin_1_bytes() -> None:
    assert resolve_web({"v": {"digest": ["md5", "é"]}}) == {
        "v": "3406877694691ddd1dfb0aca54681407"
    }


def test_digest_accepts_every_hashlib_algorithm() -> None:
    assert resolve_web({"v": {"digest": ["sha3_256", "data"]}}) == {
        "v": "efda893aa850b0c0e61f33325615b9d93bcf6b42d60d8f5d37ebc720fd4e3daf"
    }


def test_parameter_groups_are_validated() -> None:
    data = {
        "heat_template_version": "2021-04-16",
        "parameter_groups": [{"label": "g", "parameters": ["nope"]}],
        "parameters": {"a": {"type": "string", "default": "x"}},
        "resources": {"web": {"type": "OS::Heat::None"}},
    }
    with pytest.raises(StackValidationFailed, match="nope"):
        parse_template(data)


# -- environment merging (heat/common/environment_util.py) --

_FLAGS = parse_template({
    "heat_template_version": "2021-04-16",
    "parameters": {"flags": {"type": "comma_delimited_list", "default": ""},
                   "quota": {"type": "number", "default": 0}},
})


def _merge(*envs: Any) -> Any:
    return merge_environments(list(envs), template=_FLAGS).parameters


def test_the_first_file_setting_a_parameter_binds_no_strategy() -> None:
    first = {"parameter_merge_strategies": {"flags": "merge"}, "parameters": {"flags": "a"}}
    second = {"parameter_merge_strategies": {"flags": "overwrite"},
              "parameters": {"flags": "b"}}
    assert _merge({}, first, second) == {"flags": "b"}


def test_request_parameters_bind_no_strategy() -> None:
    file = {"parameter_merge_strategies": {"flags": "merge"}, "parameters": {"flags": "b"}}
    assert _merge({"parameters": {"flags": "a"}}, file) == {"flags": "a,b"}


def test_a_file_without_strategies_uses_its_own_default() -> None:
    first = {"parameter_merge_strategies": {"flags": "merge"}, "parameters": {"flags": "a"}}
    second = {"parameters": {"flags": "b"}}
    with pytest.raises(StackValidationFailed, match="Conflicting merge strategy"):
        _merge({"parameters": {"quota": 1}}, first, second)


def test_merging_numbers_is_refused() -> None:
    first = {"parameter_merge_strategies": {"quota": "merge"}, "parameters": {"quota": 10}}
    second = {"parameter_merge_strategies": {"quota": "merge"}, "parameters": {"quota": 5}}
    with pytest.raises(StackValidationFailed):
        _merge({"parameters": {"flags": "x"}}, first, second)
