"""Damaged templates and environments fail only with ``StackValidationFailed``.

Starting from every corpus request, hypothesis damages the template (as
data, as YAML text, as JSON text) or one of its environments: wrong types
everywhere, function calls with nonsense arguments, deep nesting, huge
numbers, unicode and lone surrogates, YAML anchors, aliases, tags and
duplicate keys, keys that are not text, documents that contain
themselves. Whatever comes out, a stack create must either succeed or
report a validation error with a message (``corpus/fuzzing.py``).

``HOTPLATE_PROPERTY_EXAMPLES`` scales the number of examples (default 300
per test); ``benchmarks/fuzz_templates.py`` runs the same damage for minutes.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hotplate.model.errors import StackValidationFailed
from hotplate.template import parse_environment, parse_template
from tests.unit.template.corpus.fuzzing import (
    DrawChooser,
    Seed,
    damaged,
    exercise,
    garbage,
    mutate_text,
    seeds,
)

EXAMPLES = int(os.environ.get("HOTPLATE_PROPERTY_EXAMPLES", "300"))
SEEDS = seeds()
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(st.sampled_from(SEEDS), st.data())
def test_damaged_corpus_requests_fail_only_with_validation_errors(seed: Seed, data: Any) -> None:
    chooser = DrawChooser(data.draw)
    exercise(damaged(seed, chooser), attribute=garbage(chooser, 2))


@FUZZ
@given(st.data())
def test_garbage_documents_fail_only_with_validation_errors(data: Any) -> None:
    chooser = DrawChooser(data.draw)
    document = {"heat_template_version": chooser.pick(("wallaby", "2013-05-23", "newton"))}
    for _ in range(chooser.number(0, 4)):
        section = chooser.pick(("parameters", "resources", "outputs", "conditions",
                                "parameter_groups", "description"))
        document[section] = garbage(chooser)
    exercise(Seed("garbage", document, environments=[garbage(chooser)]),
             attribute=garbage(chooser, 1))


@FUZZ
@given(st.sampled_from(SEEDS), st.data())
def test_damaged_environment_text_fails_only_with_validation_errors(
    seed: Seed, data: Any
) -> None:
    chooser = DrawChooser(data.draw)
    text = "parameters: {a: 1}\nresource_registry: {\"A::B\": OS::Heat::None}\n"
    try:
        parse_environment(mutate_text(text, chooser))
    except StackValidationFailed as exc:
        assert str(exc)


NASTY_TEXTS = {
    "huge integer": "heat_template_version: wallaby\nresources: {r: {type: T, properties: "
                    "{a: " + "9" * 5000 + "}}}",
    "huge integer in JSON": '{"heat_template_version": "wallaby", "resources": {"r": '
                            '{"type": "T", "properties": {"a": ' + "9" * 5000 + "}}}}",
    "deep flow nesting": "heat_template_version: wallaby\nresources: {r: {type: T, properties: "
                         "{a: " + "[" * 5000 + "]" * 5000 + "}}}",
    "deep JSON nesting": '{"heat_template_version": "wallaby", "x": ' + "[" * 100000
                         + "]" * 100000 + "}",
    "alias bomb": "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
                  "c: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c]\n"
                  "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nheat_template_version: wallaby\n",
    "recursive alias": "heat_template_version: wallaby\nresources: &r {r: {type: T, "
                       "properties: *r}}",
    "lone surrogate in digest": '{"heat_template_version": "wallaby", "resources": {"r": '
                                '{"type": "T", "properties": {"a": {"digest": '
                                '["md5", "\\ud800"]}}}}}',
    "lone surrogate in make_url": '{"heat_template_version": "wallaby", "resources": {"r": '
                                  '{"type": "T", "properties": {"a": {"make_url": '
                                  '{"host": "\\ud800"}}}}}}',
    "contains null in text": "heat_template_version: wallaby\nresources: {r: {type: T, "
                             "properties: {a: {contains: [null, {get_param: OS::stack_name}]}}}}",
    "python tag": "heat_template_version: wallaby\nresources: !!python/object:os.system {}",
    "set tag": "heat_template_version: wallaby\nresources: !!set {a, b}",
    "complex key": "heat_template_version: wallaby\nresources:\n  ? [a, b]\n  : {type: T}",
    "tab indentation": "heat_template_version: wallaby\nresources:\n\tr: {type: T}",
}


@pytest.mark.parametrize("text", NASTY_TEXTS.values(), ids=NASTY_TEXTS.keys())
def test_nasty_text_fails_with_a_validation_error(text: str) -> None:
    errors = exercise(Seed("nasty", text))
    assert errors, "each of these inputs is invalid"


@pytest.mark.parametrize("key", [1, 2.5, None, True, (1, 2), b"x", frozenset({1})])
def test_keys_that_are_not_text_are_named_or_refused(key: Any) -> None:
    data = {"heat_template_version": "wallaby",
            "resources": {"r": {"type": "T", "properties": {key: "v"}}}}
    try:
        template = parse_template(data)
    except StackValidationFailed as exc:
        assert "Keys of type" in str(exc)
    else:
        assert list(template.resources["r"].resolve_properties(_NoWorld())) != [key]


class _NoWorld:
    def parameter(self, name: str) -> Any:
        raise KeyError(name)

    def resource_reference(self, name: str) -> str | None:
        return None

    def resource_attribute(self, name: str, attribute: str) -> Any:
        return None
