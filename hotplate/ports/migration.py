"""Migrating a legacy stack tree to convergence, a role of the Store
(``hotplate.ports.Store``; db/convergence_migration.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from hotplate.convergence.migration import StackConversion
from hotplate.model.records import StackRecord


class ConvergenceMigrationStorage(Protocol):
    def nested_stacks(self, root_id: str) -> list[StackRecord]:
        """Every live stack nested under ``root_id``, at any depth, parents first."""
        ...

    def convert_to_convergence(self, conversions: Sequence[StackConversion]) -> bool:
        """Apply every conversion in one transaction; False, and nothing written, if a
        stack or row moved on since it was read."""
        ...
