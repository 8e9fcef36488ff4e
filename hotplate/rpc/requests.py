"""Which engine-topic methods change something, and the request id a write carries.

Every call carries Heat's request context, whose ``request_id`` names the
API request it serves (``req-<uuid>``; one API request makes at most one
engine-topic write). An engine keeps each write's answer by that id
(engine/service/request_ledger.py), so the same write asked twice, by a
client repeating it with its Idempotency-Key or by an API process asking
another engine when the first did not answer, is done once and answered
alike. The engine's own calls (a nested stack's create) carry no id.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping
from typing import Any

READS = frozenset({
    "authenticated_to_backend", "count_stacks", "describe_stack_resources",
    "find_physical_resource", "get_revision",
    "describe_stack_resource", "export_stack", "generate_template", "get_environment",
    "get_files", "get_template", "identify_stack", "list_event_ids", "list_event_summaries",
    "list_events", "list_outputs",
    "list_resource_types", "list_services", "list_software_configs",
    "list_software_deployments", "list_stack_resources", "list_stacks",
    "list_template_functions", "list_template_versions", "metadata_software_deployments",
    "plan_update_stack", "preview_stack", "preview_update_stack", "resource_schema",
    "show_output", "show_snapshot", "show_software_config", "show_software_deployment",
    "show_stack", "stack_drift", "stack_list_snapshots", "validate_template",
})
"""Engine-topic methods that change nothing: safe to ask again at any time."""

WRITES = frozenset({
    "abandon_stack", "check_software_deployment", "create_software_config",
    "create_software_deployment", "create_stack", "delete_software_config",
    "delete_software_deployment", "delete_stack", "resource_mark_unhealthy",
    "migrate_convergence_1", "resource_signal", "signal_software_deployment",
    "stack_cancel_update", "stack_check",
    "stack_restore", "stack_resume", "stack_snapshot", "stack_suspend", "delete_snapshot",
    "update_software_deployment", "update_stack",
})
"""Engine-topic methods that change something: kept by request id, safe to ask again
only with one."""

_IDS = uuid.UUID("6d1d9a52-7c1a-4f0e-9a53-2f1f6a0b5f3e")
"""Namespace of the ids derived from request ids (uuid5)."""

MAX_REQUEST_ID = 255
"""Longest request id kept (the ledger's key)."""


def request_id_of(ctxt: Mapping[str, Any]) -> str | None:
    """The request id a call carries, if any (and not longer than the ledger keeps)."""
    found = ctxt.get("request_id")
    if not isinstance(found, str) or not found or len(found) > MAX_REQUEST_ID:
        return None
    return found


def request_uuid(ctxt: Mapping[str, Any], what: str) -> str | None:
    """A UUID for the ``what`` a write makes, the same each time its request is asked
    (None without a request id): the second asking finds what the first made."""
    request_id = request_id_of(ctxt)
    if request_id is None:
        return None
    return str(uuid.uuid5(_IDS, f"{what}\n{request_id}"))


def keyed_request_id(scope: str, key: str) -> str:
    """The request id for a client's key (an Idempotency-Key) within ``scope`` (its
    project): the same key in the same project names the same request."""
    name = "\n".join(("key", scope, key))
    return f"req-{uuid.uuid5(_IDS, name)}"


def fingerprint(method: str, ctxt: Mapping[str, Any], kwargs: Mapping[str, Any]) -> str:
    """What makes two askings the same request: method, project and arguments."""
    project = ctxt.get("project_id") or ctxt.get("tenant_id") or ctxt.get("tenant")
    text = json.dumps({"method": method, "project": project, "kwargs": kwargs},
                      sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()
