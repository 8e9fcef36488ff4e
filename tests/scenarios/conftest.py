"""Every scenario's engines stop with its test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.scenarios.harness import Harness


@pytest.fixture(autouse=True)
def _engines_stop() -> Iterator[None]:
    yield
    while Harness.opened:
        Harness.opened.pop().close()
