"""Results printed as openstackclient prints them: a table, or json, yaml or value.

A *listing* has headings and rows (``stack list``); a *record* has fields
with one value each (``stack show``) and prints as a Field/Value table.
``-c`` picks columns the way cliff does: case does not matter and a space
equals an underscore, so ``-c stack_name`` picks "Stack Name"; the columns
keep their own order. Mappings and lists print as YAML in a table, as JSON
in ``value`` output, and as themselves in ``json`` and ``yaml`` output.
An empty listing prints nothing as a table, as cliff does.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from hotplate.cli.remote.errors import CommandError

FORMATS = ("table", "json", "yaml", "value")


@dataclass
class Listing:
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)

    @classmethod
    def of(cls, columns: Sequence[str], items: Sequence[Mapping[str, Any]],
           keys: Sequence[str] | None = None) -> Listing:
        """Rows from mappings; a heading's key is its lower-case, underscored form."""
        keys = keys or [key_of(c) for c in columns]
        return cls(list(columns), [[item.get(k) for k in keys] for item in items])


@dataclass
class Record:
    fields: list[str]
    values: list[Any]

    @classmethod
    def of(cls, data: Mapping[str, Any], fields: Sequence[str] | None = None) -> Record:
        """The given fields of ``data`` in that order; all of them, sorted, by default."""
        names = list(fields) if fields is not None else sorted(data)
        return cls(names, [data.get(n) for n in names])


def key_of(column: str) -> str:
    return column.strip().lower().replace(" ", "_")


def add_output_options(parser: argparse.ArgumentParser, *, default: str = "table",
                       formats: Sequence[str] = FORMATS) -> None:
    group = parser.add_argument_group("output formatters")
    group.add_argument("-f", "--format", dest="format", choices=list(formats), default=default,
                       help=f"the output format (default: {default})")
    group.add_argument("-c", "--column", dest="columns", action="append", default=[],
                       metavar="COLUMN",
                       help="show only this column; can be repeated")


def chosen(names: Sequence[str], wanted: Sequence[str]) -> list[int]:
    """Indexes of the columns ``-c`` asked for, in the columns' own order."""
    if not wanted:
        return list(range(len(names)))
    asked = {key_of(w) for w in wanted}
    picked = [i for i, n in enumerate(names) if key_of(n) in asked]
    if not picked:
        raise CommandError(f"No recognized column names in {list(wanted)}. Recognized "
                           f"columns are {list(names)}.")
    return picked


def sort_items(items: list[dict[str, Any]], spec: str | None) -> list[dict[str, Any]]:
    """Sorted by ``key[:asc|desc],...`` as openstackclient sorts; nulls come first."""
    for part in reversed([p for p in (spec or "").split(",") if p]):
        key, _, direction = part.partition(":")
        key = key_of(key)
        if direction not in ("", "asc", "desc"):
            raise CommandError(f"Unknown sort direction: {direction}")
        if items and key not in items[0]:
            raise CommandError(f"Unknown sort key: {key}")
        present = sorted((i for i in items if i.get(key) is not None),
                         key=lambda i: str(i[key]), reverse=direction == "desc")
        absent = [i for i in items if i.get(key) is None]
        items = present + absent if direction == "desc" else absent + present
    return items


def render_listing(listing: Listing, fmt: str, wanted: Sequence[str] = ()) -> str:
    keep = chosen(listing.columns, wanted)
    heads = [listing.columns[i] for i in keep]
    rows = [[row[i] for i in keep] for row in listing.rows]
    if fmt == "json":
        return _json([dict(zip(heads, row, strict=True)) for row in rows])
    if fmt == "yaml":
        return _yaml([dict(zip(heads, row, strict=True)) for row in rows])
    if fmt == "value":
        return "".join(" ".join(_plain(c) for c in row) + "\n" for row in rows)
    if not rows:
        return ""
    return ascii_table(heads, [[_cell(c) for c in row] for row in rows])


def render_record(record: Record, fmt: str, wanted: Sequence[str] = ()) -> str:
    keep = chosen(record.fields, wanted)
    names = [record.fields[i] for i in keep]
    values = [record.values[i] for i in keep]
    if fmt == "json":
        return _json(dict(zip(names, values, strict=True)))
    if fmt == "yaml":
        return _yaml(dict(zip(names, values, strict=True)))
    if fmt == "value":
        return "".join(_plain(v) + "\n" for v in values)
    return ascii_table(["Field", "Value"],
                       [[n, _cell(v)] for n, v in zip(names, values, strict=True)])


def render_document(data: Any, fmt: str) -> str:
    """A whole document (a template, an environment): YAML or JSON."""
    return _json(data) if fmt == "json" else _yaml(data)


def ascii_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A left-aligned table with ``+---+`` rules; a cell may span several lines."""
    split = [[str(c).splitlines() or [""] for c in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in split:
        for i, lines in enumerate(row):
            widths[i] = max(widths[i], *(len(line) for line in lines))
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    out = [rule, _line(headers, widths), rule]
    for row in split:
        for depth in range(max(len(lines) for lines in row)):
            out.append(_line([lines[depth] if depth < len(lines) else "" for lines in row],
                             widths))
    out.append(rule)
    return "\n".join(out) + "\n"


def _line(cells: Sequence[str], widths: Sequence[int]) -> str:
    return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"


def _cell(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return yaml.safe_dump(value, default_flow_style=False, allow_unicode=True).rstrip()
    return str(value)


def _plain(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _yaml(data: Any) -> str:
    return str(yaml.safe_dump(data, default_flow_style=False, allow_unicode=True))
