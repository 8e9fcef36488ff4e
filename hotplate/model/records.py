"""Rows as the core sees them: frozen snapshots read through the Store.

The Store returns these; nothing in the core ever holds a live DB object.
Timestamps are timezone-aware UTC datetimes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from hotplate.model.ids import EngineId, ResourceId, StackId, TemplateId, TraversalId
from hotplate.model.states import Action, Status


@dataclass(frozen=True, slots=True)
class RawTemplate:
    """A template as submitted, with its files and environment (parameters included)."""

    id: TemplateId
    template: dict[str, Any]
    files: dict[str, Any] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StackRecord:
    id: StackId
    name: str
    project_id: str
    raw_template_id: TemplateId
    action: Action
    status: Status
    status_reason: str
    current_traversal: TraversalId
    created_at: datetime
    prev_raw_template_id: TemplateId | None = None
    current_deps: dict[str, Any] = field(default_factory=dict)
    disable_rollback: bool = True
    timeout_mins: int | None = None
    updated_at: datetime | None = None
    deleted_at: datetime | None = None
    owner_id: StackId | None = None
    nested_depth: int = 0
    user_id: str = ""
    username: str = ""
    tags: tuple[str, ...] = ()
    convergence: bool = True
    user_creds_id: int | None = None
    parent_resource_name: str | None = None
    stack_user_project_id: str | None = None
    """The stack domain's project of the stack's users (Keystone mode); a nested stack
    has its root's."""


@dataclass(frozen=True, slots=True)
class UserCreds:
    """A stack's stored credentials (``user_creds``): its trust, in Keystone mode.

    ``trust_id`` is the trust through which the stack's later work acts for
    ``trustor_user_id`` in project ``tenant_id``.
    """

    id: int
    trust_id: str | None = None
    trustor_user_id: str | None = None
    tenant_id: str | None = None
    tenant: str | None = None
    auth_url: str | None = None
    region_name: str | None = None
    username: str | None = None
    password: str | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class ResourceRecord:
    id: ResourceId
    uuid: str
    stack_id: StackId
    name: str
    resource_type: str
    action: Action
    status: Status
    status_reason: str
    atomic_key: int
    created_at: datetime
    physical_resource_id: str | None = None
    engine_id: EngineId | None = None
    current_template_id: TemplateId | None = None
    requires: tuple[ResourceId, ...] = ()
    replaces: ResourceId | None = None
    replaced_by: ResourceId | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    properties_data: dict[str, Any] | None = None
    attr_data: dict[str, Any] | None = None
    updated_at: datetime | None = None
    root_stack_id: StackId | None = None


@dataclass(frozen=True, slots=True)
class NewResource:
    """A row to insert (born INIT_COMPLETE, or as a replacement)."""

    stack_id: StackId
    name: str
    resource_type: str
    uuid: str
    current_template_id: TemplateId | None = None
    requires: tuple[ResourceId, ...] = ()
    replaces: ResourceId | None = None
    root_stack_id: StackId | None = None


@dataclass(frozen=True, slots=True)
class EventRecord:
    id: int
    uuid: str
    stack_id: StackId
    resource_name: str
    resource_action: str
    resource_status: str
    resource_status_reason: str
    created_at: datetime
    physical_resource_id: str | None = None
    resource_type: str = ""


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to write in the same transaction as the state change it records.

    Stack-level events use the stack's name as resource_name, the stack id as
    physical_resource_id and resource_type 'OS::Heat::Stack', as Heat does.
    """

    stack_id: StackId
    uuid: str
    resource_name: str
    resource_action: str
    resource_status: str
    resource_status_reason: str
    physical_resource_id: str | None = None
    resource_type: str = ""


class SyncOutcome(StrEnum):
    """What one predecessor's report to a sync point did.

    Exactly one reporter of a sync point ever sees READY.
    """

    READY = "READY"  # this report was the last one missing: fire the node
    WAITING = "WAITING"  # recorded; other predecessors still to come
    DUPLICATE = "DUPLICATE"  # this sender already reported: nothing changed
    MISSING = "MISSING"  # no such sync point: the traversal was superseded


@dataclass(frozen=True, slots=True)
class SyncResult:
    outcome: SyncOutcome
    inputs: dict[str, Any] = field(default_factory=dict)
    """When READY: every sender's data, keyed by sender."""


@dataclass(frozen=True, slots=True)
class SyncReport:
    """One predecessor's report to one sync point (see Store.sync)."""

    traversal_id: TraversalId
    entity_id: str
    is_update: bool
    sender: str
    data: Any = None


@dataclass(frozen=True, slots=True)
class NewSyncPoint:
    entity_id: str
    is_update: bool
    remaining: int


@dataclass(frozen=True, slots=True)
class ServiceRecord:
    id: str
    engine_id: EngineId
    host: str
    hostname: str
    binary: str
    topic: str
    report_interval: int
    created_at: datetime
    updated_at: datetime | None = None

    def is_up(self, now: datetime) -> bool:
        """Heat's rule: up while the last report (or the start, before the first one)
        is at most two report intervals old, so one late report does not make an
        engine ``down``."""
        seen = self.updated_at or self.created_at
        return (now - seen).total_seconds() <= 2 * self.report_interval


@dataclass(frozen=True, slots=True)
class PointState:
    """One sync point of a traversal as recovery sees it."""

    entity_id: str
    is_update: bool
    remaining: int
    """Predecessors still to report; 0 (or less): the node is ready."""
    touched: datetime
    """Its last write: when it became ready (its cast), or when the sweep re-sent it."""


@dataclass(frozen=True, slots=True)
class ResourceAttempt:
    """One handle_<action> call a plugin recorded, with its idempotency token."""

    stack_id: StackId
    resource_uuid: str
    resource_name: str
    action: str
    token: str
    retry: bool
    engine_id: EngineId

