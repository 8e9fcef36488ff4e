"""Alembic migrations of the hotplate schema (env.py and versions/)."""
