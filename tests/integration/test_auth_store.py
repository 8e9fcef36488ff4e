"""API tokens are stored hashed, and only live tokens authenticate."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, select, update

from hotplate.db.auth_store import AuthStore, token_hash
from hotplate.db.schema import api_token, project
from hotplate.db.store import SqlStore


@pytest.fixture
def auth(store: SqlStore, db_engine: Engine) -> AuthStore:
    # ``store`` empties every table first.
    return AuthStore(db_engine)


def test_tokens_are_stored_hashed(auth: AuthStore, db_engine: Engine) -> None:
    plaintext = auth.create_token("alpha", "member")
    with db_engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(select(api_token))]
        projects = [tuple(r) for r in conn.execute(select(project))]
    assert len(rows) == 1
    assert not any(plaintext in str(value) for row in rows + projects for value in row)
    hashed = rows[0][api_token.c.keys().index("token_hash")]
    assert hashed == token_hash(plaintext) and len(hashed) == 64
    assert auth.authenticate(plaintext) == ("alpha", "member")


def test_projects_are_shared_and_roles_checked(auth: AuthStore, db_engine: Engine) -> None:
    assert not auth.has_tokens()
    first = auth.create_token("beta", "admin")
    second = auth.create_token("beta", "reader")
    assert auth.has_tokens()
    with db_engine.connect() as conn:
        assert [r.name for r in conn.execute(select(project))] == ["beta"]
    assert auth.authenticate(first) == ("beta", "admin")
    assert auth.authenticate(second) == ("beta", "reader")
    assert auth.authenticate("unknown") is None
    assert auth.authenticate("") is None
    with pytest.raises(ValueError):
        auth.create_token("beta", "owner")


def test_revoked_and_expired_tokens_fail(auth: AuthStore, db_engine: Engine) -> None:
    revoked = auth.create_token("gamma", "member")
    expired = auth.create_token("gamma", "member",
                                expires_at=datetime.now(UTC) - timedelta(seconds=1))
    later = auth.create_token("gamma", "member",
                              expires_at=datetime.now(UTC) + timedelta(hours=1))
    with db_engine.begin() as conn:
        conn.execute(update(api_token).where(api_token.c.token_hash == token_hash(revoked))
                     .values(revoked_at=datetime.now(UTC)))
    assert auth.authenticate(revoked) is None
    assert auth.authenticate(expired) is None
    assert auth.authenticate(later) == ("gamma", "member")


def test_list_and_revoke(auth: AuthStore) -> None:
    first = auth.create_token("delta", "admin")
    auth.create_token("epsilon", "reader")
    listed = auth.list_tokens()
    assert [(t["project"], t["role"]) for t in listed] == [("delta", "admin"),
                                                           ("epsilon", "reader")]
    assert not any(first in str(value) for t in listed for value in t.values())
    assert [t["project"] for t in auth.list_tokens("epsilon")] == ["epsilon"]
    assert auth.revoke_token(first)                       # by the token itself
    assert auth.authenticate(first) is None
    assert not auth.revoke_token(first)                   # already revoked
    other = listed[1]["id"]
    assert auth.revoke_token(other)                       # by id
    assert all(t["revoked_at"] is not None for t in auth.list_tokens())
    assert not auth.revoke_token("no-such-token")


def test_token_commands(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from hotplate.cli.main import main

    data = ["--data-dir", str(tmp_path)]
    assert main(["token", "create", "--project", "p", "--role", "member", *data]) == 0
    secret = capsys.readouterr().out.strip()
    assert main(["token", "list", *data]) == 0
    table = capsys.readouterr().out
    assert "| p " in table and "member" in table and secret not in table
    assert main(["token", "revoke", secret, *data]) == 0
    assert capsys.readouterr().out.strip() == "revoked"
    assert main(["token", "revoke", secret, *data]) == 1
    assert "no live token" in capsys.readouterr().err


def test_a_token_never_starts_with_a_dash(monkeypatch) -> None:
    """``openstack --os-token -x...`` takes the token for an option: such a token is
    drawn again (the command the server prints must work)."""
    import secrets

    from hotplate.db import auth_store

    drawn = iter(["-starts-with-a-dash", "fine_token"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: next(drawn))
    assert auth_store.new_token() == "fine_token"
