"""Keystone mode without a cloud: keystonemiddleware's real ``auth_token`` filter, whose
one way to Keystone (its identity server's ``verify_token``) answers from a table of
token bodies.

Everything else is the filter's own: its header handling, its cache, its expiry check,
its 401. The tests against a real Keystone are in ``tests/cloud/``.
"""

from __future__ import annotations

import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from keystonemiddleware.auth_token import _exceptions as ksm_exceptions
from oslo_config import cfg

from hotplate.api.keystone_tokens import KeystoneTokens

CATALOG = [{"type": "orchestration", "name": "heat", "id": "svc-heat", "endpoints": [
    {"id": "ep1", "interface": "public", "region": "RegionOne", "region_id": "RegionOne",
     "url": "http://127.0.0.1:8004/v1/%(tenant_id)s"}]}]


def token_body(project: str, roles: list[str], *, user: str = "alice",
               expires_in: float = 3600.0, is_admin_project: bool | None = None) -> dict[str, Any]:
    """A Keystone v3 token body, as ``GET /v3/auth/tokens`` answers it."""
    now = datetime.now(UTC)
    body: dict[str, Any] = {
        "methods": ["password"],
        "issued_at": now.isoformat(),
        "expires_at": (now + timedelta(seconds=expires_in)).isoformat(),
        "user": {"id": f"{user}-id", "name": user,
                 "domain": {"id": "default", "name": "Default"}},
        "project": {"id": project, "name": f"{project}-name",
                    "domain": {"id": "default", "name": "Default"}},
        "roles": [{"id": f"{r}-id", "name": r} for r in roles],
        "catalog": CATALOG,
    }
    if is_admin_project is not None:
        body["is_admin_project"] = is_admin_project
    return {"token": body}


class TokenTable:
    """The tokens the stand-in for Keystone knows, and how often it was asked."""

    def __init__(self) -> None:
        self.bodies: dict[str, dict[str, Any]] = {}
        self.asked: list[str] = []
        self.delay = 0.0
        self._lock = threading.Lock()

    def issue(self, project: str, roles: list[str], **kwargs: Any) -> str:
        token = f"gAAAA{uuid.uuid4().hex}"
        self.bodies[token] = token_body(project, roles, **kwargs)
        return token

    def fetch(self, token: str) -> dict[str, Any]:
        with self._lock:
            self.asked.append(token)
        if self.delay:
            time.sleep(self.delay)
        try:
            return self.bodies[token]
        except KeyError:
            raise ksm_exceptions.InvalidToken("Token authorization failed") from None


def keystone_tokens(table: TokenTable, tmp_path: Path) -> KeystoneTokens:
    """``KeystoneTokens`` configured from a file, asking ``table`` instead of Keystone."""
    conf_file = tmp_path / "keystone.conf"
    conf_file.write_text(
        "[keystone_authtoken]\n"
        "www_authenticate_uri = http://keystone.invalid:5000/v3\n"
        "auth_type = password\n"
        "auth_url = http://keystone.invalid:5000/v3\n"
        "username = heat\npassword = service-secret\nproject_name = service\n"
        "user_domain_name = Default\nproject_domain_name = Default\n")
    conf = cfg.ConfigOpts()
    conf(args=[], default_config_files=[str(conf_file)], use_env=False)

    tokens = KeystoneTokens(conf)
    tokens._filter._identity_server = _TableIdentity(table)  # the one way to Keystone
    return tokens


class _TableIdentity:
    """What the filter asks Keystone through (``_identity.IdentityServer``)."""

    www_authenticate_uri = "http://keystone.invalid:5000/v3"

    def __init__(self, table: TokenTable) -> None:
        self._table = table

    def verify_token(self, token: str, allow_expired: bool = False) -> dict[str, Any]:
        return self._table.fetch(token)

    def invalidate(self) -> None:
        pass
