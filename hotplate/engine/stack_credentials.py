"""A stack's credentials in Keystone mode: its trust and its stack domain project.

- **Made with the stack.** A root stack created (or adopted) by a request
  that carries a Keystone token gets a trust from its caller to the trustee
  (``deferred_auth_method = trusts``, Heat's default), stored in ``user_creds``
  (trust id, trustor, project), and, when a stack domain is configured, a
  project of that domain for its stack users. Nested stacks hold their
  root's. A failure refuses the create with Heat's error, leaving nothing.
- **Used after the request.** Every later piece of work on the stack (each
  node of a traversal, a signal, a scaling action, another engine's
  takeover) reaches the cloud as the stack's owner through the trust
  (``credentials_of``, wired as ``Clouds.stack_credentials``), never
  through the request's token, which may be long expired.
- **Handed over.** An update or delete by another user (or from another
  project) replaces the trust with one from that caller, as Heat's
  ``_check_refresh_cred`` does: the old trustor may have lost the roles the
  stack's work needs. Every stack of the tree moves to the new one.
- **Never left behind.** Credentials no stack holds an hour after they were
  made (a create's engine died between the trust and the stack row) are
  deleted, trust first, by the engine that sweeps (``forget_orphans``).
- **Its project refused.** When Keystone will not make the stack user
  project (the domain admin's password is wrong, the domain is missing),
  the stack is still stored and fails at once, its reason Heat's
  (``Authorization failed.``, else ``Failed to create stack user
  project``): Heat's service stores the stack, then makes its project.
- **Deleted with the stack.** When a root stack's delete completes, its trust
  and its user_creds row go, then its stack domain project. A trust Keystone
  will not delete is logged, never a reason to fail the delete.

Without a Keystone token (the standalone mode, a nested stack's call) none of
this happens: the stack holds no credentials and its cloud has no catalog.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from hotplate.cloud import Clouds, TokenCredentials, TrustCredentials
from hotplate.cloud.stack_domain import StackDomainAdmin
from hotplate.cloud.trusts import Trusts, roles_to_delegate
from hotplate.model.errors import AuthorizationFailure, HotplateError
from hotplate.model.records import StackRecord, UserCreds
from hotplate.ports import Store

__all__ = ["StackCredentials", "StackUserProjectFailed", "keystone_request"]

LOG = logging.getLogger(__name__)
CACHED = 1024


class StackUserProjectFailed(HotplateError):
    """Keystone did not make a new stack's stack user project; the text is the reason
    its stack fails with, as Heat's."""


def keystone_request(ctxt: Mapping[str, Any] | None) -> bool:
    """Whether the request carries a Keystone token with its body (Keystone mode)."""
    return bool(ctxt and ctxt.get("auth_token") and ctxt.get("auth_token_info"))


class StackCredentials:
    """Trusts and stack domain projects of stacks, on one store and one client layer."""

    def __init__(self, store: Store, clouds: Clouds) -> None:
        self._store = store
        self._clouds = clouds
        self.trusts = Trusts(clouds.sessions)
        self.domain = StackDomainAdmin(clouds.settings)
        self._cache: OrderedDict[int, UserCreds] = OrderedDict()
        self._lock = threading.Lock()
        self._warned = False

    # -- made with the stack -----------------------------------------------------------
    def _trusts_wanted(self, ctxt: Mapping[str, Any]) -> bool:
        if not keystone_request(ctxt) or not self._clouds.settings.deferred_auth.trusts:
            return False
        if not self._clouds.settings.trustee.configured:
            if not self._warned:
                LOG.warning("Keystone mode without a [trustee]: stacks get no trust, so "
                            "work after a request has no cloud credentials")
                self._warned = True
            return False
        return True

    def create_for(self, ctxt: Mapping[str, Any]) -> int | None:
        """A trust from the request's caller, stored; the user_creds id (None: no
        Keystone token, or trusts are off).

        Raises:
            MissingCredentialError, AuthorizationFailure: as Heat refuses the create.
        """
        if not self._trusts_wanted(ctxt):
            return None
        settings = self._clouds.settings
        token = TokenCredentials(str(ctxt["auth_token"]), ctxt.get("auth_token_info"),
                                 ctxt.get("auth_url") or None, _project(ctxt))
        trust = self.trusts.create(
            token, trustor_user_id=str(ctxt.get("user_id") or ""), project_id=_project(ctxt),
            roles=roles_to_delegate(settings.deferred_auth.delegated_roles,
                                    ctxt.get("auth_token_info"), list(ctxt.get("roles") or ())),
            keystone_url=ctxt.get("auth_url") or None)
        try:
            return self._store.create_user_creds({
                "trust_id": trust.id, "trustor_user_id": trust.trustor_user_id,
                "tenant_id": trust.project_id, "tenant": ctxt.get("project_name"),
                "auth_url": ctxt.get("auth_url"), "region_name": ctxt.get("region_name")})
        except Exception:
            self.trusts.delete(trust.id)
            raise

    def create_project_for(self, ctxt: Mapping[str, Any], stack_id: str) -> str | None:
        """The stack domain project of a new root stack (None: no stack domain, or a
        request without a Keystone token).

        Raises:
            StackUserProjectFailed: the domain admin is refused ("Authorization
                failed."), or Keystone fails the project ("Failed to create stack
                user project"), Heat's reasons.
        """
        if not keystone_request(ctxt) or not self.domain.configured:
            return None
        try:
            return self.domain.create_project(_project(ctxt), stack_id)
        except AuthorizationFailure as exc:
            LOG.error("Stack %s: no stack user project: %s", stack_id, exc)
            raise StackUserProjectFailed(str(exc)) from exc
        except Exception as exc:
            LOG.exception("Failed to create stack user project")
            raise StackUserProjectFailed("Failed to create stack user project") from exc

    def forget_new(self, creds_id: int | None, project_id: str | None) -> None:
        """Undo ``create_for`` / ``create_project_for`` of a create that failed after."""
        if creds_id is not None:
            self._delete_creds(creds_id)
        if project_id is not None:
            self._delete_project(project_id)

    # -- used after the request --------------------------------------------------------
    def user_creds(self, stack: StackRecord) -> UserCreds | None:
        """The stack's stored credentials (its root's for a nested stack)."""
        creds_id = stack.user_creds_id
        if creds_id is None and stack.owner_id is not None:
            root = self._root(stack)
            creds_id = root.user_creds_id if root is not None else None
        if creds_id is None:
            return None
        with self._lock:
            found = self._cache.get(creds_id)
        if found is None:
            found = self._store.get_user_creds(creds_id)
            if found is None:
                return None
            with self._lock:
                self._cache[creds_id] = found
                while len(self._cache) > CACHED:
                    self._cache.popitem(last=False)
        return found

    def creds_id_of(self, stack: StackRecord) -> int | None:
        """The id of the credentials the stack acts with (its root's for a nested one)."""
        found = self.user_creds(stack)
        return found.id if found is not None else None

    def credentials_of(self, stack: Any) -> TrustCredentials | None:
        """What the stack's later work acts with: its trust (None: it holds none)."""
        if not isinstance(stack, StackRecord):
            return None
        creds = self.user_creds(stack)
        if creds is None or not creds.trust_id:
            return None
        return TrustCredentials(creds.trust_id)

    def _root(self, stack: StackRecord) -> StackRecord | None:
        current: StackRecord | None = stack
        for _ in range(16):
            if current is None or current.owner_id is None:
                return current
            current = self._store.get_stack(current.owner_id, include_deleted=True)
        return current

    # -- handed over -------------------------------------------------------------------
    def refresh_for(self, ctxt: Mapping[str, Any], stack: StackRecord) -> None:
        """An update or delete by another caller than the trustor: the stack's trust
        becomes one from that caller, the old one is deleted."""
        if not self._trusts_wanted(ctxt) or stack.owner_id is not None:
            return
        old = self.user_creds(stack)
        if old is None or not old.trust_id:
            return
        if (old.trustor_user_id == ctxt.get("user_id")
                and old.tenant_id == _project(ctxt)):
            return
        new_id = self.create_for(ctxt)
        if new_id is None:
            return
        self._store.replace_user_creds(old.id, new_id)
        with self._lock:
            self._cache.pop(old.id, None)
        self.trusts.delete(old.trust_id)
        LOG.info("Stack %s now acts through a trust from %s", stack.id, ctxt.get("user_id"))

    # -- deleted with the stack --------------------------------------------------------
    def delete_for(self, stack: StackRecord, *, abandon: bool = False) -> None:
        """A root stack is gone: its trust, its user_creds row and, unless abandoned (its
        servers keep their stack users' credentials), its stack domain project."""
        if stack.owner_id is not None:
            return
        creds_id = stack.user_creds_id
        if creds_id is not None and not self._store.user_creds_held_elsewhere(
                creds_id, str(stack.id)):
            self._delete_creds(creds_id)
        if abandon:
            return
        if stack.stack_user_project_id and stack.stack_user_project_id != stack.project_id:
            self._delete_project(stack.stack_user_project_id)

    def forget_orphans(self, made_before: datetime) -> int:
        """Delete the trusts and rows of credentials no stack holds, made before
        ``made_before`` (an engine died between making a create's trust and writing its
        stack; the create asked again made another). How many went."""
        gone = 0
        for creds_id in self._store.orphan_user_creds(made_before):
            try:
                self._delete_creds(creds_id)
            except Exception:  # Keystone away: the next sweep tries again
                LOG.exception("Failed to delete unused credentials %s", creds_id)
                continue
            LOG.info("Deleted credentials %s, held by no stack", creds_id)
            gone += 1
        return gone

    def _delete_creds(self, creds_id: int) -> None:
        creds = self._store.get_user_creds(creds_id)
        if creds is not None and creds.trust_id:
            self.trusts.delete(creds.trust_id)
        self._store.delete_user_creds(creds_id)
        with self._lock:
            self._cache.pop(creds_id, None)

    def _delete_project(self, project_id: str) -> None:
        if not self.domain.configured:
            LOG.warning("Stack user project %s kept: no stack domain configured", project_id)
            return
        try:
            self.domain.delete_project(project_id)
        except Exception:
            LOG.exception("Error deleting project %s", project_id)


def _project(ctxt: Mapping[str, Any]) -> str:
    return str(ctxt.get("project_id") or ctxt.get("tenant_id") or "")
