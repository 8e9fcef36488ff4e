"""API tokens: issued once in plaintext, kept only as their SHA-256 digest.

A token belongs to one project (by name, the name URLs carry in
``/v1/{project}``) and has one role: ``admin``, ``member`` or ``reader``.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, and_, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from hotplate.db.schema import api_token, project, signal_token
from hotplate.model.stack_users import SignalScope

ROLES = ("admin", "member", "reader")


def token_hash(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode("utf-8")).hexdigest()



def new_token() -> str:
    """A fresh token's plaintext: URL-safe, and never starting with ``-``, which a
    command line such as ``openstack --os-token <token>`` would take for an option
    (one token in 64 did, so the command the server prints failed)."""
    while True:
        plaintext = secrets.token_urlsafe(32)
        if not plaintext.startswith("-"):
            return plaintext

class AuthStore:
    """Tokens in the database behind ``engine``."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def create_token(self, project_name: str, role: str, *,
                     expires_at: datetime | None = None) -> str:
        """A new token for ``project_name`` (created when missing); the plaintext is
        returned here and never stored."""
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
        if not project_name:
            raise ValueError("a project name is required")
        project_id = self._project_id(project_name)
        plaintext = new_token()
        with self._engine.begin() as conn:
            conn.execute(insert(api_token).values(
                id=str(uuid.uuid4()), token_hash=token_hash(plaintext), project_id=project_id,
                role=role, created_at=datetime.now(UTC), expires_at=expires_at,
            ))
        return plaintext

    def authenticate(self, plaintext: str) -> tuple[str, str] | None:
        """(project name, role) for a live token; None for an unknown, revoked or
        expired one."""
        if not plaintext:
            return None
        now = datetime.now(UTC)
        query = (
            select(project.c.name, api_token.c.role)
            .select_from(api_token.join(project, api_token.c.project_id == project.c.id))
            .where(and_(
                api_token.c.token_hash == token_hash(plaintext),
                api_token.c.revoked_at.is_(None),
                or_(api_token.c.expires_at.is_(None), api_token.c.expires_at > now),
            ))
        )
        with self._engine.connect() as conn:
            row = conn.execute(query).first()
        return (str(row.name), str(row.role)) if row is not None else None

    def token_expiry(self, plaintext: str) -> datetime | None:
        """When a token stops working (None: never, or no such token): the web view's
        session cookie lasts no longer."""
        query = select(api_token.c.expires_at).where(
            api_token.c.token_hash == token_hash(plaintext))
        with self._engine.connect() as conn:
            found = conn.execute(query).scalar()
        if found is not None and found.tzinfo is None:
            found = found.replace(tzinfo=UTC)
        return found

    def list_tokens(self, project_name: str | None = None) -> list[dict[str, Any]]:
        """Every token (never its secret): id, project, role and its dates, oldest first."""
        query = (
            select(api_token.c.id, project.c.name.label("project"), api_token.c.role,
                   api_token.c.created_at, api_token.c.expires_at, api_token.c.revoked_at)
            .select_from(api_token.join(project, api_token.c.project_id == project.c.id))
            .order_by(api_token.c.created_at, api_token.c.id)
        )
        if project_name is not None:
            query = query.where(project.c.name == project_name)
        with self._engine.connect() as conn:
            return [dict(row._mapping) for row in conn.execute(query)]

    def revoke_token(self, token: str) -> bool:
        """Revoke by id, or by the plaintext itself; False if no live token matched."""
        match = or_(api_token.c.id == token, api_token.c.token_hash == token_hash(token))
        statement = (update(api_token)
                     .where(match, api_token.c.revoked_at.is_(None))
                     .values(revoked_at=datetime.now(UTC)))
        with self._engine.begin() as conn:
            return bool(conn.execute(statement).rowcount)

    def signal_scope(self, plaintext: str) -> SignalScope | None:
        """The one resource a TOKEN_SIGNAL token may act on (db/stack_users.py); None
        for any other token."""
        query = (select(signal_token.c.stack_id, signal_token.c.stack_name,
                        signal_token.c.resource_name)
                 .select_from(signal_token.join(api_token,
                                                api_token.c.id == signal_token.c.token_id))
                 .where(api_token.c.token_hash == token_hash(plaintext)))
        with self._engine.connect() as conn:
            row = conn.execute(query).first()
        if row is None:
            return None
        return SignalScope(str(row.stack_id), str(row.stack_name), str(row.resource_name))

    def has_tokens(self) -> bool:
        """Whether any token was ever issued."""
        with self._engine.connect() as conn:
            return bool(conn.execute(select(func.count()).select_from(api_token)).scalar())

    def _project_id(self, name: str) -> str:
        found = select(project.c.id).where(project.c.name == name)
        with self._engine.connect() as conn:
            existing = conn.execute(found).scalar()
        if existing is not None:
            return str(existing)
        try:
            with self._engine.begin() as conn:
                new_id = str(uuid.uuid4())
                conn.execute(insert(project).values(id=new_id, name=name,
                                                    created_at=datetime.now(UTC)))
                return new_id
        except IntegrityError:
            # Created meanwhile by someone else.
            with self._engine.connect() as conn:
                return str(conn.execute(found).scalar_one())
