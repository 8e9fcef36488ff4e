"""AWS::IAM::User and AWS::IAM::AccessKey: a stack user and its EC2 keypair.

An ``AWS::IAM::User`` is a stack user of its own (resources/signal_responder.py's
machinery): in Keystone mode a user of the stack domain, in the stack's
project, holding ``heat_stack_user_role``, with ``LoginProfile``'s password
if given (its physical id is the Keystone user's id); standalone, where
hotplate keeps stack users' keys itself, nothing but the keys it will hold
(its physical id is its physical name). Its reference is its physical name,
as Heat's (AWS's user name), and any property change replaces it.

An ``AWS::IAM::AccessKey`` names its user by that reference (``UserName``)
and makes the user's EC2 keypair, as Heat's does: the keypair is the
user's (its records are in the user's resource data, and the user's delete
takes it along); the key's physical id is its access key id, and its
``SecretAccessKey`` the secret. A second key of the same user is the same
keypair (Heat's second key fails on it). Deleting the key deletes the keypair
only (``forget_keypair``), the user stays. A key whose user is gone (replaced)
finds nothing to delete and leaves the keypair to that user's delete.

What a key may read through the CFN API's ``DescribeStackResource`` is its
user's ``access_allowed``: every one of its policies (``OS::Heat::AccessPolicy``
resources, named in ``Policies``) must allow the resource; a user with no
policy may read any. The engine asks it (engine/service/stack_user_access.py).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import HotplateError
from hotplate.resources.attributes import Attribute, InvalidTemplateAttribute
from hotplate.resources.aws.launch_config import refuse_unimplemented
from hotplate.resources.base import Resource
from hotplate.resources.constraints import AllowedValues
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.signal_responder import signal_endpoints
from hotplate.resources.signals import peers
from hotplate.resources.support import SupportStatus

__all__ = ["AccessKey", "NotFound", "User"]

LOG = logging.getLogger(__name__)

PATH, GROUPS, LOGIN_PROFILE, POLICIES = "Path", "Groups", "LoginProfile", "Policies"
PASSWORD = "Password"
SERIAL, USER_NAME, STATUS = "Serial", "UserName", "Status"
SECRET_ACCESS_KEY = "SecretAccessKey"
NO_SECRET = "000-000-000"
"""What ``SecretAccessKey`` reads before there is a secret (Heat's)."""


class NotFound(HotplateError):
    """Heat's ``NotFound``: an access key's user is not in the stack."""


class User(Resource):
    """A stack user that an ``AWS::IAM::AccessKey`` makes keys for."""

    support_status = SupportStatus()
    properties_schema = {
        PATH: Schema(Schema.STRING, "Not Implemented."),
        GROUPS: Schema(Schema.LIST, "Not Implemented."),
        LOGIN_PROFILE: Schema(Schema.MAP, "A login profile for the user.",
                              schema={PASSWORD: Schema(Schema.STRING)}),
        POLICIES: Schema(Schema.LIST, "Access policies to apply to the user."),
    }

    def _policy_names(self) -> list[str]:
        """The policies named by string; anything else (an embedded IAM policy) is
        ignored, as Heat ignores it rather than break templates that carry one."""
        names = []
        for policy in self.properties[POLICIES] or ():
            if isinstance(policy, str):
                names.append(policy)
            else:
                LOG.debug("Ignoring policy %s, must be string resource name", policy)
        return names

    def _policies_valid(self) -> bool:
        """Every policy named is a resource of the stack that answers ``access_allowed``."""
        for name in self._policy_names():
            found = peers(self).resource_by_reference(name)
            if found is None:
                LOG.debug("Policy %s does not exist in stack %s", name, self.ctx.stack_name)
                return False
            if not callable(getattr(found, "access_allowed", None)):
                LOG.debug("Policy %s is not an AccessPolicy resource", name)
                return False
        return True

    def handle_create(self) -> None:
        """Check the policies, then make the user (Keystone mode).

        Raises:
            InvalidTemplateAttribute: a policy is not an access policy of the stack
                (Heat's text, naming ``Policies``).
        """
        profile = self.properties[LOGIN_PROFILE] or {}
        password = profile.get(PASSWORD)
        if self.properties[POLICIES] and not self._policies_valid():
            raise InvalidTemplateAttribute(self.name, POLICIES)
        user_id = signal_endpoints(self).create_stack_user(
            None if password is None else str(password))
        self.resource_id_set(user_id if user_id is not None
                             else self.physical_resource_name())

    def handle_delete(self) -> None:
        """Delete the keypair, then the user, and their records."""
        try:
            signal_endpoints(self).forget_signal_credentials()
        except RuntimeError:  # a context with no signal endpoints made none
            LOG.debug("no stack user to forget for %s", self.name)

    def handle_suspend(self) -> None:
        signal_endpoints(self).enable_stack_user(False)

    def handle_resume(self) -> None:
        signal_endpoints(self).enable_stack_user(True)

    def get_reference_id(self) -> str:
        """The physical name (AWS's user name), which an access key's ``UserName`` is."""
        return self.physical_resource_name()

    def access_allowed(self, resource_name: str) -> bool:
        """Whether this user's keys may describe ``resource_name``: every policy
        must allow it (none: any resource)."""
        for name in self._policy_names():
            found = peers(self).resource_by_reference(name)
            allowed = getattr(found, "access_allowed", None)
            if not callable(allowed) or not allowed(resource_name):
                return False
        return True


class AccessKey(Resource):
    """An EC2 keypair of an ``AWS::IAM::User``."""

    support_status = SupportStatus()
    properties_schema = {
        SERIAL: Schema(Schema.INTEGER, "Not Implemented."),
        USER_NAME: Schema(Schema.STRING,
                          "The name of the user that the new key will belong to.",
                          required=True),
        STATUS: Schema(Schema.STRING, "Not Implemented.",
                       constraints=[AllowedValues(("Active", "Inactive"))]),
    }
    attributes_schema = {
        USER_NAME: Attribute("Username associated with the AccessKey.",
                             type=Attribute.STRING),
        SECRET_ACCESS_KEY: Attribute("Keypair secret key.", type=Attribute.STRING),
    }

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        """``Serial`` and ``Status`` are declared, not implemented (Heat's text)."""
        refuse_unimplemented(props, frozenset({SERIAL, STATUS}))

    def _user(self) -> Resource | None:
        """The user whose reference ``UserName`` is (its physical name)."""
        return peers(self).resource_by_reference(str(self.properties[USER_NAME]))

    def handle_create(self) -> None:
        """Make the user's keypair; the access key id is this key's physical id.

        Raises:
            NotFound: "could not find user <UserName>".
        """
        user = self._user()
        if user is None:
            raise NotFound(f"could not find user {self.properties[USER_NAME]}")
        access, secret = signal_endpoints(user).stack_user_credentials()
        self.resource_id_set(access)
        self.data_set("secret_key", secret, redact=True)

    def handle_delete(self) -> None:
        """Delete the user's keypair, not the user."""
        if self.resource_id is None:
            return
        user = self._user()
        if user is None:
            LOG.debug("Error deleting %s - user not found", self.name)
            return
        if user.data().get("access_key") not in (None, self.resource_id):
            return  # the user's keypair now is another key's (this one failed and was replaced)
        signal_endpoints(user).forget_keypair()

    def _resolve_attribute(self, name: str) -> Any:
        if name == USER_NAME:
            return self.properties[USER_NAME]
        if name == SECRET_ACCESS_KEY:
            secret = self.data().get("secret_key") if self.resource_id else None
            return secret or NO_SECRET
        return None
