"""Indexes on the columns that refer to a template: deleting a template that nothing
refers to any more (after each update, of each nested stack) no longer reads the whole
stack and resource tables to find that out.

MariaDB keeps such an index on every foreign key column by itself, named after the
constraint; the indexes here take those names, so every backend has the same ones and
MariaDB is left as it is.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

INDEXES = (
    ("stack", "fk_stack_raw_template_id", "raw_template_id"),
    ("stack", "fk_stack_prev_raw_template_id", "prev_raw_template_id"),
    ("resource", "fk_resource_current_template_id", "current_template_id"),
)


def _existing(table: str) -> set[str]:
    return {str(index["name"]) for index in sa.inspect(op.get_bind()).get_indexes(table)}


def upgrade() -> None:
    for table, name, column in INDEXES:
        if name not in _existing(table):  # MariaDB's own, already there
            op.create_index(name, table, [column])


def downgrade() -> None:
    if op.get_bind().dialect.name == "mysql":
        return  # MariaDB's own indexes: its foreign keys need them
    for table, name, _ in INDEXES:
        if name in _existing(table):  # written to run twice, as 0014's
            op.drop_index(name, table_name=table)
