"""Heat's API policy defaults, as a table: which roles may call which route.

Heat 27 (``heat/policies/``) enforces oslo.policy's new defaults, built from
four personas of the project the request acts in::

    reader      role:reader          reads
    member      role:member          writes (creates, updates, deletes, actions)
    admin       role:admin           the service list
    stack user  role:heat_stack_user a stack's own credentials, living on a server:
                                     only signals, metadata and a stack lookup

plus ``deny_everybody`` (listing every project's stacks or configs) and
``context_is_admin`` (``role:admin`` in the admin project: an admin of the
cloud, who acts in any project). Every persona's check also says
``project_id:%(project_id)s``; that part is settled before the table is read
(the caller's project is the URL's, an admin's its own), so a rule here is
just the set of roles any one of which lets the caller through. Roles compare
without case, as oslo.policy compares them. Keystone's default implied roles
(admin implies member, member implies reader) are already in a token's role
list; hotplate's own tokens get the same implication from ``implied_roles``.

A refusal is Heat's: 403, type ``Forbidden``, "You are not authorized to use
<rule>.".
"""

from __future__ import annotations

from collections.abc import Iterable

READER = frozenset({"reader"})
MEMBER = frozenset({"member"})
ADMIN = frozenset({"admin"})
STACK_USER = frozenset({"heat_stack_user"})
DENY_EVERYBODY: frozenset[str] = frozenset()

RULES: dict[str, frozenset[str]] = {
    "actions:suspend": MEMBER,
    "actions:resume": MEMBER,
    "actions:check": READER,
    "actions:cancel_update": MEMBER,
    "actions:cancel_without_rollback": MEMBER,
    "build_info:build_info": READER,
    "events:index": READER,
    "events:show": READER,
    "resource:index": READER,
    "resource:show": READER,
    "resource:metadata": READER | STACK_USER,
    "resource:signal": READER | STACK_USER,
    "resource:mark_unhealthy": MEMBER,
    "service:index": ADMIN,
    "software_configs:global_index": DENY_EVERYBODY,
    "software_configs:index": READER,
    "software_configs:create": MEMBER,
    "software_configs:show": READER,
    "software_configs:delete": MEMBER,
    "software_deployments:index": READER,
    "software_deployments:create": MEMBER,
    "software_deployments:show": READER,
    "software_deployments:update": MEMBER,
    "software_deployments:delete": MEMBER,
    "software_deployments:metadata": READER | STACK_USER,
    "stacks:abandon": MEMBER,
    "stacks:create": MEMBER,
    "stacks:delete": MEMBER,
    "stacks:detail": READER,
    "stacks:export": MEMBER,
    "stacks:generate_template": MEMBER,
    "stacks:global_index": DENY_EVERYBODY,
    "stacks:index": READER,
    "stacks:list_resource_types": READER,
    "stacks:list_template_versions": READER,
    "stacks:list_template_functions": READER,
    "stacks:lookup": READER | STACK_USER,
    "stacks:preview": READER,
    "stacks:resource_schema": READER,
    "stacks:show": READER,
    "stacks:template": READER,
    "stacks:environment": READER,
    "stacks:files": READER,
    "stacks:update": MEMBER,
    "stacks:update_patch": MEMBER,
    "stacks:update_no_change": MEMBER,
    "stacks:preview_update": MEMBER,
    "stacks:preview_update_patch": MEMBER,
    "stacks:validate_template": MEMBER,
    "stacks:list_outputs": READER,
    "stacks:show_output": READER,
    "stacks:snapshot": MEMBER,
    "stacks:show_snapshot": READER,
    "stacks:delete_snapshot": MEMBER,
    "stacks:list_snapshots": READER,
    "stacks:restore_snapshot": MEMBER,
    "stacks:drift": READER,  # hotplate's own route (stack drift): a read
}
"""Heat 27.0.1's default rule of each API policy, by its name."""

ROUTE_RULES: dict[str, str | None] = {
    "lookup_arn": "stacks:lookup",
    "validate_template": "stacks:validate_template",
    "list_template_versions": "stacks:list_template_versions",
    "list_template_functions": "stacks:list_template_functions",
    "list_resource_types": "stacks:list_resource_types",
    "resource_schema": "stacks:resource_schema",
    "generate_template": "stacks:generate_template",
    "list_services": "service:index",
    "preview_stack": "stacks:preview",
    "preview_update": "stacks:preview_update",
    "preview_update_patch": "stacks:preview_update_patch",
    "list_resources": "resource:index",
    "show_resource": "resource:show",
    "list_events": "events:index",
    "list_resource_events": "events:index",
    "show_event": "events:show",
    "list_outputs": "stacks:list_outputs",
    "show_output": "stacks:show_output",
    "get_template": "stacks:template",
    "stack_drift": "stacks:drift",
    "stack_action": None,  # the body names the action: actions:<action>, in the route
    "build_info": "build_info:build_info",
    "get_environment": "stacks:environment",
    "get_files": "stacks:files",
    "abandon_stack": "stacks:abandon",
    "export_stack": "stacks:export",
    "stack_snapshot": "stacks:snapshot",
    "show_snapshot": "stacks:show_snapshot",
    "delete_snapshot": "stacks:delete_snapshot",
    "list_snapshots": "stacks:list_snapshots",
    "restore_snapshot": "stacks:restore_snapshot",
    "resource_metadata": "resource:metadata",
    "resource_signal": "resource:signal",
    "mark_unhealthy": "resource:mark_unhealthy",
    "list_stacks": "stacks:index",
    "list_stacks_detail": "stacks:detail",
    "create_stack": "stacks:create",
    "lookup": "stacks:lookup",
    "lookup_post": "stacks:lookup",
    "show_stack": "stacks:show",
    "update_stack": "stacks:update",
    "patch_stack": "stacks:update_patch",
    "delete_stack": "stacks:delete",
    "list_configs": "software_configs:index",
    "create_config": "software_configs:create",
    "show_config": "software_configs:show",
    "delete_config": "software_configs:delete",
    "list_deployments": "software_deployments:index",
    "deployments_metadata": "software_deployments:metadata",
    "create_deployment": "software_deployments:create",
    "show_deployment": "software_deployments:show",
    "update_deployment": "software_deployments:update",
    "delete_deployment": "software_deployments:delete",
}
"""The policy each route's handler enforces first, by the handler's name (None: the
route decides, once it has read the body)."""

_IMPLIED = {"admin": ("admin", "member", "reader"), "member": ("member", "reader")}


def implied_roles(role: str) -> frozenset[str]:
    """A hotplate token's role with the roles it implies, as Keystone's defaults imply
    them (admin: member and reader; member: reader)."""
    return frozenset(_IMPLIED.get(role, (role,)))


def allows(rule: str, roles: Iterable[str]) -> bool:
    """Whether a caller holding ``roles`` (in the request's project) passes ``rule``.

    A rule this table does not know denies, as Heat's enforcer denies an
    unregistered policy.
    """
    wanted = RULES.get(rule, DENY_EVERYBODY)
    return any(role.lower() in wanted for role in roles)


def refusal(rule: str) -> str:
    """Heat's text for a refused rule."""
    return f"You are not authorized to use {rule}."
