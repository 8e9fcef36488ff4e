"""OS::Heat::RandomString: validation, generation, storage and references."""

from __future__ import annotations

import random
import string
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.random_string import CHARACTER_CLASSES, RandomString, generate
from tests.unit.resources.fakes import FakeContext, drive, make

PREFIX = ("resources", "rs", "properties")
TOO_SHORT = (
    "Length property cannot be smaller than combined character class and character "
    "sequence minimums"
)


def props(**raw: Any) -> dict[str, Any]:
    return RandomString.validate(raw, PREFIX)


def created(raw: dict[str, Any] | None = None) -> tuple[RandomString, FakeContext, str]:
    ctx = FakeContext(resource_name="rs")
    res = make(RandomString, raw, name="rs", ctx=ctx)
    assert isinstance(res, RandomString)
    assert drive(res.handle_create, res.check_create_complete, ctx.clock) == 0
    return res, ctx, ctx.stored["value"]


# -- validation -----------------------------------------------------------------------
def test_defaults() -> None:
    assert props() == {
        "length": 32,
        "sequence": None,
        "character_classes": [{"class": "lettersdigits", "min": 1}],
        "character_sequences": None,
        "salt": None,
    }


@pytest.mark.parametrize(
    ("raw", "path", "message"),
    [
        ({"length": 0}, ("length",), "0 is out of range (min: 1, max: 512)"),
        ({"length": 513}, ("length",), "513 is out of range (min: 1, max: 512)"),
        ({"length": "ten"}, ("length",), "Value 'ten' is not an integer"),
        ({"character_classes": [{"class": "emoji"}]}, ("character_classes", 0, "class"),
         '"emoji" is not an allowed value ["lettersdigits", "letters", "lowercase", '
         '"uppercase", "digits", "hexdigits", "octdigits"]'),
        ({"character_classes": [{"min": 0}]}, ("character_classes", 0, "min"),
         "0 is out of range (min: 1, max: 512)"),
        ({"character_sequences": [{"min": 2}]}, ("character_sequences", 0),
         "Property sequence not assigned"),
        ({"sequence": "emoji"}, ("character_classes", 0, "class"),
         '"emoji" is not an allowed value ["lettersdigits", "letters", "lowercase", '
         '"uppercase", "digits", "hexdigits", "octdigits"]'),
    ],
)
def test_validation_errors(raw: dict[str, Any], path: tuple[Any, ...], message: str) -> None:
    with pytest.raises(StackValidationFailed) as info:
        props(**raw)
    assert info.value.detail == message
    assert info.value.path == (*PREFIX, *path)


@pytest.mark.parametrize(
    "raw",
    [
        {"length": 3, "character_classes": [{"class": "digits", "min": 2},
                                            {"class": "letters", "min": 2}]},
        # the default class still counts when only sequences are given, as in Heat
        {"length": 2, "character_sequences": [{"sequence": "!@", "min": 2}]},
    ],
)
def test_minimums_longer_than_length(raw: dict[str, Any]) -> None:
    with pytest.raises(StackValidationFailed) as info:
        props(**raw)
    assert str(info.value) == TOO_SHORT


def test_deprecated_sequence_becomes_a_class() -> None:
    assert props(sequence="octdigits")["character_classes"] == [{"class": "octdigits", "min": 1}]
    both = props(sequence="digits", character_classes=[{"class": "lowercase"}])
    assert both["character_classes"] == [{"class": "lowercase", "min": 1},
                                         {"class": "digits", "min": 1}]
    assert both["sequence"] is None
    _, _, value = created({"sequence": "digits", "length": 40})
    assert set(value) <= set(string.digits)


def test_every_change_replaces() -> None:
    old = props(salt="1")
    assert RandomString.needs_replacement(old, props(salt="2")) is True
    assert RandomString.needs_replacement(old, props(salt="1", length=10)) is True
    assert RandomString.needs_replacement(old, props(salt="1")) is False


# -- create ---------------------------------------------------------------------------
def test_create_stores_a_redacted_value_that_is_the_reference() -> None:
    res, ctx, value = created()
    assert len(value) == 32 and set(value) <= set(string.ascii_letters + string.digits)
    assert ctx.redacted == {"value"}
    assert res.resource_id == "teststack-rs-abcdefghijkl"
    assert res.get_reference_id() == value
    assert res.get_attribute("value") == value
    assert res.get_attribute("show") == {"value": value}


def test_reference_is_the_name_before_create() -> None:
    res = make(RandomString, name="rs")
    assert res.get_reference_id() == "rs"
    assert res.get_attribute("value") is None


def test_two_creates_differ() -> None:
    assert created()[2] != created()[2]


def test_hexdigits_are_upper_case_as_in_heat() -> None:
    _, _, value = created({"length": 200, "character_classes": [{"class": "hexdigits"}]})
    assert set(value) <= set("0123456789ABCDEF")


def test_generate_is_reproducible_with_a_seeded_rng() -> None:
    pools = [("ab", 2), (string.digits, 1)]
    assert generate(10, pools, random.Random(7)) == generate(10, pools, random.Random(7))


# -- generated strings satisfy what was asked ----------------------------------------------
classes = st.lists(
    st.fixed_dictionaries({"class": st.sampled_from(sorted(CHARACTER_CLASSES)),
                           "min": st.integers(1, 4)}),
    max_size=3,
)
sequences = st.lists(
    st.fixed_dictionaries({
        "sequence": st.text(alphabet=string.punctuation + "éß", min_size=1, max_size=5),
        "min": st.integers(1, 4),
    }),
    max_size=3,
)


@given(classes, sequences, st.integers(0, 40))
def test_generated_strings_satisfy_the_classes(
    char_classes: list[dict[str, Any]], char_sequences: list[dict[str, Any]], extra: int
) -> None:
    raw: dict[str, Any] = {"character_sequences": char_sequences}
    if char_classes:
        raw["character_classes"] = char_classes
    validated = props(**raw)
    pools = [(s["sequence"], s["min"]) for s in validated["character_sequences"]]
    pools += [(CHARACTER_CLASSES[c["class"]], c["min"]) for c in validated["character_classes"]]
    length = max(1, sum(m for _, m in pools) + extra)
    _, _, value = created({**raw, "length": length})
    assert len(value) == length
    assert set(value) <= set().union(*(set(chars) for chars, _ in pools))
    for chars, minimum in pools:
        assert sum(ch in chars for ch in value) >= minimum
