"""A resource's stack user in Keystone mode: a user of the stack domain, as Heat makes it.

A stack that has a stack user project (a root stack made with a Keystone
token while a stack domain is configured, and its nested stacks) gives each
resource that hands out credentials a Keystone user of its own in that
project (named after the resource's physical name, holding
``heat_stack_user_role``), made on first need, and:

- an EC2 keypair, a Keystone ``ec2`` credential (CFN_SIGNAL's pre-signed
  URLs, DeployedServer's ``os-collect-config`` keys): its access key is also
  recorded in the stack-user table, with no secret, so that the CFN API
  knows which resource a key speaks for and asks Keystone to check it;
- a password and a token scoped to the project (TOKEN_SIGNAL), as Heat's
  ``_user_token``;
- the password itself, with where to log in (HEAT_SIGNAL's credentials, a
  server's ``heat`` collector for POLL_SERVER_HEAT): the server's agent gets
  its own tokens, as long as the resource lives.

What was made is recorded in resource_data under Heat's names (``user_id``,
``credential_id``, ``access_key``, ``secret_key``, ``password``, the last
three redacted) at once, before anything else can fail. ``forget`` deletes
the keypair, then the user; ``forget_keypair`` the keypair alone (an
``AWS::IAM::AccessKey`` goes while its user stays). A retry after a crash between Keystone's answer
and the record finds the user by its name and reuses it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any, Protocol

from hotplate.cloud.stack_domain import StackDomainAdmin, new_password
from hotplate.model.stack_users import ResourceOwner

__all__ = ["KeystoneStackUser"]


class _Data(Protocol):
    def data(self) -> Mapping[str, str]: ...

    def data_set(self, key: str, value: str, *, redact: bool = False) -> None: ...

    def data_delete(self, key: str) -> None: ...


class _KeyRecords(Protocol):
    def record_stack_user_key(self, owner: ResourceOwner, access_key: str) -> None: ...

    def forget_stack_user(self, resource_id: Any) -> None: ...

    def forget_stack_user_key(self, access_key: str) -> None: ...


class KeystoneStackUser:
    """One resource's stack user in the stack domain."""

    def __init__(self, domain: StackDomainAdmin, project_id: str, data: _Data,
                 keys: _KeyRecords, owner: ResourceOwner, physical_name: str) -> None:
        self._domain = domain
        self._project = project_id
        self._data = data
        self._keys = keys
        self._owner = owner
        self._name = physical_name

    def _flush(self) -> None:
        flush = getattr(self._data, "flush", None)
        if callable(flush):
            flush()

    @property
    def project_id(self) -> str:
        return self._project

    def password(self) -> str:
        stored = self._data.data().get("password")
        if stored:
            return str(stored)
        password = new_password()
        self._data.data_set("password", password, redact=True)
        self._flush()
        return password

    def user_id(self) -> str:
        """The user, made on first need (with the password, which Heat gives every user
        a signal transport may need to log in with)."""
        stored = self._data.data().get("user_id")
        if stored:
            return str(stored)
        user_id = self._domain.create_user(self._name, self._project, self.password())
        self._data.data_set("user_id", user_id)
        self._flush()
        return user_id

    def keypair(self) -> tuple[str, str]:
        """(access key, secret) of the user's EC2 credential, made on first need."""
        data = self._data.data()
        if data.get("access_key") and data.get("secret_key"):
            return str(data["access_key"]), str(data["secret_key"])
        made = self._domain.create_keypair(self.user_id(), self._project)
        self._keys.record_stack_user_key(self._owner, made.access)
        self._data.data_set("credential_id", made.id, redact=True)
        self._data.data_set("access_key", made.access, redact=True)
        self._data.data_set("secret_key", made.secret, redact=True)
        self._flush()
        return made.access, made.secret

    def credentials(self) -> dict[str, str | None]:
        """What an agent logs in to Keystone with (Heat's ``_get_heat_signal_credentials``):
        ``auth_url`` (Keystone's v3 root), ``username``, ``user_id``, ``password``,
        ``project_id`` (the stack user project), ``domain_id`` (the stack domain's),
        ``region_name`` (``region_name_for_services``, None when unset)."""
        user_id = self.user_id()
        return {"auth_url": self._domain.url, "username": self._name[-255:],
                "user_id": user_id, "password": self.password(),
                "project_id": self._project, "domain_id": self._domain.domain_id,
                "region_name": self._domain.settings.region_name_for_services}

    def token(self) -> str:
        """A token of the user, scoped to the stack user project."""
        return self._domain.user_token(self.user_id(), self._project, self.password())

    def enable(self, enabled: bool) -> None:
        """Suspend (False) or resume (True) the user, if it was made (Heat's
        ``disable_stack_domain_user`` / ``enable_stack_domain_user``)."""
        user_id = self._data.data().get("user_id")
        if user_id:
            self._domain.enable_user(str(user_id), self._project, enabled)

    def forget_keypair(self) -> None:
        """Delete the EC2 keypair and its records, keeping the user (Heat's
        ``_delete_keypair``: an IAM access key deleted while its user stays)."""
        data = self._data.data()
        user_id, credential_id = data.get("user_id"), data.get("credential_id")
        if user_id and credential_id:
            self._domain.delete_keypair(str(user_id), self._project, str(credential_id))
        access = data.get("access_key")
        if access:
            self._keys.forget_stack_user_key(str(access))
        for key in ("credential_id", "access_key", "secret_key"):
            if key in data:
                with contextlib.suppress(Exception):
                    self._data.data_delete(key)

    def forget(self) -> None:
        """Delete the keypair, then the user, and their records."""
        self.forget_keypair()
        data = self._data.data()
        user_id = data.get("user_id")
        if user_id:
            self._domain.delete_user(str(user_id), self._project)
        for key in ("user_id", "password"):
            if key in data:
                with contextlib.suppress(Exception):
                    self._data.data_delete(key)
        self._keys.forget_stack_user(self._owner.resource_id)
