"""An update's plan as ``stack update --dry-run`` prints it."""

from __future__ import annotations

from hotplate.cli.remote.plan_text import plan_lines

DETAIL = [
    {"resource_name": "web", "resource_type": "T", "change": "updated",
     "properties": [{"name": "value", "old": "a", "new": {"k": 1},
                     "forces_replacement": False}]},
    {"resource_name": "later", "resource_type": "T", "change": "updated",
     "properties_known": False},
    {"resource_name": "tagged", "resource_type": "T", "change": "updated",
     "metadata_changed": True},
    {"resource_name": "box", "resource_type": "T", "change": "replaced",
     "replacement": {"forced_by": [], "reason": "the resource is CREATE_FAILED"}},
    {"resource_name": "key", "resource_type": "R", "change": "replaced",
     "properties": [{"name": "length", "old": 8, "new": "<hidden>",
                     "forces_replacement": True}],
     "replacement": {"forced_by": ["length"], "reason": "length cannot be updated in place"}},
    {"resource_name": "same", "resource_type": "T", "change": "unchanged"},
    {"resource_name": "group", "resource_type": "G", "change": "updated", "nested": [
        {"resource_name": "0", "resource_type": "T", "change": "unchanged"},
        {"resource_name": "1", "resource_type": "T", "change": "added"},
        {"resource_name": "2", "resource_type": "T", "change": "deleted"}]},
]


def test_each_touched_resource_then_the_counts_down_the_nested_stacks() -> None:
    assert plan_lines(DETAIL) == [
        "  ~ web (T) updated in place",
        '      value: "a" -> {"k": 1}',
        "  ~ later (T) updated in place",
        "      (the new properties are known only during the update)",
        "  ~ tagged (T) updated in place",
        "      (its metadata changes)",
        "-/+ box (T) replaced: the resource is CREATE_FAILED",
        "-/+ key (R) replaced, forced by length",
        "      length: 8 -> <hidden>  (forces replacement)",
        "  ~ group (G) updated in place",
        "      + 1 (T) added",
        "      - 2 (T) deleted",
        "",
        "Plan: 1 to add, 4 to update in place, 2 to replace, 1 to delete, 2 unchanged.",
    ]


def test_a_stack_backed_resource_whose_stack_keeps_everything_is_no_change() -> None:
    detail = [{"resource_name": "group", "resource_type": "G", "change": "updated",
               "nested": [{"resource_name": "0", "resource_type": "T",
                           "change": "unchanged"}]},
              {"resource_name": "same", "resource_type": "T", "change": "unchanged"}]
    assert plan_lines(detail) == [
        "  ~ group (G) updated in place: nothing in its stack changes",
        "",
        "No changes: every resource stays as it is.",
        "Plan: 0 to add, 1 to update in place, 0 to replace, 0 to delete, 2 unchanged.",
    ]
    assert plan_lines([]) == [
        "No changes: every resource stays as it is.",
        "Plan: 0 to add, 0 to update in place, 0 to replace, 0 to delete, 0 unchanged.",
    ]
