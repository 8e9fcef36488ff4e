"""Which resources a stack user's EC2 key may describe (Heat's ``_authorize_stack_user``).

The CFN API's ``DescribeStackResource`` (os-collect-config, cfn-hup) reaches
``describe_stack_resource`` as a stack user (``heat_stack_user`` role) with
the key that signed the request in its context, under Heat's ``aws_creds``
(``{"ec2Credentials": {"access": <key>}}``). The key speaks for the resource
that made it (``stack_user_key``):

- a resource that answers ``access_allowed`` (an ``AWS::IAM::User``, whose
  keys are its ``AWS::IAM::AccessKey``'s) decides: its policies' allowed
  resources;
- any other (a wait condition handle, a deployment's server, a scaling
  policy) may describe itself only.

Anything else, a key of another stack or one no resource holds, is refused,
as Heat refuses (``Forbidden``, which the CFN API answers as AccessDenied),
before the resource is even looked up. A stack user with no key in its
context (a Keystone stack user's token on the orchestration API) is left to
that API's own checks.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.engine.hosting.row_plugins import row_class, row_instance
from hotplate.model.errors import Forbidden
from hotplate.model.ids import ResourceId
from hotplate.model.records import StackRecord

__all__ = ["FORBIDDEN", "STACK_USER_ROLE", "authorize_stack_user", "ec2_access_key"]

LOG = logging.getLogger(__name__)

STACK_USER_ROLE = "heat_stack_user"
FORBIDDEN = "You are not authorized to complete this action."
"""Heat's ``Forbidden`` default text."""


def ec2_access_key(ctxt: Mapping[str, Any]) -> str | None:
    """The access key in the context's ``aws_creds`` (a JSON string, as Heat's)."""
    creds = ctxt.get("aws_creds")
    try:
        found = json.loads(creds).get("ec2Credentials") if isinstance(creds, str) else None
    except (ValueError, AttributeError):
        return None
    access = found.get("access") if isinstance(found, Mapping) else None
    return str(access) if access else None


def authorize_stack_user(deps: EngineDeps, ctxt: Mapping[str, Any], stack: StackRecord,
                         resource_name: str) -> None:
    """Refuse a stack user's key a resource its owner does not allow.

    Raises:
        Forbidden: Heat's text; logged as Heat logs it.
    """
    if STACK_USER_ROLE not in (ctxt.get("roles") or ()):
        return
    access = ec2_access_key(ctxt)
    if access is None:
        return
    if not _allowed(deps, access, stack, resource_name):
        LOG.warning("Access denied to resource %s", resource_name)
        raise Forbidden(FORBIDDEN)


def _allowed(deps: EngineDeps, access: str, stack: StackRecord, resource_name: str) -> bool:
    key = deps.store.find_stack_user_key(access)  # type: ignore[attr-defined]
    if key is None or str(key.stack_id) != str(stack.id):
        return False
    row = deps.store.get_resource(ResourceId(key.resource_id))
    if row is None:
        return False
    cls = row_class(deps, row)
    if not callable(getattr(cls, "access_allowed", None)):
        return bool(resource_name == key.resource_name)
    plugin = row_instance(deps, row, stack, cls)
    return bool(plugin.access_allowed(resource_name))  # type: ignore[attr-defined]
