"""What ``hotplate manage import-heat`` remembers of each stack tree it brought over.

One row per root stack (its id is Heat's): a digest of everything read from
Heat for the tree, and a digest of the tree's rows here as the import left
them. A later import compares both: Heat's unchanged, the tree is left alone;
Heat's changed and ours not, the tree is brought up to date; ours changed
(hotplate has acted on the stack since), it is refused rather than overwritten.
"""

from __future__ import annotations

from sqlalchemy import Column, String, Table

from hotplate.db.schema_common import MYSQL_TABLE_ARGS, metadata, timestamps

heat_import = Table(
    "heat_import",
    metadata,
    Column("stack_id", String(36), primary_key=True),
    Column("heat_fingerprint", String(64), nullable=False),
    Column("local_fingerprint", String(64), nullable=False),
    Column("source", String(255), nullable=False),
    *timestamps(),
    **MYSQL_TABLE_ARGS,
)
