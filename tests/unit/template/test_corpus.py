"""Golden tests over a corpus of whole templates (``corpus/``), good and bad.

Each template runs as a stack create would (``corpus/harness.py``) and the
outcome is compared with its golden file. Golden files are written only
with ``HOTPLATE_UPDATE_GOLDEN=1`` and then read by a person: they record
what Heat does, so a changed golden is a changed behaviour.
"""

from __future__ import annotations

import re

import pytest

from hotplate.template import VERSIONS
from tests.unit.template.corpus.harness import BAD, CORPUS, Case, cases, check_golden, outcome

GOOD_CASES = cases(CORPUS)
BAD_CASES = cases(BAD)


@pytest.mark.parametrize("case", GOOD_CASES, ids=[c.name for c in GOOD_CASES])
def test_good_template_matches_its_golden(case: Case) -> None:
    assert "error" not in outcome(case), "a good corpus template must create"
    check_golden(case)


@pytest.mark.parametrize("case", BAD_CASES, ids=[c.name for c in BAD_CASES])
def test_bad_template_fails_as_its_golden_says(case: Case) -> None:
    assert "error" in outcome(case), "a bad corpus template must be refused"
    check_golden(case)


def test_the_corpus_is_large_enough() -> None:
    assert len(GOOD_CASES) >= 25
    assert len(BAD_CASES) >= 25


def test_every_version_date_and_name_is_used() -> None:
    version = re.compile(r'heat_template_version"?:\s*"?([\w-]+)')
    used = {match.group(1) for c in GOOD_CASES if (match := version.search(c.text))}
    labels = {label for v in VERSIONS for label in (v.date, v.name) if label}
    assert labels <= used, sorted(labels - used)


FUNCTIONS = [
    "get_param", "get_resource", "get_attr", "list_join", "str_replace", "get_file", "repeat",
    "digest", "str_split", "map_merge", "yaql", "map_replace", "if", "filter",
    "str_replace_strict", "make_url", "list_concat", "list_concat_unique", "contains",
    "str_replace_vstrict", "equals", "not", "and", "or",
]


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_function_is_used_by_a_good_template(function: str) -> None:
    pattern = re.compile(rf'[{{\s"]{re.escape(function)}"?:')
    assert any(pattern.search(c.text) for c in GOOD_CASES)
