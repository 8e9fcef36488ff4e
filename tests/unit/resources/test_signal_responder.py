"""The signal transports hotplate serves, refuses, and the endpoint port's lookup."""

from __future__ import annotations

import pytest

from hotplate.model.errors import StackValidationFailed
from hotplate.resources import Resource
from hotplate.resources.signal_responder import (
    SignalTransport,
    check_signal_transport,
    keystone_signals_served,
    serve_keystone_signals,
    signal_endpoints,
)
from tests.unit.resources.fakes import FakeContext

PATH = "resources.dep.properties.signal_transport"


def test_transport_values_are_heats() -> None:
    assert [t.value for t in SignalTransport] == [
        "CFN_SIGNAL", "TEMP_URL_SIGNAL", "HEAT_SIGNAL", "NO_SIGNAL", "ZAQAR_SIGNAL",
        "TOKEN_SIGNAL"]


@pytest.mark.parametrize("transport", ["CFN_SIGNAL", "TOKEN_SIGNAL", "NO_SIGNAL", "BOGUS"])
def test_working_and_unknown_transports_pass(transport: str) -> None:
    check_signal_transport(transport, PATH)


@pytest.mark.parametrize(("transport", "needs"), [
    ("HEAT_SIGNAL", "requires Keystone password authentication"),
    ("TEMP_URL_SIGNAL", "requires Swift, not configured"),
    ("ZAQAR_SIGNAL", "requires Zaqar, not configured"),
])
def test_unserved_transports_are_refused_naming_the_path(transport: str, needs: str) -> None:
    with pytest.raises(StackValidationFailed) as caught:
        check_signal_transport(transport, PATH)
    assert caught.value.path == ("resources", "dep", "properties", "signal_transport")
    assert needs in str(caught.value)
    assert str(caught.value).startswith(f"{PATH}: signal_transport {transport} ")
    assert "CFN_SIGNAL, TOKEN_SIGNAL, NO_SIGNAL" in str(caught.value)


def test_heat_signal_passes_when_the_engine_serves_it_the_others_still_refused() -> None:
    serve_keystone_signals(True)
    try:
        assert keystone_signals_served()
        check_signal_transport("HEAT_SIGNAL", PATH)
        with pytest.raises(StackValidationFailed, match="requires Swift"):
            check_signal_transport("TEMP_URL_SIGNAL", PATH)
    finally:
        serve_keystone_signals(False)
    with pytest.raises(StackValidationFailed, match="requires Keystone"):
        check_signal_transport("HEAT_SIGNAL", PATH)


TUPLE_PATH = ("resources", "h", "properties", "signal_transport")


def test_a_tuple_path_is_kept() -> None:
    with pytest.raises(StackValidationFailed) as caught:
        check_signal_transport("ZAQAR_SIGNAL", TUPLE_PATH)
    assert caught.value.path == TUPLE_PATH


def test_a_context_without_endpoints_is_refused() -> None:
    with pytest.raises(RuntimeError, match="no signal endpoints"):
        signal_endpoints(Resource("r", {}, FakeContext()))


class _EndpointContext(FakeContext):
    def cfn_signal_url(self, kind: str) -> str:
        return f"http://cfn/v1/{kind}/arn"


def test_a_context_with_endpoints_is_the_port() -> None:
    ctx = _EndpointContext()
    assert signal_endpoints(Resource("r", {}, ctx)).cfn_signal_url("signal") == (
        "http://cfn/v1/signal/arn")
