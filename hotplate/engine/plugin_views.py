"""What a stack lifecycle plugin or an event sink is handed: Heat's names, hotplate's data.

Heat calls its plugins with its own ``RequestContext`` and ``Stack`` objects.
hotplate has neither, so a plugin written for Heat gets small read-only
stand-ins with the attributes such plugins commonly read::

    PluginContext   project_id (tenant_id, tenant), user_id (user), username
                    (user_name), roles, is_admin, auth_token (None: the engine holds
                    no user token), request_id, to_dict()
    PluginStack     id, name, action, status, status_reason, state, t, env,
                    context, tenant_id, owner_id, nested_depth,
                    parent_resource_name, disable_rollback, timeout_mins, tags,
                    created_time, updated_time, identifier()
    PluginTemplate  t (the template as stored), files, env, version
    PluginEnv       params (the user's parameter values), parameter_defaults,
                    event_sinks, user_env_as_dict()

The context is the stack owner's, as stored with the stack (Heat's stored
context), not the request's: a post-op runs on whichever engine ends the
action, long after the request that started it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from hotplate.model.records import StackRecord

__all__ = ["PluginContext", "PluginEnv", "PluginStack", "PluginTemplate", "plugin_stack"]


@dataclass(frozen=True)
class PluginContext:
    """The stack owner's context, under oslo.context's and Heat's attribute names."""

    project_id: str
    user_id: str
    username: str
    roles: tuple[str, ...] = ()
    is_admin: bool = False
    auth_token: str | None = None
    request_id: str | None = None

    @property
    def tenant_id(self) -> str:
        return self.project_id

    @property
    def tenant(self) -> str:
        return self.project_id

    @property
    def user(self) -> str:
        return self.user_id

    @property
    def user_name(self) -> str:
        return self.username

    def to_dict(self) -> dict[str, Any]:
        return {"project_id": self.project_id, "tenant": self.project_id,
                "user_id": self.user_id, "user": self.user_id, "username": self.username,
                "user_name": self.username, "roles": list(self.roles),
                "is_admin": self.is_admin, "auth_token": self.auth_token,
                "request_id": self.request_id}

    @classmethod
    def of(cls, stack: StackRecord) -> PluginContext:
        return cls(project_id=stack.project_id, user_id=stack.user_id,
                   username=stack.username)


@dataclass(frozen=True)
class PluginEnv:
    """The stack's environment as the user gave it."""

    environment: Mapping[str, Any] = field(default_factory=dict)

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.environment.get("parameters") or {})

    @property
    def parameter_defaults(self) -> dict[str, Any]:
        return dict(self.environment.get("parameter_defaults") or {})

    @property
    def event_sinks(self) -> list[dict[str, Any]]:
        return [dict(sink) for sink in self.environment.get("event_sinks") or ()]

    def user_env_as_dict(self) -> dict[str, Any]:
        return copy.deepcopy(dict(self.environment))


@dataclass(frozen=True)
class PluginTemplate:
    """The stack's template: ``t`` is the document as stored (Heat's ``Template.t``)."""

    t: Mapping[str, Any]
    files: Mapping[str, Any]
    env: PluginEnv

    @property
    def version(self) -> tuple[str, str] | None:
        for key in ("heat_template_version", "HeatTemplateFormatVersion",
                    "AWSTemplateFormatVersion"):
            if key in self.t:
                return key, str(self.t[key])
        return None

    def __getitem__(self, section: str) -> Any:
        return self.t[section]

    def get(self, section: str, default: Any = None) -> Any:
        return self.t.get(section, default)


@dataclass(frozen=True)
class PluginStack:
    """A stack as a plugin reads it: its record at the time of the call, its template."""

    record: StackRecord
    t: PluginTemplate
    context: PluginContext

    id = property(lambda self: str(self.record.id))
    name = property(lambda self: self.record.name)
    action = property(lambda self: str(self.record.action))
    status = property(lambda self: str(self.record.status))
    status_reason = property(lambda self: self.record.status_reason)
    tenant_id = property(lambda self: self.record.project_id)
    owner_id = property(lambda self: self.record.owner_id)
    nested_depth = property(lambda self: self.record.nested_depth)
    parent_resource_name = property(lambda self: self.record.parent_resource_name)
    disable_rollback = property(lambda self: self.record.disable_rollback)
    timeout_mins = property(lambda self: self.record.timeout_mins)
    tags = property(lambda self: list(self.record.tags))

    @property
    def env(self) -> PluginEnv:
        return self.t.env

    @property
    def state(self) -> tuple[str, str]:
        return self.action, self.status

    @property
    def created_time(self) -> datetime:
        return self.record.created_at

    @property
    def updated_time(self) -> datetime | None:
        return self.record.updated_at

    def identifier(self) -> dict[str, str]:
        """Heat's stack identifier, as a mapping (``HeatIdentifier`` is one)."""
        return {"stack_name": self.name, "stack_id": self.id,
                "tenant": self.tenant_id, "path": ""}


def plugin_stack(record: StackRecord, template: Mapping[str, Any], files: Mapping[str, Any],
                 environment: Mapping[str, Any]) -> PluginStack:
    """The view of ``record`` on the template (and files, environment) given."""
    env = PluginEnv(copy.deepcopy(dict(environment)))
    return PluginStack(record=record,
                       t=PluginTemplate(copy.deepcopy(dict(template)), dict(files), env),
                       context=PluginContext.of(record))
