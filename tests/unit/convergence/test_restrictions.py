import pytest

from hotplate.convergence.restrictions import blocked_action, restricted_text
from hotplate.convergence.update_diff import UpdateKind


@pytest.mark.parametrize(
    ("kind", "restricted", "expected"),
    [
        (UpdateKind.IN_PLACE, {"update"}, "update"),
        (UpdateKind.IN_PLACE, {"replace"}, None),
        (UpdateKind.REPLACE, {"replace"}, "replace"),
        (UpdateKind.REPLACE, {"update"}, None),
        (UpdateKind.REPLACE, {"update", "replace"}, "replace"),
        (UpdateKind.NO_CHANGE, {"update", "replace"}, None),
        (UpdateKind.IN_PLACE, set(), None),
    ],
)
def test_the_action_an_update_needs_is_blocked_only_when_restricted(
    kind, restricted, expected
) -> None:
    assert blocked_action(kind, frozenset(restricted)) == expected


def test_heats_text() -> None:
    assert restricted_text("update") == "update is restricted for resource."
    assert restricted_text("replace") == "replace is restricted for resource."
