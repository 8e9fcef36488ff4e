"""The stack domain: stack users, their EC2 keys and their projects, as Heat keeps them.

A resource that hands a server credentials (a wait condition handle, a
deployment, a scaling policy's URL...) gets a user of its own in the stack
domain (``stack_user_domain_id`` or ``_name``), in a project of the domain
made for the stack (``<project id>-<stack id>``, 64 characters at most),
holding ``heat_stack_user_role`` there and nothing else: credentials that
live on a server reach only what Heat's policy lets a stack user reach. Its
EC2 keypair is a Keystone ``ec2`` credential, so the CFN API has Keystone
check signatures (``ec2tokens``) and never holds the secret itself.

Everything goes through the stack domain admin (``stack_domain_admin``),
whose token is scoped to the domain (only such a token can make projects in
it); a user or keypair is only ever deleted after checking it belongs to the
domain and to the stack's project, as Heat checks. Texts are Heat's.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import uuid
from dataclasses import dataclass
from typing import Any

from hotplate.cloud.keystone_calls import (
    KeystoneNotFound,
    KeystoneRefused,
    keystone_v3,
    request,
)
from hotplate.cloud.sessions import APP_NAME
from hotplate.cloud.settings import CloudSettings
from hotplate.model.errors import AuthorizationFailure, HotplateError
from hotplate.resources.random_string import generate

__all__ = ["AccessKey", "StackDomainAdmin", "new_password"]

LOG = logging.getLogger(__name__)

PROJECT_DESCRIPTION = "Heat stack user project"
USER_OPTIONS = {"ignore_change_password_upon_first_use": True,
                "ignore_password_expiry": True, "ignore_lockout_failure_attempts": True}
"""Keystone's security-compliance rules do not apply to a machine's user (Heat's)."""


def new_password() -> str:
    """A password Keystone accepts: 32 characters with a lower and an upper case letter,
    a digit and one of ``!@#%^&*`` (Heat's ``generate_openstack_password``)."""
    return generate(32, [("abcdefghijklmnopqrstuvwxyz", 1), ("ABCDEFGHIJKLMNOPQRSTUVWXYZ", 1),
                         ("0123456789", 1), ("!@#%^&*", 1)])


@dataclass(frozen=True, slots=True)
class AccessKey:
    """An EC2 keypair: its Keystone credential id, access key and secret."""

    id: str
    access: str
    secret: str


class StackDomainAdmin:
    """The stack domain's users, keys and projects, as its admin manages them."""

    def __init__(self, settings: CloudSettings) -> None:
        self.settings = settings
        self._session: Any = None
        self._domain_id = settings.stack_domain.domain_id
        self._role_id: str | None = None
        self._lock = threading.Lock()

    @property
    def configured(self) -> bool:
        return self.settings.stack_domain.configured

    # -- plumbing ----------------------------------------------------------------------
    @property
    def url(self) -> str:
        url = keystone_v3(self.settings)
        if url is None:
            LOG.error("Keystone API endpoint not provided. Set auth_uri in section "
                      "[clients_keystone] of the configuration file.")
            raise AuthorizationFailure()
        return url

    def _admin(self) -> Any:
        """A session as the domain admin, its token scoped to the stack domain."""
        with self._lock:
            if self._session is not None:
                return self._session
        from keystoneauth1 import exceptions as ks_exc
        from keystoneauth1 import session
        from keystoneauth1.identity import v3

        domain = self.settings.stack_domain
        scope = ({"domain_id": domain.domain_id, "user_domain_id": domain.domain_id}
                 if domain.domain_id else
                 {"domain_name": domain.domain_name, "user_domain_name": domain.domain_name})
        auth = v3.Password(auth_url=self.url, username=domain.admin,
                           password=str(domain.admin_password), **scope)
        sess = session.Session(auth=auth, verify=self.settings.verify("keystone"),
                               cert=self.settings.cert("keystone"), app_name=APP_NAME)
        try:
            access = auth.get_access(sess)
        except ks_exc.Unauthorized:
            LOG.error("Domain admin client authentication failed")
            raise AuthorizationFailure() from None
        with self._lock:
            self._domain_id = self._domain_id or access.domain_id
            self._session = sess
        return sess

    def _call(self, method: str, path: str, body: Any = None, *, secret: bool = False
              ) -> Any:
        return request(self._admin(), method, f"{self.url}{path}", json=body,
                       retries=self.settings.client_retry_limit, secret=secret)

    @property
    def domain_id(self) -> str:
        self._admin()
        assert self._domain_id is not None
        return self._domain_id

    # -- projects ----------------------------------------------------------------------
    def create_project(self, project_id: str, stack_id: str) -> str:
        """A project of the domain for a stack's users; its id.

        The name comes from the stack's id, so a create asked again under the same
        request id (its stack id derived from it) after its engine died finds the
        project the first asking made (Keystone's 409) and takes it over, rather than
        leaving it behind.
        """
        name = f"{project_id}-{stack_id}"[:64]
        try:
            made = self._call("POST", "/projects", {"project": {
                "name": name, "domain_id": self.domain_id,
                "description": PROJECT_DESCRIPTION}})
        except KeystoneRefused as exc:
            if exc.status != 409:
                raise
            found = self._call("GET", f"/projects?name={name}&domain_id={self.domain_id}")
            if len(found["projects"]) != 1:
                raise
            return str(found["projects"][0]["id"])
        return str(made["project"]["id"])

    def delete_project(self, project_id: str) -> None:
        """Delete a stack's project; never one outside the domain (a stack made before
        the domain was configured has its users in its owner's own project)."""
        try:
            found = self._call("GET", f"/projects/{project_id}")["project"]
        except KeystoneNotFound:
            return
        except KeystoneRefused as exc:
            if exc.status != 403:
                raise
            LOG.warning("Unable to get details for project %s, not deleting", project_id)
            return
        if found.get("domain_id") != self.domain_id:
            LOG.warning("Not deleting non heat-domain project")
            return
        with contextlib.suppress(KeystoneNotFound):
            self._call("DELETE", f"/projects/{project_id}")

    # -- users -------------------------------------------------------------------------
    def _stack_user_role(self) -> str:
        if self._role_id is None:
            role = self.settings.stack_domain.user_role
            found = self._call("GET", f"/roles?name={role}")["roles"]
            if len(found) != 1:
                LOG.error("Failed to add a stack user to role %s, check role exists!", role)
                raise HotplateError(f"Can't find role {role}")
            self._role_id = str(found[0]["id"])
        return self._role_id

    def create_user(self, name: str, project_id: str, password: str | None) -> str:
        """A user of the domain in the stack's project, holding the stack user role;
        its id. A user of that name already there (a retry after a crash) is reused."""
        role_id = self._stack_user_role()
        username = name[-255:]
        body: dict[str, Any] = {"name": username, "domain_id": self.domain_id,
                                "default_project_id": project_id, "options": USER_OPTIONS}
        if password is not None:
            body["password"] = password
        try:
            user_id = str(self._call("POST", "/users", {"user": body},
                                     secret=True)["user"]["id"])
        except KeystoneRefused as exc:
            if exc.status != 409:
                raise
            user_id = self._existing_user(username, project_id, password)
        self._call("PUT", f"/projects/{project_id}/users/{user_id}/roles/{role_id}")
        return user_id

    def _existing_user(self, username: str, project_id: str, password: str | None) -> str:
        found = self._call("GET", f"/users?name={username}&domain_id={self.domain_id}")
        users = [u for u in found["users"] if u.get("default_project_id") == project_id]
        if not users:
            raise HotplateError(f"User {username} exists outside the stack's project")
        user_id = str(users[0]["id"])
        if password is not None:
            self._call("PATCH", f"/users/{user_id}", {"user": {"password": password}},
                       secret=True)
        return user_id

    def _check_user(self, user_id: str, project_id: str, action: str) -> None:
        user = self._call("GET", f"/users/{user_id}")["user"]
        if user.get("domain_id") != self.domain_id:
            raise ValueError(f"User {action} in invalid domain")
        if user.get("default_project_id") != project_id:
            raise ValueError(f"User {action} in invalid project")

    def delete_user(self, user_id: str, project_id: str) -> None:
        try:
            self._check_user(user_id, project_id, "delete")
            self._call("DELETE", f"/users/{user_id}")
        except KeystoneNotFound:
            pass

    def enable_user(self, user_id: str, project_id: str, enabled: bool) -> None:
        """Suspend (False) or resume (True) a stack user."""
        self._check_user(user_id, project_id, "enable" if enabled else "disable")
        self._call("PATCH", f"/users/{user_id}", {"user": {"enabled": enabled}})

    def user_token(self, user_id: str, project_id: str, password: str) -> str:
        """A token of a stack user, scoped to its project (HEAT_SIGNAL's ``token``)."""
        from keystoneauth1 import exceptions as ks_exc
        from keystoneauth1 import session
        from keystoneauth1.identity import v3

        auth = v3.Password(auth_url=self.url, user_id=user_id, password=password,
                           project_id=project_id)
        sess = session.Session(auth=auth, verify=self.settings.verify("keystone"),
                               app_name=APP_NAME)
        try:
            return str(auth.get_token(sess))
        except ks_exc.Unauthorized:
            raise AuthorizationFailure() from None

    # -- EC2 keypairs ------------------------------------------------------------------
    def create_keypair(self, user_id: str, project_id: str) -> AccessKey:
        blob = {"access": uuid.uuid4().hex, "secret": new_password()}
        made = self._call("POST", "/credentials", {"credential": {
            "user_id": user_id, "type": "ec2", "blob": json.dumps(blob),
            "project_id": project_id}}, secret=True)
        return AccessKey(str(made["credential"]["id"]), blob["access"], blob["secret"])

    def delete_keypair(self, user_id: str, project_id: str, credential_id: str) -> None:
        try:
            self._check_user(user_id, project_id, "delete_keypair")
            self._call("DELETE", f"/credentials/{credential_id}")
        except KeystoneNotFound:
            pass
