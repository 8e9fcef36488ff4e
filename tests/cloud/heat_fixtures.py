"""The fixtures' halves for real Heat as an import source: a running :class:`HeatSource`
for the whole run, and the stacks it made for a module with their cleanup.

:class:`MadeByHeat` remembers each stack id as soon as Heat accepted it, so its
:meth:`MadeByHeat.cleanup` (called by a test, and again, harmlessly, by the fixture)
finds what those stacks made from Heat's rows and by name even when a create failed
half-way, deletes it by id as the cloud's admin, and marks the stacks deleted in
Heat's database.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy.exc import SQLAlchemyError

from tests.cloud import heat_leftovers
from tests.cloud.heat_leftovers import Found
from tests.cloud.heat_shapes import Shapes, make_shapes
from tests.cloud.heat_source import CLOUD_VENV, HeatSource
from tests.cloud.locate import Cloud


def running_heat_source(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory,
                        engine_workers: int = 1) -> Iterator[HeatSource]:
    """A started :class:`HeatSource` for a fixture to ``yield from``; stopped, its
    database and vhost dropped, afterwards. Skips when the cloud's venv has no Heat."""
    if not (CLOUD_VENV / "bin" / "heat-engine").exists():
        pytest.skip(f"the cloud's venv ({CLOUD_VENV}) has no heat-engine")
    source = HeatSource(cloud, tmp_path_factory.mktemp("heat-source"),
                        engine_workers=engine_workers)
    try:
        source.start()
        yield source
    finally:
        source.drop()


@dataclass
class MadeByHeat:
    """Stacks a :class:`HeatSource` made (named ``prefix...``), and their cleanup."""

    source: HeatSource
    admin: Any
    prefix: str = field(default_factory=lambda: f"heatsrc-{uuid.uuid4().hex[:6]}-")
    stack_ids: list[str] = field(default_factory=list)
    """Every top stack Heat accepted, in order."""
    timings: dict[str, float] = field(default_factory=dict)

    def make(self) -> Shapes:
        """Both shapes (``heat_shapes``), CREATE finished (complete or failed)."""
        began = time.monotonic()
        shapes = make_shapes(self.source.client(), self.prefix, self.stack_ids)
        self.timings["create"] = time.monotonic() - began
        return shapes

    def leftovers(self) -> Found:
        """What the stacks made, by Heat's rows (while its database exists) and by name."""
        project_id, _ = self.source.identity()
        by_name = heat_leftovers.named(self.admin, project_id, self.prefix, self.stack_ids)
        if not self.stack_ids:
            return by_name
        try:
            recorded = heat_leftovers.recorded(self.source.url, self.stack_ids,
                                               self.source.auth_encryption_key)
        except SQLAlchemyError:  # no database to read: what carries the names goes
            return by_name
        return heat_leftovers.merge(recorded, by_name)

    def cleanup(self) -> Found:
        """Stop Heat (it makes nothing more), delete everything the stacks made that
        the cloud still has, and forget the stacks in Heat's database; what was
        looked for. A test that goes on with the source starts it again."""
        began = time.monotonic()
        self.source.stop()
        found = self.leftovers()
        heat_leftovers.remove(self.admin, found)
        if self.stack_ids:
            with suppress(SQLAlchemyError):
                heat_leftovers.forget(self.source.url, self.stack_ids)
        self.timings["cleanup"] = time.monotonic() - began
        return found


def made_by_heat(source: HeatSource, admin: Any) -> Iterator[MadeByHeat]:
    """A :class:`MadeByHeat` for a fixture to ``yield from``, cleaned up afterwards."""
    made = MadeByHeat(source, admin)
    try:
        yield made
    finally:
        made.cleanup()
