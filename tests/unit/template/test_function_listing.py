"""Every function a version offers has Heat's words and a place in Heat's order."""

from __future__ import annotations

import pytest

from hotplate.template.function_listing import _order, describe, listed_functions
from hotplate.template.versions import TEMPLATE_VERSIONS, TemplateVersion


@pytest.mark.parametrize("version", TEMPLATE_VERSIONS, ids=lambda v: v.label)
def test_each_listed_function_is_described_and_ranked(version: TemplateVersion) -> None:
    listed = listed_functions(version, with_conditions=True)
    assert listed, version.label
    for name, description in listed:
        assert description.startswith("A "), (version.label, name)
        assert name in _order(version), (version.label, name)


def test_a_condition_meaning_replaces_the_plain_one_in_place() -> None:
    aws = next(v for v in TEMPLATE_VERSIONS if v.label == "AWSTemplateFormatVersion.2010-09-09")
    plain = listed_functions(aws)
    merged = listed_functions(aws, with_conditions=True)
    assert [n for n, _ in merged][: len(plain)] == [n for n, _ in plain]
    assert dict(plain)["Ref"] == "A function for resolving parameters or resource references."
    assert dict(merged)["Ref"] == "A function for resolving parameter references."
    assert [n for n, _ in merged][len(plain):] == ["Fn::Equals", "Fn::Not", "Fn::And", "Fn::Or"]


def test_an_unknown_class_has_no_description() -> None:
    assert describe(TemplateVersion) == ""  # type: ignore[arg-type]
