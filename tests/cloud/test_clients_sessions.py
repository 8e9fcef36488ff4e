"""The client layer against the real cloud: a connection from a real Keystone token (with
its catalog, or bare) and from a real trust, as Heat makes them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hotplate.cloud import (
    Clouds,
    CloudSettings,
    EndpointNotFound,
    TokenCredentials,
    TrustCredentials,
    TrusteeSettings,
)
from hotplate.cloud.client import Cloud as CallerCloud
from tests.cloud.clients import token_context
from tests.cloud.locate import Cloud

TRUSTEE = ("heat", "secret", "Default")
"""The cloud's service user, Heat's trustee (project service, roles admin and service)."""


@pytest.fixture(scope="module")
def clouds(cloud: Cloud) -> Clouds:
    return Clouds(CloudSettings(region_name_for_services=cloud.region))


def test_a_token_with_its_catalog_finds_endpoints_without_asking_keystone(
        cloud: Cloud, user_conn: Any, clouds: Clouds) -> None:
    caller = clouds.for_context(token_context(cloud, user_conn))
    assert caller.endpoint_exists("nova", "compute")
    assert caller.endpoint_exists("neutron", "network")
    assert caller.endpoint_exists("cinder", "volumev3")
    assert caller.endpoint_exists("glance", "image")
    assert not caller.endpoint_exists("swift", "object-store")
    assert "m1.tiny" in {flavor.name for flavor in caller.call(caller.compute.flavors)}
    with pytest.raises(EndpointNotFound, match="Could not find requested endpoint"):
        caller.service("swift")


def test_another_region_has_no_endpoints(cloud: Cloud, user_conn: Any, clouds: Clouds) -> None:
    ctxt = {**token_context(cloud, user_conn), "region_name": "NoSuchRegion"}
    assert not clouds.for_context(ctxt).endpoint_exists("nova", "compute")


def test_a_bare_token_is_checked_with_keystone(cloud: Cloud, user_conn: Any,
                                               clouds: Clouds) -> None:
    caller = clouds.for_context(token_context(cloud, user_conn, with_catalog=False))
    assert isinstance(caller.credentials, TokenCredentials)
    assert caller.endpoint_exists("nova", "compute")
    [public] = caller.call(lambda: list(caller.network.networks(name="public")))
    assert public.is_router_external


def test_no_credentials_is_no_catalog(clouds: Clouds) -> None:
    caller = clouds.for_context({"project_id": "admin", "is_admin": True})
    assert not caller.endpoint_exists("nova", "compute")
    with pytest.raises(EndpointNotFound):
        caller.compute  # noqa: B018


@pytest.fixture
def trust(cloud: Cloud, user_conn: Any, admin_conn: Any) -> Iterator[Any]:
    """A trust from the test user to the trustee, on the user's project; deleted after."""
    session = user_conn.session
    access = session.auth.get_access(session)
    [trustee] = admin_conn.identity.users(name=TRUSTEE[0])
    made = user_conn.identity.create_trust(
        trustor_user_id=access.user_id, trustee_user_id=trustee.id,
        project_id=access.project_id, impersonation=True,
        roles=[{"name": "member"}])
    try:
        yield made
    finally:
        user_conn.identity.delete_trust(made)


def test_a_trust_acts_as_the_trustor_on_its_project(cloud: Cloud, user_conn: Any,
                                                    trust: Any) -> None:
    name, password, domain = TRUSTEE
    settings = CloudSettings(
        region_name_for_services=cloud.region,
        trustee=TrusteeSettings(auth_url=cloud.auth_url, username=name, password=password,
                                user_domain_name=domain))
    caller: CallerCloud = Clouds(settings).for_credentials(TrustCredentials(trust.id))
    assert caller.endpoint_exists("nova", "compute")
    access = caller._access_info()
    trustor = user_conn.session.auth.get_access(user_conn.session)
    assert access.project_id == trustor.project_id
    assert access.user_id == trustor.user_id  # impersonation: the trustor acts
    assert "m1.tiny" in {flavor.name for flavor in caller.call(caller.compute.flavors)}


def test_a_trust_without_a_trustee_is_refused(cloud: Cloud) -> None:
    from hotplate.cloud.sessions import MissingCredentials

    caller = Clouds(CloudSettings()).for_credentials(TrustCredentials("x"))
    with pytest.raises(MissingCredentials, match=r"\[trustee\]"):
        caller.compute  # noqa: B018
