from hotplate.convergence.update_diff import UpdateKind, decide_update, property_diff


def test_no_change() -> None:
    assert decide_update({"a": 1}, {"a": 1}, {"a"}).kind is UpdateKind.NO_CHANGE


def test_in_place_when_every_changed_property_allows_it() -> None:
    decision = decide_update({"a": 1, "b": 2}, {"a": 5, "b": 2}, {"a"})
    assert decision.kind is UpdateKind.IN_PLACE
    assert decision.prop_diff == {"a": 5}


def test_replace_when_a_changed_property_does_not_allow_update() -> None:
    assert decide_update({"a": 1, "b": 2}, {"a": 5, "b": 3}, {"a"}).kind is UpdateKind.REPLACE


def test_removed_property_shows_as_none() -> None:
    assert property_diff({"a": 1, "b": 2}, {"a": 1}) == {"b": None}


def test_metadata_only_change_is_in_place() -> None:
    assert decide_update({}, {}, (), metadata_changed=True).kind is UpdateKind.IN_PLACE
