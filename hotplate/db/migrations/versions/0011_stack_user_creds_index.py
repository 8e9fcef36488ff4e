"""An index on stack.user_creds_id: stacks are found by the credentials they hold.

A trust handed to another user moves every stack of a tree to new credentials,
deleted credentials are unlinked from their stacks, and the sweep looks for
credentials no stack holds: each asked the stack table by ``user_creds_id``,
which only MariaDB indexed (for its foreign key).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_stack_user_creds_id", "stack", ["user_creds_id"])


def downgrade() -> None:
    # Written to run twice: where DDL commits at once (MariaDB, SQLite's driver), an
    # earlier migration failing further down leaves this one done but not recorded.
    bind = op.get_bind()
    names = {index["name"] for index in sa.inspect(bind).get_indexes("stack")}
    if bind.dialect.name in ("mysql", "mariadb") and "fk_stack_user_creds_id" not in names:
        # MariaDB gave the foreign key this index in place of its own, and keeps one:
        # its own comes back first, under the name it had.
        op.create_index("fk_stack_user_creds_id", "stack", ["user_creds_id"])
    if "ix_stack_user_creds_id" in names:
        op.drop_index("ix_stack_user_creds_id", table_name="stack")
