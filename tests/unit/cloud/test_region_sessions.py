"""A cloud moved to another region, and the TLS choices a caller makes for one session
(Heat's RemoteStack ``context.insecure`` and ``ca_cert``), without a cloud: nothing here
authenticates until a request is sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from hotplate.cloud import Clouds, CloudSettings, EndpointNotFound
from hotplate.cloud.client import Cloud
from hotplate.cloud.credentials import TokenCredentials
from hotplate.cloud.sessions import ca_bundle

PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"


def _cloud() -> Cloud:
    clouds = Clouds(CloudSettings(region_name_for_services="RegionOne"))
    return clouds.for_credentials(TokenCredentials("t", auth_url="http://keystone:5000"))


def test_in_region_keeps_the_credentials_and_changes_the_region() -> None:
    home = _cloud()
    there = home.in_region("RegionTwo")
    assert (there.region, there.credentials) == ("RegionTwo", home.credentials)
    assert home.region == "RegionOne"


def test_no_credentials_no_endpoint() -> None:
    bare = Clouds(CloudSettings()).for_credentials(None)
    with pytest.raises(EndpointNotFound):
        bare.endpoint_url("heat", "orchestration")


def test_session_verification_follows_the_callers_choice() -> None:
    cloud = _cloud()
    assert cloud.session("heat").verify is True
    assert cloud.session("heat", insecure=True).verify is False
    path = cloud.session("heat", ca_cert=PEM).verify
    assert Path(path).read_text() == PEM
    # insecure wins over a certificate, as in Heat
    assert cloud.session("heat", ca_cert=PEM, insecure=True).verify is False


def test_a_ca_bundle_is_written_once_per_certificate() -> None:
    first, again = ca_bundle(PEM), ca_bundle(PEM)
    assert first == again and Path(first).read_text() == PEM
    other = ca_bundle(PEM.replace("MIIB", "MIIC"))
    assert other != first
    assert Path(first).parent.stat().st_mode & 0o777 == 0o700
