"""Trusts: how a stack's later work acts for its owner, as Heat makes and deletes them.

A stack created with a Keystone token gets a trust from its caller (the
trustor) to the trustee (``[trustee]``, Heat's service user), for the
caller's project, with impersonation, delegating ``trusts_delegated_roles``
or else every role the caller's token holds. Made with the caller's own
token while the request is being served; after that, only the trustee uses
it (``sessions``: the trustee's password scoped to the trust), so the stack's
work outlives the caller's token. The trust is deleted through itself (a
trust-scoped token may delete its own trust), so neither the trustor's token
nor an admin is needed when the stack goes, hours later.

Failures are Heat's: a role Keystone does not find (one the caller does not
hold, or does not exist) is ``MissingCredentialError`` ("Missing required
credential: roles {'role_names': ['x']}"), a trustee Keystone refuses or one
not configured ``AuthorizationFailure``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hotplate.cloud.credentials import TokenCredentials, TrustCredentials
from hotplate.cloud.errors import CloudError
from hotplate.cloud.keystone_calls import (
    KeystoneNotFound,
    KeystoneRefused,
    KeystoneUnauthorized,
    keystone_v3,
    request,
)
from hotplate.cloud.sessions import APP_NAME, CloudSessions, MissingCredentials
from hotplate.model.errors import AuthorizationFailure, Forbidden, MissingCredentialError

__all__ = ["Trust", "Trusts", "roles_to_delegate"]

LOG = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Trust:
    id: str
    trustor_user_id: str
    project_id: str


def roles_to_delegate(delegated: Sequence[str], token_info: Mapping[str, Any] | None,
                      roles: Sequence[str]) -> dict[str, list[str]]:
    """Heat's choice: the configured role names, else the token's role ids, else the
    request's role names (``{"role_ids": [...]}`` or ``{"role_names": [...]}``)."""
    if delegated:
        return {"role_names": list(delegated)}
    token_roles = ((token_info or {}).get("token") or {}).get("roles") or []
    if token_roles:
        return {"role_ids": [str(role["id"]) for role in token_roles]}
    return {"role_names": list(roles)}


class Trusts:
    """Making and deleting trusts; the trustee's user id is asked of Keystone once."""

    def __init__(self, sessions: CloudSessions) -> None:
        self._sessions = sessions
        self._trustee_user_id: str | None = None
        self._lock = threading.Lock()

    @property
    def settings(self) -> Any:
        return self._sessions.settings

    def _session(self, auth: Any) -> Any:
        from keystoneauth1 import session

        return session.Session(auth=auth, verify=self.settings.verify("keystone"),
                               cert=self.settings.cert("keystone"), app_name=APP_NAME)

    def trustee_user_id(self) -> str:
        """The trustee's user id (its password, unscoped).

        Raises:
            AuthorizationFailure: no trustee configured, or Keystone refuses it.
        """
        with self._lock:
            if self._trustee_user_id is not None:
                return self._trustee_user_id
        from keystoneauth1 import exceptions as ks_exc
        from keystoneauth1.identity import v3

        trustee = self.settings.trustee
        if not trustee.configured:
            LOG.error("Please add the trustee credentials you need to the [trustee] "
                      "section of the configuration file.")
            raise AuthorizationFailure()
        domain = ({"user_domain_id": trustee.user_domain_id} if trustee.user_domain_id
                  else {"user_domain_name": trustee.user_domain_name or "Default"})
        plugin = v3.Password(auth_url=str(keystone_v3(self.settings, trustee.auth_url)),
                             username=trustee.username, password=str(trustee.password),
                             **domain)
        try:
            user_id = str(plugin.get_user_id(self._session(plugin)))
        except ks_exc.Unauthorized:
            LOG.error("Trustee authentication failed")
            raise AuthorizationFailure() from None
        except ks_exc.ClientException as exc:
            LOG.error("Trustee authentication failed: %s", exc)
            raise AuthorizationFailure() from None
        with self._lock:
            self._trustee_user_id = user_id
        return user_id

    def create(self, caller: TokenCredentials, *, trustor_user_id: str, project_id: str,
               roles: Mapping[str, list[str]], keystone_url: str | None = None) -> Trust:
        """A trust from the caller to the trustee, made with the caller's token.

        Raises:
            MissingCredentialError: Keystone does not find a role to delegate.
            AuthorizationFailure: the trustee cannot be authenticated.
            Forbidden: Keystone refuses the trust twice (Heat answers 403 with
                Keystone's message).
        """
        trustee_id = self.trustee_user_id()
        url = keystone_v3(self.settings, keystone_url or caller.auth_url)
        if url is None:
            raise AuthorizationFailure()
        role_refs = ([{"id": role} for role in roles.get("role_ids", [])]
                     + [{"name": role} for role in roles.get("role_names", [])])
        body = {"trust": {
            "trustor_user_id": trustor_user_id, "trustee_user_id": trustee_id,
            "project_id": project_id, "impersonation": True,
            "allow_redelegation": self.settings.deferred_auth.redelegation,
            "roles": role_refs}}
        for attempt in (1, 2):
            try:
                made = request(self._session(self._sessions.auth_plugin(caller)), "POST",
                               f"{url}/OS-TRUST/trusts", json=body,
                               retries=self.settings.client_retry_limit)
                break
            except KeystoneNotFound:
                LOG.debug("Failed to find roles %s for user %s", dict(roles), trustor_user_id)
                raise MissingCredentialError(f"roles {dict(roles)}") from None
            except KeystoneUnauthorized:
                raise AuthorizationFailure() from None
            except KeystoneRefused as exc:
                if exc.status != 403:
                    raise
                if attempt == 1:
                    # A Keystone serving requests on several threads of one process
                    # has been seen to judge one request by another's scope; the same
                    # request a moment later passes.
                    LOG.warning("Keystone refused the trust of user %s (%s); asking once "
                                "more", trustor_user_id, exc)
                    time.sleep(0.5)
                    continue
                raise Forbidden(str(exc)) from None
        trust = made["trust"]
        return Trust(str(trust["id"]), trustor_user_id, project_id)

    def delete(self, trust_id: str) -> bool:
        """Delete the trust through itself; False when it could not be (already gone,
        or Keystone refuses: logged, as Heat never fails a stack delete for it)."""
        try:
            plugin = self._sessions.auth_plugin(TrustCredentials(trust_id))
        except MissingCredentials:
            LOG.warning("The trust %s cannot be deleted: no [trustee] configured", trust_id)
            return False
        url = keystone_v3(self.settings)
        for attempt in (1, 2):
            try:
                request(self._session(plugin), "DELETE", f"{url}/OS-TRUST/trusts/{trust_id}",
                        retries=self.settings.client_retry_limit)
            except (KeystoneNotFound, KeystoneUnauthorized):
                LOG.info("The trust %s is gone already", trust_id)
                return False
            except KeystoneRefused as exc:
                if attempt == 1 and exc.status == 403:
                    # Seen once in hundreds of deletes, and not again with a new token.
                    LOG.warning("Keystone refused deleting trust %s (%s); once more with a "
                                "new token", trust_id, exc)
                    time.sleep(1.0)
                    plugin = self._sessions.auth_plugin(TrustCredentials(trust_id))
                    continue
                LOG.error("Error deleting trust %s: %s", trust_id, exc)
                return False
            except CloudError as exc:
                LOG.error("Error deleting trust %s: %s", trust_id, exc)
                return False
            return True
        return False
