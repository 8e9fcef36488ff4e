"""How a resource tells a server where to signal it: transports and the endpoint port.

A resource that waits for a server (a wait condition handle, a software
deployment, a scaling policy's alarm URL) hands the server a way to call
back, chosen by its ``signal_transport`` property (Heat's values):

==================  ===================================================  ===========
transport           what the server gets                                  standalone
==================  ===================================================  ===========
CFN_SIGNAL          a pre-signed heat-api-cfn URL (EC2 SigV2, stack user) yes
TOKEN_SIGNAL        a hotplate API token limited to this one resource     yes
NO_SIGNAL           nothing: the resource does not wait                   yes
HEAT_SIGNAL         Keystone password credentials of a stack user         no
TEMP_URL_SIGNAL     a Swift TempURL                                       no
ZAQAR_SIGNAL        a Zaqar queue                                         no
==================  ===================================================  ===========

HEAT_SIGNAL is served when the engine has a stack user domain in Keystone
(``serve_keystone_signals``, set by each engine built, app.py): the
resource's stack user then gets a password, and the server signals the
API with that user's Keystone token. Standalone, and always for Swift and
Zaqar, which hotplate does not use, the transport is refused when the
template is validated (``check_signal_transport``), naming what works.

The URLs, keys and tokens come from the engine (``SignalEndpoints``): the
plugin asks its context, never the database. Preview and validation
contexts answer placeholders, as Heat's previews show no real URLs.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Literal, Protocol, cast

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.base import Resource

__all__ = [
    "HEAT_SIGNAL_CREDENTIALS",
    "SignalEndpoints",
    "SignalKind",
    "SignalTransport",
    "UNSUPPORTED_TRANSPORTS",
    "WORKING_TRANSPORTS",
    "check_signal_transport",
    "keystone_signals_served",
    "serve_keystone_signals",
    "signal_endpoints",
]

SignalKind = Literal["signal", "waitcondition"]
"""The heat-api-cfn path a pre-signed URL points at: ``/v1/signal`` or ``/v1/waitcondition``."""


class SignalTransport(StrEnum):
    """Heat's ``signal_transport`` values."""

    CFN_SIGNAL = "CFN_SIGNAL"
    TEMP_URL_SIGNAL = "TEMP_URL_SIGNAL"
    HEAT_SIGNAL = "HEAT_SIGNAL"
    NO_SIGNAL = "NO_SIGNAL"
    ZAQAR_SIGNAL = "ZAQAR_SIGNAL"
    TOKEN_SIGNAL = "TOKEN_SIGNAL"


WORKING_TRANSPORTS: tuple[SignalTransport, ...] = (
    SignalTransport.CFN_SIGNAL, SignalTransport.TOKEN_SIGNAL, SignalTransport.NO_SIGNAL)
"""The transports hotplate serves by itself."""

_WORKING = ", ".join(WORKING_TRANSPORTS)

UNSUPPORTED_TRANSPORTS: dict[SignalTransport, str] = {
    SignalTransport.HEAT_SIGNAL: (
        "signal_transport HEAT_SIGNAL requires Keystone password authentication, "
        f"not configured; use one of {_WORKING}"),
    SignalTransport.TEMP_URL_SIGNAL: (
        "signal_transport TEMP_URL_SIGNAL requires Swift, not configured; "
        f"use one of {_WORKING}"),
    SignalTransport.ZAQAR_SIGNAL: (
        "signal_transport ZAQAR_SIGNAL requires Zaqar, not configured; "
        f"use one of {_WORKING}"),
}
"""Why each transport hotplate cannot serve is refused, naming those it can."""

HEAT_SIGNAL_CREDENTIALS = ("auth_url", "username", "user_id", "password", "project_id",
                           "domain_id", "region_name")
"""The keys of a stack user's HEAT_SIGNAL credentials (Heat's
``_get_heat_signal_credentials``); ``region_name`` may be None."""

_KEYSTONE_SIGNALS = {"served": False}


def serve_keystone_signals(served: bool = True) -> None:
    """Say whether this process's engine serves HEAT_SIGNAL (it has a stack user domain).

    A property of the engine's configuration, the same for every stack it runs,
    which validation (class methods, with no engine context) must know: set once
    by the engine's wiring.
    """
    _KEYSTONE_SIGNALS["served"] = served


def keystone_signals_served() -> bool:
    """Whether HEAT_SIGNAL passes validation (see ``serve_keystone_signals``)."""
    return _KEYSTONE_SIGNALS["served"]


def check_signal_transport(transport: str, path: str | Sequence[str | int]) -> None:
    """Refuse a transport that needs a service hotplate does not have.

    ``path`` names the property (``resources.dep.properties.signal_transport``,
    as a dotted string or a tuple of keys); the error carries it. Unknown
    values are left to the property's own ``AllowedValues`` constraint.

    Raises:
        StackValidationFailed: TEMP_URL_SIGNAL or ZAQAR_SIGNAL; HEAT_SIGNAL
            unless the engine serves it.
    """
    try:
        chosen = SignalTransport(transport)
    except ValueError:
        return
    if chosen is SignalTransport.HEAT_SIGNAL and keystone_signals_served():
        return
    reason = UNSUPPORTED_TRANSPORTS.get(chosen)
    if reason is not None:
        where = tuple(path.split(".")) if isinstance(path, str) else tuple(path)
        raise StackValidationFailed(reason, where)


class SignalEndpoints(Protocol):
    """What the engine's resource context gives a signalled resource."""

    def cfn_signal_url(self, kind: SignalKind) -> str:
        """A pre-signed heat-api-cfn URL (``<base>/v1/signal/<arn>`` or
        ``/v1/waitcondition/<arn>``), EC2 SigV2 query-signed with this resource's
        stack-user keys; made and stored on first use."""
        ...

    def stack_user_credentials(self) -> tuple[str, str]:
        """(access key id, secret key) of this resource's stack user, made on
        first use; the secret is kept redacted in resource_data."""
        ...

    def signal_token(self) -> str:
        """A hotplate API token that may only signal, and read the metadata of,
        this one resource (TOKEN_SIGNAL); made on first use."""
        ...

    def heat_signal_url(self, *, stack_user_project: bool = True) -> str:
        """``<api>/v1/<project>/stacks/<name>/<id>/resources/<resource>/signal``; the
        project is the stack user project in Keystone mode (where the stack user's
        token is scoped), unless ``stack_user_project`` is False (the owner's)."""
        ...

    def heat_signal_credentials(self) -> dict[str, str | None]:
        """HEAT_SIGNAL's credentials (``HEAT_SIGNAL_CREDENTIALS``): this resource's
        stack user, made on first use with a password kept redacted in resource_data.

        Raises:
            HotplateError: the stack has no stack user project (not Keystone mode).
        """
        ...

    def metadata_server_url(self) -> str:
        """``heat_metadata_server_url``: the CFN API base an agent polls."""
        ...

    def forget_signal_credentials(self) -> None:
        """Drop this resource's stack user, keys, URLs and token (on delete)."""
        ...

    def create_stack_user(self, password: str | None = None) -> str | None:
        """This resource's stack user, made now (with ``password``, else one of its
        own) if not yet: its Keystone id; None standalone, where a stack user is
        nothing but its keys (Heat's ``_create_user``)."""
        ...

    def enable_stack_user(self, enabled: bool) -> None:
        """Suspend (False) or resume (True) this resource's Keystone stack user; nothing
        standalone (Heat's ``handle_suspend`` / ``handle_resume`` of a stack user)."""
        ...

    def forget_keypair(self) -> None:
        """Drop this resource's EC2 keypair (and the URLs signed with it), keeping its
        stack user (Heat's ``_delete_keypair``)."""
        ...

    def default_signal_transport(self) -> str:
        """``[DEFAULT] default_deployment_signal_transport`` (CFN_SIGNAL)."""
        ...

    def default_software_config_transport(self) -> str:
        """``[DEFAULT] default_software_config_transport`` (POLL_SERVER_CFN)."""
        ...


def signal_endpoints(resource: Resource) -> SignalEndpoints:
    """The resource's signal endpoint port; the engine's context provides it.

    Raises:
        RuntimeError: the context offers no signal endpoints.
    """
    if not callable(getattr(resource.ctx, "cfn_signal_url", None)):
        raise RuntimeError("this engine context gives no signal endpoints")
    return cast(SignalEndpoints, resource.ctx)
