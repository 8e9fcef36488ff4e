"""What the configuration says, as plain values the composition root hands on.

Nothing below reads a file or the environment: ``loading`` does, once, and
builds a ``Settings``. The engine itself receives only ``EngineOptions``
(and the pool limits), so it never depends on oslo.config.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hotplate.cloud.settings import CloudSettings
from hotplate.db.engine import PoolLimits
from hotplate.engine.options import EngineOptions


@dataclass(frozen=True, slots=True)
class Sources:
    """The files and directories a configuration was read from, in reading order."""

    files: tuple[str, ...] = ()
    dirs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DatabaseSettings:
    connection: str | None
    """The SQLAlchemy URL (Heat's forms normalised to hotplate's drivers); None: SQLite
    under the command's --data-dir."""
    pool: PoolLimits


@dataclass(frozen=True, slots=True)
class ApiSettings:
    bind_host: str
    bind_port: int


@dataclass(frozen=True, slots=True)
class NotificationSettings:
    """``[oslo_messaging_notifications]``, handed to the notifier as they are."""

    drivers: tuple[str, ...] = ()
    transport_url: str | None = None
    """None: the RPC broker's ([DEFAULT]/transport_url), as oslo.messaging does."""
    topics: tuple[str, ...] = ("notifications",)

    @property
    def enabled(self) -> bool:
        """Off unless a driver other than ``noop`` is named (the embedded default)."""
        return any(driver != "noop" for driver in self.drivers)


@dataclass(frozen=True, slots=True)
class SecretSettings:
    """``auth_encryption_key`` and ``encrypt_parameters_and_properties``."""

    auth_encryption_key: str | None = field(default=None, repr=False)
    """None: the key file of the command's data directory (db/crypt.py)."""
    encrypt_parameters_and_properties: bool = False


@dataclass(frozen=True, slots=True)
class UiSettings:
    """``[ui]``: the web view at ``/ui``."""

    enabled: bool = True
    session_key: str | None = field(default=None, repr=False)
    """None: derived from auth_encryption_key (hotplate.ui.session)."""
    session_lifetime: int = 43200


@dataclass(frozen=True, slots=True)
class Settings:
    """Every setting a hotplate process needs, after files, variables and flags."""

    host: str | None
    """[DEFAULT]/host; None: this machine's name for ``hotplate engine``."""
    transport_url: str | None
    num_engine_workers: int
    executor_thread_pool_size: int
    engine: EngineOptions
    database: DatabaseSettings
    api: ApiSettings
    notifications: NotificationSettings
    sources: Sources = Sources()
    cfn: ApiSettings = ApiSettings("127.0.0.1", 8000)
    """[heat_api_cfn]: where the CFN-compatible API listens (port 0: off)."""
    secrets: SecretSettings = SecretSettings()
    """What is encrypted in the database, and with which key."""
    auth: str = "token"
    """[paste_deploy]/flavor: how the API knows its callers (options.AUTH_MODES)."""
    cloud: CloudSettings = field(default_factory=CloudSettings)
    """How the engine reaches a cloud: [clients], [clients_<client>], [trustee]."""
    ui: UiSettings = UiSettings()
    """[ui]: the web view."""
