"""The client layer's calls without a cloud: errors classified as Heat's plugins classify
them, transient ones retried with back-off up to ``client_retry_limit`` times."""

from __future__ import annotations

import pytest
import requests
from keystoneauth1 import exceptions as ks_exc
from openstack import exceptions as sdk_exc

from hotplate.cloud import (
    CloudConflict,
    CloudError,
    CloudNotFound,
    CloudOverLimit,
    Clouds,
    CloudSettings,
    CloudTransient,
    CloudUnavailable,
    EndpointNotFound,
    classify,
)
from hotplate.cloud import client as client_module


def _http(status: int, message: str = "failed", details: str = "") -> Exception:
    return sdk_exc.HttpException(message=message, http_status=status, details=details)


@pytest.mark.parametrize(("exc", "kind"), [
    (sdk_exc.ResourceNotFound("gone"), CloudNotFound),
    (_http(404), CloudNotFound),
    (_http(409), CloudConflict),
    (_http(409, details="OverQuota: Quota exceeded for resources: ['port']."), CloudOverLimit),
    (_http(413), CloudOverLimit),
    (_http(429), CloudOverLimit),
    (_http(500), CloudTransient),
    (_http(502), CloudUnavailable),
    (_http(503), CloudUnavailable),
    (_http(504), CloudUnavailable),
    (_http(501), CloudError),
    (_http(400), CloudError),
    (ks_exc.ConnectFailure("refused"), CloudUnavailable),
    (ks_exc.ConnectTimeout("timed out"), CloudUnavailable),
    (requests.ConnectionError("reset"), CloudUnavailable),
    (ks_exc.EndpointNotFound(), EndpointNotFound),
    (ks_exc.EmptyCatalog(), EndpointNotFound),
])
def test_classify(exc: Exception, kind: type[CloudError]) -> None:
    found = classify(exc)
    assert type(found) is kind


def test_an_api_away_is_a_transient_failure_too() -> None:
    """Retried by the client layer first; a plugin's action waits only after that."""
    assert issubclass(CloudUnavailable, CloudTransient)


def test_other_errors_are_not_the_clouds() -> None:
    assert classify(ValueError("x")) is None


def test_endpoint_not_found_reads_as_keystoneauth_says() -> None:
    assert str(classify(ks_exc.EndpointNotFound())) == (
        "Could not find requested endpoint in Service Catalog.")


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module, "FIRST_BACKOFF_SECS", 0.01)


def _flaky(failures: int, exc: Exception) -> tuple[list[int], object]:
    calls: list[int] = []

    def call() -> str:
        calls.append(1)
        if len(calls) <= failures:
            raise exc
        return "done"
    return calls, call


def test_transient_errors_are_retried(quick: None) -> None:
    cloud = Clouds(CloudSettings(client_retry_limit=2)).for_credentials(None)
    calls, call = _flaky(2, _http(503, "Service Unavailable"))
    assert cloud.call(call) == "done"  # type: ignore[arg-type]
    assert len(calls) == 3


def test_retries_stop_at_the_limit(quick: None) -> None:
    cloud = Clouds(CloudSettings(client_retry_limit=1)).for_credentials(None)
    calls, call = _flaky(5, requests.ConnectionError("reset"))
    with pytest.raises(CloudTransient, match="reset"):
        cloud.call(call)  # type: ignore[arg-type]
    assert len(calls) == 2


def test_other_errors_are_not_retried(quick: None) -> None:
    cloud = Clouds(CloudSettings(client_retry_limit=3)).for_credentials(None)
    calls, call = _flaky(5, _http(409, "in use"))
    with pytest.raises(CloudConflict, match="in use"):
        cloud.call(call)  # type: ignore[arg-type]
    assert len(calls) == 1


def test_settings_follow_heats_client_options() -> None:
    from hotplate.cloud import ClientOptions

    settings = CloudSettings(
        clients=ClientOptions(endpoint_type="internalURL", insecure=False, ca_file="/ca"),
        per_client={"nova": ClientOptions(endpoint_type="admin", insecure=True)})
    assert settings.interface("nova") == "admin"
    assert settings.interface("neutron") == "internal"
    assert settings.verify("nova") is False
    assert settings.verify("neutron") == "/ca"
