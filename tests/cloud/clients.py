"""What the client-layer suites share: a caller's request context from a real Keystone
token, as the API hands it to the engine (Heat's keys), and the small context a plugin
runs with outside an engine."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.cloud.locate import Cloud


def token_context(cloud: Cloud, conn: Any, *, with_catalog: bool = True) -> dict[str, Any]:
    """The RPC context of a request made with ``conn``'s token: Heat's keys, the token's
    body (its catalog) in ``auth_token_info`` unless ``with_catalog`` is False."""
    session = conn.session
    access = session.auth.get_access(session)
    ctxt: dict[str, Any] = {
        "auth_token": session.get_token(),
        "auth_url": cloud.auth_url,
        "user_id": access.user_id,
        "project_id": access.project_id,
        "tenant_id": access.project_id,
        "roles": list(access.role_names),
        "is_admin": "admin" in access.role_names,
        "region_name": cloud.region,
    }
    if with_catalog:
        ctxt["auth_token_info"] = {"token": access._data["token"]}
    return ctxt


@dataclass
class MovedClock:
    """A clock the test moves: a plugin's waits pass at once."""

    at: datetime = field(default_factory=lambda: datetime.now(UTC))

    def now(self) -> datetime:
        return self.at

    def sleep(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


@dataclass
class PluginContext:
    """The context a plugin runs with, as the engine's would give it: its stack's ids and
    names, its stored data, the caller's cloud and a clock the test moves."""

    cloud: Any
    stack_name: str
    resource_name: str = "net"
    stack_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    project_id: str = ""
    uuid: str = field(default_factory=lambda: str(uuid.uuid4()))
    clock: MovedClock = field(default_factory=MovedClock)
    stored: dict[str, str] = field(default_factory=dict)

    def physical_resource_name(self) -> str:
        return f"{self.stack_name}-{self.resource_name}-{self.uuid[:12]}"

    def data(self) -> Mapping[str, str]:
        return self.stored

    def data_set(self, key: str, value: str, *, redact: bool = False) -> None:
        self.stored[key] = value

    def data_delete(self, key: str) -> None:
        self.stored.pop(key, None)
