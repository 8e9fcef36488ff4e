"""The engine's request limits and feature switches, under Heat's option names.

Heat reads these from heat.conf; an engine here gets them through its deps
(``EngineDeps.options``), so tests and embedders pass them explicitly and the
engine never reads a file. The commands build them from the configuration
file, variables and flags (``hotplate.config``); ``from_environ`` reads only
the ``HOTPLATE_<OPTION>`` variables, for embedders that start an engine
without a configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

UNLIMITED = -1
"""``max_resources_per_stack`` value that turns the limit off, as in Heat."""


@dataclass(frozen=True, slots=True)
class EngineOptions:
    max_resources_per_stack: int = 1000
    """Most resources one template may declare (top level); -1: no limit."""
    max_snapshots_per_stack: int = 32
    """Most snapshots one stack may have (not counted for an admin); -1: no limit."""
    max_template_size: int = 524288
    """Longest template accepted, in characters of its text (bytes in Heat's words)."""
    enable_stack_abandon: bool = False
    """Abandon and export (both off by default in Heat: they expose stored secrets)."""
    enable_stack_adopt: bool = False
    """Create from ``adopt_stack_data`` (off by default in Heat)."""
    observe_on_update: bool = False
    """Every update compares the template with each resource's live state, not with the
    stored properties, as an update with ``converge`` does (engine/worker/observed.py)."""
    convergence_engine: bool = True
    """New stacks run on the convergence engine; False: on the legacy engine (their
    ``convergence`` column false: each operation in one thread of the engine that
    holds the stack's lock, engine/legacy/)."""
    environment_dir: str | None = None
    """Heat's global environment directory (``engine/global_env.py``); None: none."""
    periodic_interval: int = 60
    """Seconds between an engine's reports in the service table (Heat's
    ``[DEFAULT]/periodic_interval``): a row whose report is older than twice this
    reads ``down``, and rows of this host more than three reports behind are
    removed when an engine starts. Also the rhythm of the recovery sweep
    (recovery.py): dead engines' work taken over, lost messages re-sent."""
    engine_life_check_timeout: int = 2
    """Seconds an engine has to answer ``listening`` before it is taken for dead."""
    stalled_traversal_timeout: int = 60
    """Seconds a node may stay ready without running before the sweep sends it again
    (a backlog looks the same as a lost message, so at most once per this)."""
    graceful_shutdown_timeout: int = 60
    """Seconds a stopping engine lets running operations finish (SIGTERM)."""
    request_retention: int = 86400
    """Seconds an engine-topic write's answer is kept by its request id (an
    Idempotency-Key, a ClientRequestToken): asked again within this, it is answered
    as the first time and not done again."""
    client_retry_limit: int = 2
    """Times a worker that found a resource locked tries again, after a random wait."""
    action_retry_limit: int = 5
    """Times a create whose object went ERROR (or was refused with a conflict) is
    deleted and made again before it fails, and a delete refused with a conflict
    asked again (Heat's option; action_retries.py)."""
    heat_metadata_server_url: str = "http://127.0.0.1:8000/v1/"
    """The CFN API base an agent polls (Heat's option); the configuration derives it
    from the CFN API's listening address when unset, adding ``/v1/`` as Heat does."""
    heat_waitcondition_server_url: str = "http://127.0.0.1:8000/v1/waitcondition"
    """Base of the pre-signed CFN signal URLs; by default ``heat_metadata_server_url``'s."""
    heat_url: str = "http://127.0.0.1:8004/v1/%(tenant_id)s"
    """``[clients_heat] url``: the orchestration API agents signal (HEAT/TOKEN
    signal URLs), ``%(tenant_id)s`` replaced by the project."""
    default_deployment_signal_transport: str = "CFN_SIGNAL"
    default_software_config_transport: str = "POLL_SERVER_CFN"

    def __post_init__(self) -> None:
        for name in _POSITIVE:
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1 second, "
                                 f"not {getattr(self, name)}")

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], prefix: str = "HOTPLATE_",
                     ) -> EngineOptions:
        """Defaults overridden by ``HOTPLATE_MAX_RESOURCES_PER_STACK=-1`` and the like.

        Raises:
            ValueError: a value that is not an integer (or a boolean, for the
                switches), naming the variable.
        """
        values: dict[str, int | bool | str] = {}
        for option in fields(cls):
            name = f"{prefix}{option.name.upper()}"
            raw = environ.get(name)
            if raw is None or raw == "":
                continue
            if option.type == "bool":
                values[option.name] = _boolean(name, raw)
            elif option.type in ("str | None", "str"):
                values[option.name] = raw
            else:
                values[option.name] = _integer(name, raw, option.name in _POSITIVE)
        return cls(**values)  # type: ignore[arg-type]


_POSITIVE = frozenset({"periodic_interval", "engine_life_check_timeout",
                       "stalled_traversal_timeout", "request_retention"})
"""Options that must be at least 1 (a timer of 0 s would spin)."""


def _integer(name: str, raw: str, positive: bool) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name} must be an integer, not {raw!r}") from None
    if positive and value < 1:
        raise ValueError(f"{name} must be at least 1, not {raw!r}")
    return value


def _boolean(name: str, raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name} must be true or false, not {raw!r}")
