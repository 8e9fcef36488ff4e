"""Error paths followed into template text: the line and column they point at."""

from __future__ import annotations

import json

import pytest

from hotplate.template.positions import Position, locate

YAML = """\
heat_template_version: 2021-04-16
resources:
  web:
    type: OS::Heat::None
    properties:
      networks:
        - port: a
        - {port: b, fixed_ip: 10.0.0.1}
      "a[0]": literal
  web: {type: OS::Heat::Value}
"""


@pytest.mark.parametrize(("path", "expected"), [
    (("resources",), Position(2, 1, 1, True)),
    # The last "web" wins, as when the YAML is loaded.
    (("resources", "web"), Position(10, 3, 2, True)),
    (("resources", "web", "type"), Position(10, 9, 3, True)),
    (("heat_template_version",), Position(1, 1, 1, True)),
])
def test_keys_point_at_where_they_are_written(path: tuple[str, ...],
                                              expected: Position) -> None:
    assert locate(YAML, path) == expected


def test_list_items_by_int_or_folded_index() -> None:
    text = YAML.replace("  web: {type: OS::Heat::Value}\n", "")
    by_int = locate(text, ("resources", "web", "properties", "networks", 1, "fixed_ip"))
    folded = locate(text, ("resources", "web", "properties", "networks[1]", "fixed_ip"))
    digits = locate(text, ("resources", "web", "properties", "networks", "1"))
    assert by_int == Position(8, 21, 6, True)
    assert folded == Position(8, 21, 5, True)  # "networks[1]" is one step of the path
    assert digits == Position(8, 11, 5, True)
    assert locate(text, ("resources", "web", "properties", "a[0]")) == Position(9, 7, 4, True)


def test_a_path_beyond_the_text_names_the_nearest_node() -> None:
    text = YAML.replace("  web: {type: OS::Heat::Value}\n", "")
    deeper = locate(text, ("resources", "web", "properties", "networks", 7, "port"))
    assert deeper == Position(6, 7, 4, False)
    assert locate(text, ("resources", "db")) == Position(2, 1, 1, False)
    assert locate(text, ("networks[0]",)) is None


def test_json_text_is_followed_too() -> None:
    text = json.dumps({"heat_template_version": "2021-04-16",
                       "resources": {"a": {"type": "OS::Heat::None"}}}, indent=2)
    assert locate(text, ("resources", "a", "type")) == Position(5, 7, 3, True)


@pytest.mark.parametrize("text", ["a: [", "a: 1\n---\nb: 2\n", "a: *nowhere"])
def test_text_that_is_not_one_yaml_document_has_no_positions(text: str) -> None:
    assert locate(text, ("a",)) is None


def test_no_path_no_position() -> None:
    assert locate(YAML, ()) is None
