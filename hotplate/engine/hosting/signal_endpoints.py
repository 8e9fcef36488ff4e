"""The engine's side of a signalled resource's endpoints (``resources.signal_responder``).

In Keystone mode (a stack with a stack user project) the stack user, its keys,
its token and its password are Keystone's (``keystone_users``); otherwise
hotplate's own, and HEAT_SIGNAL, which needs a Keystone user, has none.

The URLs an agent is handed come from Heat's options (``EngineOptions``):
``heat_waitcondition_server_url`` and ``heat_metadata_server_url`` (the CFN
API, derived from its listening address when unset) and ``[clients_heat]
url`` (the orchestration API). The keys and tokens come from the store's
stack users (``db/stack_users.py``); what the plugin is handed is also kept
in its resource_data under Heat's names (``access_key``, ``secret_key``
redacted, ``ec2_signed_url``), so a URL, once given out, stays the same.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Protocol
from urllib.parse import quote, unquote, urlencode, urlsplit

from hotplate.engine.hosting.keystone_users import KeystoneStackUser
from hotplate.engine.options import EngineOptions
from hotplate.model.ec2_signature import sign_v2
from hotplate.model.errors import HotplateError
from hotplate.model.ids import ResourceId
from hotplate.model.stack_users import ResourceOwner, StackUserKey
from hotplate.resources.signal_responder import (
    UNSUPPORTED_TRANSPORTS,
    SignalKind,
    SignalTransport,
)

SIGNAL_VERBS: dict[str, str] = {"waitcondition": "PUT", "signal": "POST"}
"""The method each pre-signed URL is signed for (Heat's SIGNAL_VERB)."""


class StackUserStorage(Protocol):
    """What the endpoints need of the store (db/stack_users.py)."""

    def stack_user_key(self, owner: ResourceOwner) -> StackUserKey: ...

    def issue_signal_token(self, owner: ResourceOwner) -> str: ...

    def forget_stack_user(self, resource_id: ResourceId) -> None: ...

    def record_stack_user_key(self, owner: ResourceOwner, access_key: str) -> None: ...

    def forget_stack_user_key(self, access_key: str) -> None: ...


class DataAccess(Protocol):
    def data(self) -> Mapping[str, str]: ...

    def data_set(self, key: str, value: str, *, redact: bool = False) -> None: ...

    def data_delete(self, key: str) -> None: ...


def _flush(data: DataAccess) -> None:
    """Write buffered data now: another resource's plugin (an access key making its
    user's keypair) changes a row whose own action is not running."""
    flush = getattr(data, "flush", None)
    if callable(flush):
        flush()


def resource_arn(project: str, stack_name: str, stack_id: str, resource_name: str) -> str:
    """Heat's ARN of a resource: ``arn:openstack:heat::<tenant>:stacks/<n>/<id>/resources/<r>``."""
    return (f"arn:openstack:heat::{quote(project, safe='')}:stacks/"
            f"{quote(stack_name, safe='')}/{quote(stack_id, safe='')}"
            f"{quote('/resources/' + resource_name)}")


def presigned_url(base: str, kind: SignalKind, arn: str, access_key: str, secret: str,
                  now: datetime) -> str:
    """A SigV2 query-signed heat-api-cfn URL, as Heat's ``_get_ec2_signed_url`` makes it:
    signed over the unquoted path, sent with the quoted one."""
    signal_url = base.rstrip("/")
    if signal_url.endswith("/waitcondition"):
        signal_url = signal_url[: -len("/waitcondition")]
    signal_url = f"{signal_url}/{kind}"
    parts = urlsplit(signal_url)
    path = "/" + quote(arn)
    params = {"SignatureMethod": "HmacSHA256", "SignatureVersion": "2",
              "AWSAccessKeyId": access_key, "Timestamp": now.strftime("%Y-%m-%dT%H:%M:%SZ")}
    params["Signature"] = sign_v2(secret, SIGNAL_VERBS[kind], parts.netloc.lower(),
                                  unquote(parts.path + path), params)
    return f"{signal_url.lower()}{path}?{urlencode(params)}"


class EngineSignalEndpoints:
    """``SignalEndpoints`` for one resource row."""

    def __init__(self, store: StackUserStorage, options: EngineOptions, data: DataAccess,
                 owner: ResourceOwner, now: Callable[[], datetime],
                 keystone: Callable[[DataAccess], KeystoneStackUser] | None = None) -> None:
        self._store = store
        self._options = options
        self._data = data
        self._owner = owner
        self._now = now
        self._keystone = keystone(data) if keystone is not None else None

    def cfn_signal_url(self, kind: SignalKind) -> str:
        stored_key = "ec2_signed_url" if kind == "signal" else "ec2_waitcondition_url"
        stored = self._data.data().get(stored_key)
        if stored:
            return str(stored)
        access, secret = self.stack_user_credentials()
        owner = self._owner
        base = (self._options.heat_waitcondition_server_url
                or f"{self.metadata_server_url().rstrip('/')}/waitcondition")
        url = presigned_url(base, kind, resource_arn(owner.project, owner.stack_name,
                                                      owner.stack_id, owner.resource_name),
                            access, secret, self._now())
        self._data.data_set(stored_key, url)
        return url

    def stack_user_credentials(self) -> tuple[str, str]:
        data = self._data.data()
        if data.get("access_key") and data.get("secret_key"):
            return str(data["access_key"]), str(data["secret_key"])
        if self._keystone is not None:
            return self._keystone.keypair()
        key = self._store.stack_user_key(self._owner)
        self._data.data_set("access_key", key.access_key, redact=True)
        self._data.data_set("secret_key", key.secret, redact=True)
        _flush(self._data)
        return str(key.access_key), str(key.secret)

    def create_stack_user(self, password: str | None = None) -> str | None:
        if self._keystone is None:
            return None
        if password is not None and self._data.data().get("password") != password:
            self._data.data_set("password", password, redact=True)
        return self._keystone.user_id()

    def enable_stack_user(self, enabled: bool) -> None:
        if self._keystone is not None:
            self._keystone.enable(enabled)

    def forget_keypair(self) -> None:
        if self._keystone is not None:
            self._keystone.forget_keypair()
        data = self._data.data()
        access = data.get("access_key")
        if access:
            self._store.forget_stack_user_key(str(access))
        for key in ("ec2_signed_url", "ec2_waitcondition_url", "access_key", "secret_key"):
            if key in self._data.data():
                self._data.data_delete(key)

    def signal_token(self) -> str:
        stored = self._data.data().get("signal_token")
        if stored:
            return str(stored)
        token = (self._keystone.token() if self._keystone is not None
                 else self._store.issue_signal_token(self._owner))
        self._data.data_set("signal_token", token, redact=True)
        return token

    def heat_signal_url(self, *, stack_user_project: bool = True) -> str:
        """The resource's signal URL; in Keystone mode under the stack user project, whose
        users' tokens the API takes there (Heat's), unless the owner's is asked for."""
        owner = self._owner
        project = (self._keystone.project_id
                   if self._keystone is not None and stack_user_project else owner.project)
        base = (self._options.heat_url or "http://127.0.0.1:8004/v1/%(tenant_id)s")
        base = base.replace("%(tenant_id)s", quote(project, safe="")).rstrip("/")
        if "/v1" not in urlsplit(base).path:
            base = f"{base}/v1/{quote(project, safe='')}"
        return (f"{base}/stacks/{quote(owner.stack_name, safe='')}/"
                f"{quote(owner.stack_id, safe='')}/resources/"
                f"{quote(owner.resource_name, safe='')}/signal")

    def heat_signal_credentials(self) -> dict[str, str | None]:
        if self._keystone is None:
            raise HotplateError(UNSUPPORTED_TRANSPORTS[SignalTransport.HEAT_SIGNAL])
        return self._keystone.credentials()

    def metadata_server_url(self) -> str:
        return self._options.heat_metadata_server_url or "http://127.0.0.1:8000/v1/"

    def forget_signal_credentials(self) -> None:
        if self._keystone is not None:
            self._keystone.forget()
        for key in ("ec2_signed_url", "ec2_waitcondition_url", "access_key", "secret_key",
                    "signal_token"):
            if key in self._data.data():
                self._data.data_delete(key)
        self._store.forget_stack_user(self._owner.resource_id)

    def default_signal_transport(self) -> str:
        return self._options.default_deployment_signal_transport

    def default_software_config_transport(self) -> str:
        return self._options.default_software_config_transport
