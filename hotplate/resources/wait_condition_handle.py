"""Wait condition handles: what a server signals to say "done" (or "failed").

``OS::Heat::WaitConditionHandle`` hands out the way to signal it through its
attributes, chosen by ``signal_transport`` (default TOKEN_SIGNAL): ``token``
and ``endpoint`` (a hotplate token that may only signal this resource, and
its signal URL), ``curl_cli`` (the curl command that sends a signal with
them) and ``signal`` (JSON: for CFN_SIGNAL a pre-signed ``alarm_url``; for
HEAT_SIGNAL, in Keystone mode, the stack user's credentials and its signal
URL as ``alarm_url``).
``AWS::CloudFormation::WaitConditionHandle``'s reference is its pre-signed
CFN wait condition URL, which ``cfn-signal`` posts to.
``OS::Heat::UpdateWaitConditionHandle`` is the CFN handle, replaced (so its
signals cleared and its URL new) on every update of its stack.

A signal merges into the handle's metadata under its id (rules:
wait_condition_data.py); the engine applies each id once, and writes the
metadata in one compare-and-swap with the signal's applied mark
(engine/worker/signal_delivery.py), then re-checks the wait conditions
waiting on the stack's signals at once.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any, ClassVar

from hotplate.model.errors import UpdateReplace
from hotplate.resources import wait_condition_data as wcd
from hotplate.resources.attributes import Attribute
from hotplate.resources.base import Resource
from hotplate.resources.constraints import AllowedValues
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.signal_responder import (
    SignalTransport,
    check_signal_transport,
    signal_endpoints,
)
from hotplate.resources.signals import row_metadata
from hotplate.resources.support import SupportStatus

__all__ = ["BaseWaitConditionHandle", "CfnWaitConditionHandle", "HeatWaitConditionHandle",
           "UpdateWaitConditionHandle"]

LOG = logging.getLogger(__name__)

SIGNAL_TRANSPORT = "signal_transport"
TOKEN, ENDPOINT, CURL_CLI, SIGNAL = "token", "endpoint", "curl_cli", "signal"


class _EveryKey(frozenset[str]):
    """Every metadata key: a handle's metadata is all signals, none from the template."""

    def __contains__(self, key: object) -> bool:
        return True


class BaseWaitConditionHandle(Resource):
    """What every handle shares: the metadata merge and the status it reads."""

    keys: ClassVar[wcd.SignalKeys] = wcd.HOT_KEYS
    managed_metadata = _EveryKey()
    """An update keeps the signals received (Heat's updates never reset metadata)."""
    signal_needs_metadata_updates: ClassVar[bool] = True
    """A signal changes data other resources read (a wait condition's ``data``)."""

    signal_id_keys: ClassVar[tuple[str, ...]] = (wcd.HOT_KEYS.unique_id,)
    """Where a signal's id is (resources/signals.py): a repeated id is applied once."""

    def handle_create(self) -> None:
        self.resource_id_set(self.physical_resource_name())

    def normalise_signal(self, details: Any, metadata: Mapping[str, Any]) -> Any:
        return details

    def handle_signal(self, details: Any = None) -> str | None:
        """Merge the signal into the metadata, numbered inside the compare-and-swap.

        Raises:
            InvalidSignal: the signal is not in the handle's format.
        """
        written: list[dict[str, Any]] = []

        def merge(metadata: dict[str, Any], _status: str) -> dict[str, Any]:
            signal = self.normalise_signal(details, metadata)
            merged, entry = wcd.merge_signal(self.keys, signal, metadata)
            written.append(entry)
            return merged

        row_metadata(self).metadata_update(merge)
        if not written:
            raise RuntimeError(f"the metadata of {self.name} could not be written")
        return wcd.signal_reason(self.keys, written[-1])

    def signal_metadata(self) -> dict[str, Any]:
        """The signals merged so far, as stored now."""
        return row_metadata(self).metadata_get()

    def clear_signals(self) -> None:
        """Forget every signal (a wait condition being deleted)."""
        row_metadata(self).metadata_update(lambda _metadata, _status: {}, force=True)


class HeatWaitConditionHandle(BaseWaitConditionHandle):
    """Resource for managing instance signals.

    The main points of this resource are:
      - have no dependencies (so the instance can reference it).
      - create credentials to allow for signalling from the instance.
      - handle signals from the instance, validate and store result.
    """

    support_status = SupportStatus(version="2014.2")
    properties_schema = {
        SIGNAL_TRANSPORT: Schema(
            Schema.STRING,
            "How the client will signal the wait condition. CFN_SIGNAL will allow an HTTP "
            "POST to a CFN keypair signed URL. TEMP_URL_SIGNAL will create a Swift TempURL "
            "to be signalled via HTTP PUT. HEAT_SIGNAL will allow calls to the Heat API "
            "resource-signal using the provided keystone credentials. ZAQAR_SIGNAL will "
            "create a dedicated zaqar queue to be signalled using the provided keystone "
            "credentials. TOKEN_SIGNAL will allow and HTTP POST to a Heat API endpoint with "
            "the provided keystone token. NO_SIGNAL will result in the resource going to a "
            "signalled state without waiting for any signal.",
            default=SignalTransport.TOKEN_SIGNAL.value,
            constraints=[AllowedValues(tuple(t.value for t in SignalTransport))],
            support_status=SupportStatus(version="6.0.0"),
        ),
    }
    attributes_schema = {
        TOKEN: Attribute("Token for stack-user which can be used for signalling handle when "
                         "signal_transport is set to TOKEN_SIGNAL. None for all other signal "
                         "transports.", type=Attribute.STRING),
        ENDPOINT: Attribute("Endpoint/url which can be used for signalling handle when "
                            "signal_transport is set to TOKEN_SIGNAL. None for all other "
                            "signal transports.", type=Attribute.STRING),
        CURL_CLI: Attribute("Convenience attribute, provides curl CLI command prefix, which "
                            "can be used for signalling handle completion or failure when "
                            "signal_transport is set to TOKEN_SIGNAL. You can signal success "
                            "by adding --data-binary '{\"status\": \"SUCCESS\"}' , or signal "
                            "failure by adding --data-binary '{\"status\": \"FAILURE\"}'. "
                            "This attribute is set to None for all other signal transports.",
                            type=Attribute.STRING),
        SIGNAL: Attribute("JSON serialized map that includes the endpoint, token and/or other "
                          "attributes the client must use for signalling this handle. The "
                          "contents of this map depend on the type of signal selected in the "
                          "signal_transport property.", type=Attribute.STRING),
    }

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        """A transport hotplate cannot serve is refused at validation."""
        if props.get(SIGNAL_TRANSPORT) is not None:
            check_signal_transport(str(props[SIGNAL_TRANSPORT]), (*path, SIGNAL_TRANSPORT))

    def _transport(self) -> str:
        return str(self.properties[SIGNAL_TRANSPORT])

    def handle_create(self) -> None:
        super().handle_create()
        if self._transport() == SignalTransport.TOKEN_SIGNAL:
            endpoints = signal_endpoints(self)
            endpoints.signal_token()  # made now, as Heat makes the stack user's token

    def handle_delete(self) -> None:
        if self.resource_id is not None and self._transport() != SignalTransport.NO_SIGNAL:
            try:
                signal_endpoints(self).forget_signal_credentials()
            except RuntimeError:  # a context with no signal endpoints made none
                LOG.debug("no signal credentials to forget for %s", self.name)

    def normalise_signal(self, details: Any, metadata: Mapping[str, Any]) -> Any:
        return wcd.normalise_hot_signal(details, metadata)

    def _token_and_endpoint(self) -> tuple[str, str] | None:
        if self._transport() != SignalTransport.TOKEN_SIGNAL:
            return None
        endpoints = signal_endpoints(self)
        return endpoints.signal_token(), endpoints.heat_signal_url()

    def _resolve_attribute(self, name: str) -> Any:
        if not self.resource_id:
            return None
        if name == SIGNAL:
            return json.dumps(self._signal())
        found = self._token_and_endpoint()
        if found is None:
            return None
        token, endpoint = found
        if name == TOKEN:
            return token
        if name == ENDPOINT:
            return endpoint
        if name == CURL_CLI:
            return (f"curl -i -X POST -H 'X-Auth-Token: {token}' "
                    "-H 'Content-Type: application/json' "
                    f"-H 'Accept: application/json' {endpoint}")
        return None

    def _signal(self) -> dict[str, Any] | None:
        """Heat's signal details for the transport (None for TOKEN_SIGNAL, as Heat's):
        HEAT_SIGNAL's are the stack user's credentials and the signal URL under the
        stack user project (``alarm_url``)."""
        transport = self._transport()
        if transport == SignalTransport.CFN_SIGNAL:
            return {"alarm_url": signal_endpoints(self).cfn_signal_url("waitcondition")}
        if transport == SignalTransport.HEAT_SIGNAL:
            endpoints = signal_endpoints(self)
            signal: dict[str, Any] = dict(endpoints.heat_signal_credentials())
            signal["alarm_url"] = endpoints.heat_signal_url()
            return signal
        if transport == SignalTransport.NO_SIGNAL:
            return {}
        return None


class CfnWaitConditionHandle(BaseWaitConditionHandle):
    """AWS WaitConditionHandle resource.

    the main point of this class is to :
    have no dependencies (so the instance can reference it)
    generate a unique url (to be returned in the reference)
    then the cfn-signal will use this url to post to and
    WaitCondition will poll it to see if has been written to.
    """

    heat_class_name = "WaitConditionHandle"

    support_status = SupportStatus(version="2014.1")
    keys = wcd.CFN_KEYS
    signal_id_keys = (wcd.CFN_KEYS.unique_id,)

    def get_reference_id(self) -> str:
        """The pre-signed CFN wait condition URL (the name before there is one)."""
        if not self.resource_id:
            return self.name
        try:
            return signal_endpoints(self).cfn_signal_url("waitcondition")
        except RuntimeError:  # a context without endpoints (none to sign with)
            return self.name

    def handle_delete(self) -> None:
        if self.resource_id is not None:
            try:
                signal_endpoints(self).forget_signal_credentials()
            except RuntimeError:
                LOG.debug("no signal credentials to forget for %s", self.name)

    def handle_signal(self, details: Any = None) -> str | None:
        """A CFN signal: all of Status, UniqueId, Data and Reason; nothing is a no-op."""
        if details is None:
            return None
        return super().handle_signal(details)


class UpdateWaitConditionHandle(CfnWaitConditionHandle):
    """WaitConditionHandle that clears signals and changes handle on update.

    This works similarly to an AWS::CloudFormation::WaitConditionHandle, except
    that on update it clears all signals received and changes the handle. Using
    this handle means that you must setup the signal senders to send their
    signals again any time the update handle changes. This allows us to roll
    out new configurations and be confident that they are rolled out once
    UPDATE COMPLETE is reached.
    """

    always_updates = True

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> None:
        raise UpdateReplace(self.name)
