"""The attempt marks: what a user sees of an object's tags and metadata, and what an
update of them writes (the mark kept)."""

from __future__ import annotations

from hotplate.resources.openstack.attempt_marks import (
    ATTEMPT_METADATA_KEY,
    attempt_tag,
    is_attempt_tag,
    marks_of,
    metadata_with_mark,
    metadata_without_marks,
    part_tag,
    tags_with_marks,
    tags_without_marks,
)


def test_each_part_of_an_attempt_has_a_mark_of_its_own() -> None:
    marks = {attempt_tag("t"), part_tag("t", "port-0"), part_tag("t", "port-1")}
    assert len(marks) == 3
    assert all(is_attempt_tag(m) for m in marks)
    assert part_tag("t", "port-0") == part_tag("t", "port-0")
    assert part_tag("t", "port-0") != part_tag("u", "port-0")


def test_a_users_tags_leave_the_marks_out_and_a_tags_update_keeps_them() -> None:
    mark = attempt_tag("t")
    assert tags_without_marks(["a", mark, "hotplate-x"]) == ["a", "hotplate-x"]
    assert marks_of(["a", mark]) == [mark]
    assert tags_with_marks(["b", "c"], ["a", mark]) == ["b", "c", mark]
    assert tags_with_marks([], [mark]) == [mark]
    # A user cannot set a mark of their own through the tags property.
    assert tags_with_marks([attempt_tag("other")], None) == []


def test_a_users_metadata_leaves_the_mark_out_and_an_update_keeps_it() -> None:
    mark = attempt_tag("t")
    current = {"a": "1", ATTEMPT_METADATA_KEY: mark}
    assert metadata_without_marks(current) == {"a": "1"}
    assert metadata_with_mark({"b": "2"}, current) == {"b": "2", ATTEMPT_METADATA_KEY: mark}
    assert metadata_with_mark(None, current) == {ATTEMPT_METADATA_KEY: mark}
    assert metadata_with_mark({"b": "2"}, {"a": "1"}) == {"b": "2"}
    assert metadata_with_mark({ATTEMPT_METADATA_KEY: "forged"}, {}) == {}
