"""Finders by name or id against the real cloud, with Heat's texts for none and for many
(each as Heat 27.0.1 said it on this cloud), and errors classified as Heat's client
plugins classify them. Every object made here is deleted."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from hotplate.cloud import (
    CloudConflict,
    CloudError,
    CloudNotFound,
    Clouds,
    CloudSettings,
)
from hotplate.cloud.client import Cloud as CallerCloud
from tests.cloud.clients import token_context
from tests.cloud.locate import Cloud


@pytest.fixture(scope="module")
def caller(cloud: Cloud, user_conn: Any) -> CallerCloud:
    return Clouds(CloudSettings(region_name_for_services=cloud.region)).for_context(
        token_context(cloud, user_conn))


@pytest.fixture(scope="module")
def admin_caller(cloud: Cloud, admin_conn: Any) -> CallerCloud:
    return Clouds(CloudSettings(region_name_for_services=cloud.region)).for_context(
        token_context(cloud, admin_conn))


def _name() -> str:
    return f"hotplate-test-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def twin_networks(user_conn: Any) -> Iterator[tuple[str, list[Any]]]:
    """Two networks of one name (Neutron allows it)."""
    name = _name()
    made = [user_conn.network.create_network(name=name) for _ in range(2)]
    try:
        yield name, made
    finally:
        for network in made:
            user_conn.network.delete_network(network, ignore_missing=True)


def test_by_name_and_by_id(caller: CallerCloud, user_conn: Any) -> None:
    [flavor] = [f for f in user_conn.compute.flavors() if f.name == "m1.tiny"]
    assert caller.find("flavor", "m1.tiny") == flavor.id
    assert caller.find("flavor", flavor.id) == flavor.id
    [image] = user_conn.image.images(name="cirros-fake")
    assert caller.find("image", "cirros-fake") == image.id
    assert caller.find("image", image.id) == image.id
    [public] = user_conn.network.networks(name="public")
    assert caller.find("network", "public") == public.id
    assert caller.find("network", public.id) == public.id


@pytest.mark.parametrize(("kind", "text"), [
    ("flavor", "No Flavor matching {'name': 'nope'}. (HTTP 404)"),
    ("image", "No images matching {'name': 'nope'}."),
    ("network", "Unable to find network with name or id 'nope'"),
    ("port", "Unable to find port with name or id 'nope'"),
    ("security_group", "Unable to find security_group with name or id 'nope'"),
    ("volume", "The Volume (nope) could not be found."),
    ("volume_type", "The VolumeType (nope) could not be found."),
    ("keypair", "The Key (nope) could not be found."),
    ("server", "The Server (nope) could not be found."),
])
def test_none_found(caller: CallerCloud, kind: str, text: str) -> None:
    with pytest.raises(CloudNotFound) as caught:
        caller.find(kind, "nope")
    assert str(caught.value) == text


def test_keystone_finders_as_an_admin(admin_caller: CallerCloud, cloud: Cloud,
                                      user_conn: Any) -> None:
    access = user_conn.session.auth.get_access(user_conn.session)
    assert admin_caller.find("project", access.project_name) == access.project_id
    assert admin_caller.find("project", f"{access.project_name}{{Default}}") == (
        access.project_id)
    assert admin_caller.find("role", "member")
    with pytest.raises(CloudNotFound, match=r"^The KeystoneProject \(nope\) could not be "):
        admin_caller.find("project", "nope")


def test_many_found(caller: CallerCloud, twin_networks: tuple[str, list[Any]]) -> None:
    name, made = twin_networks
    with pytest.raises(CloudError) as caught:
        caller.find("network", name)
    assert str(caught.value) == (f"Multiple network matches found for name '{name}', use an "
                                 "ID to be more specific.")
    assert caller.find("network", made[1].id) == made[1].id


def test_a_missing_object_is_classified_not_found(caller: CallerCloud) -> None:
    with pytest.raises(CloudNotFound) as caught:
        caller.call(caller.compute.get_server, str(uuid.uuid4()))
    assert caught.value.status == 404


@pytest.fixture
def network_in_use(user_conn: Any) -> Iterator[Any]:
    network = user_conn.network.create_network(name=_name())
    subnet = user_conn.network.create_subnet(network_id=network.id, ip_version=4,
                                             cidr="10.99.0.0/28")
    port = user_conn.network.create_port(network_id=network.id)
    try:
        yield network
    finally:
        user_conn.network.delete_port(port, ignore_missing=True)
        user_conn.network.delete_subnet(subnet, ignore_missing=True)
        user_conn.network.delete_network(network, ignore_missing=True)


def test_deleting_a_network_in_use_is_classified_conflict(caller: CallerCloud,
                                                          network_in_use: Any) -> None:
    with pytest.raises(CloudConflict) as caught:
        caller.call(caller.network.delete_network, network_in_use.id)
    assert caught.value.status == 409
    assert caller.find("network", network_in_use.id) == network_in_use.id


def test_with_heats_cache_on_an_id_found_is_kept_and_a_miss_is_not(
        cloud: Cloud, user_conn: Any, caller: CallerCloud) -> None:
    """[cache] enabled: a network found by name is answered from the engine's memory
    (still after it is gone, as Heat's memoised finder answers), for every caller of that
    project; a name not found is asked again, so one made since is found."""
    keeping = Clouds(CloudSettings(region_name_for_services=cloud.region,
                                   finder_cache_ttl=60))
    name = _name()
    with pytest.raises(CloudNotFound):
        keeping.for_context(token_context(cloud, user_conn)).find("network", name)
    network = user_conn.network.create_network(name=name)
    try:
        assert keeping.for_context(token_context(cloud, user_conn)).find(
            "network", name) == network.id
    finally:
        user_conn.network.delete_network(network)
    assert keeping.for_context(token_context(cloud, user_conn)).find(
        "network", name) == network.id
    with pytest.raises(CloudNotFound):
        caller.find("network", name)  # no cache: the cloud says it is gone
