"""Tables, json, yaml and value output; ``-c`` as cliff matches it; client-side sorting."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from hotplate.cli.remote.errors import CommandError
from hotplate.cli.remote.output import (
    Listing,
    Record,
    ascii_table,
    render_document,
    render_listing,
    render_record,
    sort_items,
)

STACKS: list[dict[str, Any]] = [
    {"id": "1", "stack_name": "web", "stack_status": "CREATE_COMPLETE", "tags": None},
    {"id": "2", "stack_name": "db", "stack_status": "UPDATE_FAILED", "tags": ["a"]},
]
COLUMNS = ["ID", "Stack Name", "Stack Status"]


def test_a_table_has_rules_and_left_aligned_cells() -> None:
    assert render_listing(Listing.of(COLUMNS, STACKS), "table") == (
        "+----+------------+-----------------+\n"
        "| ID | Stack Name | Stack Status    |\n"
        "+----+------------+-----------------+\n"
        "| 1  | web        | CREATE_COMPLETE |\n"
        "| 2  | db         | UPDATE_FAILED   |\n"
        "+----+------------+-----------------+\n")


def test_an_empty_listing_prints_no_table_but_an_empty_json_list() -> None:
    assert render_listing(Listing.of(COLUMNS, []), "table") == ""
    assert render_listing(Listing.of(COLUMNS, []), "json") == "[]\n"


def test_columns_match_whatever_the_case_and_spacing_but_keep_their_order() -> None:
    listing = Listing.of(COLUMNS, STACKS)
    assert render_listing(listing, "value", ["stack_status", "id"]) == (
        "1 CREATE_COMPLETE\n2 UPDATE_FAILED\n")
    assert json.loads(render_listing(listing, "json", ["STACK NAME"])) == [
        {"Stack Name": "web"}, {"Stack Name": "db"}]
    with pytest.raises(CommandError) as caught:
        render_listing(listing, "table", ["name"])
    assert caught.value.message == ("No recognized column names in ['name']. Recognized "
                                    "columns are ['ID', 'Stack Name', 'Stack Status'].")


def test_a_record_is_a_field_value_table_with_structures_as_yaml() -> None:
    record = Record.of({"id": "1", "tags": ["a", "b"], "outputs": None}, ["id", "tags",
                                                                          "outputs"])
    assert render_record(record, "table") == (
        "+---------+-------+\n"
        "| Field   | Value |\n"
        "+---------+-------+\n"
        "| id      | 1     |\n"
        "| tags    | - a   |\n"
        "|         | - b   |\n"
        "| outputs | None  |\n"
        "+---------+-------+\n")
    assert render_record(record, "value") == '1\n["a", "b"]\nNone\n'
    assert yaml.safe_load(render_record(record, "yaml")) == {"id": "1", "tags": ["a", "b"],
                                                             "outputs": None}
    assert list(json.loads(render_record(Record.of({"b": 1, "a": 2}), "json"))) == ["a", "b"]


def test_documents_are_yaml_unless_json_is_asked() -> None:
    assert render_document({"a": [1]}, "yaml") == "a:\n- 1\n"
    assert render_document({"a": [1]}, "json") == '{\n  "a": [\n    1\n  ]\n}\n'


def test_ascii_table_pads_multiline_cells() -> None:
    assert ascii_table(["k", "v"], [["x", "1\n22"]]).splitlines()[3:5] == ["| x | 1  |",
                                                                         "|   | 22 |"]


def test_sorting_by_several_keys_and_directions() -> None:
    items: list[dict[str, Any]] = [{"n": "b", "s": 1}, {"n": "a", "s": 2}, {"n": "c", "s": 1},
                                   {"n": None, "s": 2}]
    assert [i["n"] for i in sort_items(items, "n")] == [None, "a", "b", "c"]
    assert [i["n"] for i in sort_items(items, "s:desc,n")] == [None, "a", "b", "c"]
    assert [i["n"] for i in sort_items(items, "s,n:desc")] == ["c", "b", "a", None]
    with pytest.raises(CommandError, match="Unknown sort direction: up"):
        sort_items(items, "n:up")
    with pytest.raises(CommandError, match="Unknown sort key: nope"):
        sort_items(items, "nope")
