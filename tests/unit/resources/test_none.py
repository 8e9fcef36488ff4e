"""OS::Heat::None: accepts anything, does nothing, never replaced."""

from __future__ import annotations

from typing import Any

import pytest

from hotplate.resources.none import NoneResource
from tests.unit.resources.fakes import FakeContext, drive, make


@pytest.mark.parametrize("raw", [{}, None, {"image": "x", "flavor": {"a": 1}}, ["odd"]])
def test_accepts_any_properties_and_keeps_none(raw: Any) -> None:
    assert NoneResource.validate(raw, ("resources", "n", "properties")) == {}


def test_never_replaced() -> None:
    assert NoneResource.needs_replacement({"a": 1}, {"a": 2}) is False


def test_lifecycle() -> None:
    ctx = FakeContext(resource_name="n")
    res = make(NoneResource, {"anything": 1}, name="n", ctx=ctx)
    assert drive(res.handle_create, res.check_create_complete, ctx.clock) == 0
    assert res.resource_id == ctx.uuid
    assert res.get_reference_id() == ctx.uuid
    assert ctx.stored == {"is_placeholder": "True"}
    assert res.get_attribute("whatever") is None
    assert res.get_attribute("show") is None
    assert drive(lambda: res.handle_update({}, {}), res.check_update_complete, ctx.clock) == 0
    assert drive(res.handle_delete, res.check_delete_complete, ctx.clock) == 0
