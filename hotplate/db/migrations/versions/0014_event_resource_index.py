"""Events of one resource found by an index: a resource's event list and an event's
show read only that resource's events, not the whole stack's.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_event_stack_id_resource_name_id", "event",
                    ["stack_id", "resource_name", "id"])


def downgrade() -> None:
    # Written to run twice: where DDL commits at once (MariaDB, SQLite's driver), an
    # earlier migration failing further down leaves this one done but not recorded.
    names = {index["name"] for index in sa.inspect(op.get_bind()).get_indexes("event")}
    if "ix_event_stack_id_resource_name_id" in names:
        op.drop_index("ix_event_stack_id_resource_name_id", table_name="event")
