"""The context a plugin gets in a preview: it may read, but nothing it writes is kept.

A preview builds a stack-backed plugin over the new properties to ask what
its update would send the child (``StackResource.preview_child``). Working
that out may record things (a group adds the names its removal policies
take out); those writes land here and are dropped with the context, so a
preview changes nothing, whatever the plugin does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hotplate.engine.hosting.resource_context import EngineResourceContext
from hotplate.ports import Clock
from hotplate.resources.base import Resource
from hotplate.resources.nested import NestedStacks


class DryRunContext:
    """Reads reach the row's own context (none for a resource not built yet)."""

    def __init__(self, inner: EngineResourceContext | None, *, resource_name: str,
                 stack_name: str, project_id: str, clock: Clock) -> None:
        self._inner = inner
        self._written: dict[str, str | None] = {}
        self.resource_name = resource_name
        self.stack_name = stack_name
        self.stack_id = inner.stack_id if inner is not None else ""
        self.project_id = project_id
        self.uuid = inner.uuid if inner is not None else ""
        self.clock = clock

    def physical_resource_name(self) -> str:
        if self._inner is not None:
            return self._inner.physical_resource_name()
        return f"{self.stack_name}-{self.resource_name}"

    def data(self) -> Mapping[str, str]:
        merged = dict(self._inner.data()) if self._inner is not None else {}
        for key, value in self._written.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        return merged

    def data_set(self, key: str, value: str, *, redact: bool = False) -> None:
        self._written[key] = value

    def data_delete(self, key: str) -> None:
        self._written[key] = None

    def nested_stacks(self) -> NestedStacks:
        """The row's child stacks, to read (a plugin never changes them in a preview)."""
        if self._inner is None:
            raise RuntimeError("a resource not built yet has no nested stack")
        return self._inner.nested_stacks()

    def update_policy(self) -> Mapping[str, Any]:
        return self._inner.update_policy() if self._inner is not None else {}

    def resource_by_reference(self, reference: str) -> Resource | None:
        return (self._inner.resource_by_reference(reference) if self._inner is not None
                else None)

    def metadata_get(self) -> dict[str, Any]:
        return self._inner.metadata_get() if self._inner is not None else {}

    def metadata_update(self, change: Callable[[dict[str, Any], str], Mapping[str, Any]],
                        *, force: bool = False) -> dict[str, Any] | None:
        return None

    def clear_stored_attributes(self) -> None:
        return None

    # -- signal endpoints: placeholders, nothing is issued in a preview ------------
    def cfn_signal_url(self, kind: str) -> str:
        return f"<the pre-signed /v1/{kind} URL of {self.resource_name}>"

    def stack_user_credentials(self) -> tuple[str, str]:
        return ("<access key>", "<secret key>")

    def signal_token(self) -> str:
        return "<signal token>"

    def heat_signal_url(self, *, stack_user_project: bool = True) -> str:
        return f"<the signal URL of {self.resource_name}>"

    def heat_signal_credentials(self) -> dict[str, str | None]:
        return {"auth_url": "<auth_url>", "username": "<username>", "user_id": "<user_id>",
                "password": "<password>", "project_id": "<project_id>",
                "domain_id": "<domain_id>", "region_name": None}

    def metadata_server_url(self) -> str:
        return "<heat_metadata_server_url>"

    def forget_signal_credentials(self) -> None:
        return None

    def create_stack_user(self, password: str | None = None) -> str | None:
        return None

    def enable_stack_user(self, enabled: bool) -> None:
        return None

    def forget_keypair(self) -> None:
        return None

    def default_signal_transport(self) -> str:
        return "CFN_SIGNAL"

    def default_software_config_transport(self) -> str:
        return "POLL_SERVER_CFN"
