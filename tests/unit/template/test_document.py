import datetime

import pytest

from hotplate.model.errors import StackValidationFailed
from hotplate.template import parse_template
from hotplate.template.document import MAX_DEPTH, normalize

BOMB = """heat_template_version: 2013-05-23
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]
"""


def test_yaml_dates_stay_text() -> None:
    template = parse_template(
        "heat_template_version: 2013-05-23\n"
        "resources:\n"
        "  r:\n"
        "    type: OS::Heat::None\n"
        "    properties:\n"
        "      when: 2001-12-14t21:59:43.10-05:00\n"
        "      day: 2002-12-14\n"
    )
    assert template.to_dict()["heat_template_version"] == "2013-05-23"
    props = template.to_dict()["resources"]["r"]["properties"]
    assert props == {"when": "2001-12-14t21:59:43.10-05:00", "day": "2002-12-14"}


def test_json_text_is_read_as_json() -> None:
    template = parse_template('{"heat_template_version": "2015-10-15", "resources": {}}')
    assert template.version == "2015-10-15"


def test_an_alias_bomb_is_refused_quickly() -> None:
    with pytest.raises(StackValidationFailed) as info:
        parse_template(BOMB)
    assert "expands to more than" in str(info.value)


def test_modest_aliases_are_fine() -> None:
    text = (
        "heat_template_version: 2013-05-23\n"
        "resources:\n"
        "  a:\n"
        "    type: OS::Heat::None\n"
        "    properties: &props {x: 1, y: [1, 2, 3]}\n"
        "  b:\n"
        "    type: OS::Heat::None\n"
        "    properties: *props\n"
    )
    template = parse_template(text)
    data = template.to_dict()
    assert data["resources"]["b"]["properties"] == {"x": 1, "y": [1, 2, 3]}
    data["resources"]["a"]["properties"]["x"] = 2
    assert template.to_dict()["resources"]["b"]["properties"]["x"] == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("just a string", "The template is not a JSON object or YAML mapping."),
        ('["foo", "bar"]', "The template is not a JSON object or YAML mapping."),
        ("", "Template format version not found."),
        ("{}", "Template format version not found."),
    ],
)
def test_top_level_must_be_a_mapping(text: str, message: str) -> None:
    with pytest.raises(StackValidationFailed) as info:
        parse_template(text)
    assert str(info.value) == message


def test_yaml_syntax_errors_say_where() -> None:
    with pytest.raises(StackValidationFailed) as info:
        parse_template("heat_template_version: 2013-05-23\nresources: [\n")
    assert str(info.value).startswith("Error parsing template [root stack] ")
    assert "line" in str(info.value)


def test_source_that_is_neither_text_nor_mapping() -> None:
    with pytest.raises(StackValidationFailed):
        parse_template(42)  # type: ignore[arg-type]


def test_yaml_binary_is_not_json() -> None:
    with pytest.raises(StackValidationFailed) as info:
        parse_template("heat_template_version: 2013-05-23\nx: !!binary aGVsbG8=\n")
    assert str(info.value) == "x: Values of type bytes are not allowed in a template"


def test_recursive_alias_is_refused() -> None:
    with pytest.raises(StackValidationFailed) as info:
        parse_template("heat_template_version: 2013-05-23\nx: &a [*a]\n")
    assert f"nested more than {MAX_DEPTH} levels deep" in str(info.value)


def test_normalize_makes_json_safe_copies() -> None:
    day = datetime.date(2020, 1, 2)
    source = {"a": (1, 2), 2: "two", 1.5: "x", True: "yes", None: "nil", "d": day}
    assert normalize(source) == {
        "a": [1, 2], "2": "two", "1.5": "x", "true": "yes", "null": "nil", "d": "2020-01-02"
    }


@pytest.mark.parametrize("bad", [float("nan"), {1, 2}, object()])
def test_normalize_refuses_what_json_cannot_hold(bad: object) -> None:
    with pytest.raises(StackValidationFailed) as info:
        normalize({"x": [bad]})
    assert str(info.value).startswith("x[0]: ")


def test_normalize_refuses_odd_keys() -> None:
    with pytest.raises(StackValidationFailed):
        normalize({"x": {(1, 2): 1}})


def test_mapping_input_is_copied() -> None:
    source = {"heat_template_version": "2013-05-23", "description": "d"}
    template = parse_template(source)
    source["description"] = "changed"
    assert template.to_dict()["description"] == "d"
