"""OS::Heat::AccessPolicy: which resources an IAM user's keys may describe.

An ``AWS::IAM::User`` lists policies (``Policies``, their names); a key of
that user (an ``AWS::IAM::AccessKey``) may read, through the CFN API's
``DescribeStackResource``, only the resources every one of them allows
(Heat's ``access_allowed``; the engine asks it, engine/service/
stack_user_access.py). The policy itself makes nothing: its reference is its
name, so ``{Ref: policy}`` in ``Policies`` names it.

``AllowedResources`` must name resources of the same stack, checked when the
stack is validated (``check_in_stack``), in Heat's words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.base import Resource
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import SupportStatus

__all__ = ["ALLOWED_RESOURCES", "AccessPolicy"]

ALLOWED_RESOURCES = "AllowedResources"


class AccessPolicy(Resource):
    """Resource for defining which resources can be accessed by users.

    NOTE: Now this resource is actually associated with an AWS user resource,
    not any OS:: resource though it is registered under the OS namespace below.

    Resource for defining resources that users are allowed to access by the
    DescribeStackResource API.
    """

    local_only = True
    support_status = SupportStatus()
    properties_schema = {
        ALLOWED_RESOURCES: Schema(
            Schema.LIST,
            "Resources that users are allowed to access by the DescribeStackResource API.",
            required=True),
    }

    @classmethod
    def check_in_stack(cls, props: Mapping[str, Any], path: PropertyPath,
                       resources: frozenset[str]) -> None:
        """Every allowed resource is one of the stack's (Heat's ``validate``).

        Raises:
            StackValidationFailed: "AccessPolicy resource <name> not in stack".
        """
        for name in props.get(ALLOWED_RESOURCES) or ():
            if name not in resources:
                raise StackValidationFailed(f"AccessPolicy resource {name} not in stack")

    def access_allowed(self, resource_name: str) -> bool:
        """Whether ``resource_name`` is one of the allowed resources."""
        return resource_name in (self.properties[ALLOWED_RESOURCES] or ())
