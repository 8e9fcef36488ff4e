"""Finding a cloud object by name or id, with Heat's answers for none and for many.

Each kind is looked up the way Heat's client plugin looks it up, and a miss
reads as Heat's does (its client library's words where Heat passes them on)::

    flavor         id, then name       No Flavor matching {'name': 'x'}. (HTTP 404)
    image          id if UUID-like,    No images matching {'name': 'x'}.
                   then name           No images unique match found for {'name': 'x'}.
    keypair        name                The Key (x) could not be found.
    host           hypervisor name     No hypervisor matching 'x' could be found. (HTTP 404)
                   pattern (Nova's search; the first match)
    server         id                  The Server (x) could not be found.
    volume, volume_snapshot, volume_backup
                   id                  The Volume (x) / VolumeSnapshot / Volume backup ...
    volume_type    name or id          The VolumeType (x) could not be found.
    qos_specs      id, then name       No QoSSpecs matching {'name': 'x'}. (HTTP 404)
    network, subnet, port, router, security_group, subnetpool, address_scope,
    qos_policy     id if UUID-like,    Unable to find network with name or id 'x'
                   then name           Multiple network matches found for name 'x', use
                                       an ID to be more specific.
    project, domain, group, role, user, region, service (keystone; 'name{domain}'
    names a domain)                    The KeystoneProject (x) could not be found.

A lookup returns the object's id. A miss is a ``CloudNotFound`` and several
matches a ``CloudError``, each a class named as the client Heat finds with names its
exception (``NotFound``, ``EntityMatchNotFound``, ``NeutronClientNoUniqueMatch``...):
a name resolved again when a resource is made, and gone since its validation, fails
it with Heat's words. The service's own failures are classified
(``errors.classify``) by the caller's ``Cloud.call``.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hotplate.cloud.errors import CloudError, CloudNotFound

if TYPE_CHECKING:
    from hotplate.cloud.client import Cloud

__all__ = ["FINDERS", "Finder", "find"]


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


def _ignore_missing(fetch: Callable[[], Any]) -> Any:
    """The object, or None when the service answers 404."""
    from hotplate.cloud.errors import classify

    try:
        return fetch()
    except Exception as exc:
        if isinstance(classify(exc), CloudNotFound):
            return None
        raise


class NotFound(CloudNotFound):
    """novaclient's, cinderclient's and neutronclient's miss."""


class NoUniqueMatch(CloudError):
    """novaclient's and cinderclient's ``find`` matching several."""


class NeutronClientNoUniqueMatch(CloudError):
    """neutronclient's name matching several."""


class EntityMatchNotFound(CloudNotFound):
    """Heat's own finders' miss (Glance's images)."""


class EntityUniqueMatchNotFound(CloudError):
    """Heat's own finders' name matching several (Glance's images)."""


class KeystoneServiceNameConflict(CloudError):
    """Heat's: a service named, not given by id, that several services share."""


class EntityNotFound(CloudNotFound):
    """Heat's ``The <Entity> (<name>) could not be found.``"""


def _entity(entity: str, name: str) -> CloudNotFound:
    return EntityNotFound(f"The {entity} ({name}) could not be found.")


def _flavor(cloud: Cloud, value: str) -> str:
    compute = cloud.compute
    found = _ignore_missing(lambda: compute.get_flavor(value))
    if found is not None:
        return str(found.id)
    matches = [f for f in compute.flavors() if f.name == value]
    if not matches:
        raise NotFound(f"No Flavor matching {{'name': {value!r}}}. (HTTP 404)")
    if len(matches) > 1:
        raise NoUniqueMatch(f"No Flavor unique match found for {{'name': {value!r}}}.")
    return str(matches[0].id)


def _image(cloud: Cloud, value: str) -> str:
    image = cloud.image
    if _is_uuid(value):
        found = _ignore_missing(lambda: image.get_image(value))
        if found is not None:
            return str(found.id)
    matches = list(image.images(name=value))
    if not matches:
        raise EntityMatchNotFound(f"No images matching {{'name': {value!r}}}.")
    if len(matches) > 1:
        raise EntityUniqueMatchNotFound(f"No images unique match found for {{'name': {value!r}}}.")
    return str(matches[0].id)


def _by_id(service: str, getter: str, entity: str,
           key: Callable[[Any], str] = lambda obj: str(obj.id)) -> Callable[[Cloud, str], str]:
    def lookup(cloud: Cloud, value: str) -> str:
        proxy = getattr(cloud, service)
        found = _ignore_missing(lambda: getattr(proxy, getter)(value))
        if found is None:
            raise _entity(entity, value)
        return key(found)
    return lookup


def _host(cloud: Cloud, value: str) -> str:
    """novaclient's ``hypervisors.search``, as Heat's ``nova.host`` constraint asks it:
    Nova's own 404 text when no hypervisor's name matches."""
    from urllib.parse import quote

    from keystoneauth1 import exceptions as ks_exc

    url = f"/os-hypervisors?hypervisor_hostname_pattern={quote(value, safe='')}"
    response = cloud.compute.get(url, microversion="2.53", raise_exc=False)
    if response.status_code == 404:
        raise NotFound(f"No hypervisor matching '{value}' could be found. (HTTP 404)",
                            404)
    if response.status_code >= 400:
        raise ks_exc.from_response(response, "GET", url)
    return str(response.json()["hypervisors"][0]["hypervisor_hostname"])


def _volume_type(cloud: Cloud, value: str) -> str:
    # "None" lists private types too (those the caller may see), as cinderclient asks.
    for vtype in cloud.block_storage.types(is_public="None"):
        if value in (vtype.name, vtype.id):
            return str(vtype.id)
    raise _entity("VolumeType", value)


def _qos_specs(cloud: Cloud, value: str) -> str:
    """Heat's get_qos_specs: by id, else the one QoS specs of that name."""
    storage = cloud.block_storage
    found = _ignore_missing(lambda: storage.get_qos_spec(value))
    if found is not None:
        return str(found.id)
    matches = [q for q in storage.qos_specs() if q.name == value]
    if not matches:
        raise NotFound(f"No QoSSpecs matching {{'name': {value!r}}}. (HTTP 404)")
    if len(matches) > 1:
        raise NoUniqueMatch(f"No QoSSpecs unique match found for {{'name': {value!r}}}.")
    return str(matches[0].id)


def _neutron(resource: str, lister: str, extension: str | None = None,
             ) -> Callable[[Cloud, str], str]:
    """neutronclient's ``find_resourceid_by_name_or_id``, as Heat calls it."""
    def lookup(cloud: Cloud, value: str) -> str:
        if extension is not None and not cloud.has_extension("neutron", extension):
            raise _entity("neutron extension", extension)
        objects = getattr(cloud.network, lister)
        if _is_uuid(value):
            by_id = list(objects(id=value))
            if by_id:
                return str(by_id[0].id)
        by_name = list(objects(name=value))
        if len(by_name) > 1:
            raise NeutronClientNoUniqueMatch(
                f"Multiple {resource} matches found for name '{value}', use an "
                "ID to be more specific.")
        if not by_name:
            raise NotFound(f"Unable to find {resource} with name or id '{value}'")
        return str(by_name[0].id)
    return lookup


_WITH_DOMAIN = re.compile(r"\{(.*?)\}$")


def _keystone(entity: str, getter: str, lister: str, *, domains: bool = True,
              unique: bool = False) -> Callable[[Cloud, str], str]:
    """Heat's keystone plugin: by id, then by name (within ``name{domain}``'s domain)."""
    def lookup(cloud: Cloud, value: str) -> str:
        if value == "":
            raise _entity(entity, value)
        identity = cloud.identity
        name, domain = value, None
        found_domain = _WITH_DOMAIN.search(value) if domains else None
        if found_domain:
            name = value[:found_domain.start()]
            try:
                domain = _keystone("KeystoneDomain", "get_domain", "domains",
                                   domains=False)(cloud, found_domain.group(1))
            except CloudNotFound:
                raise _entity(entity, value) from None
        found = _ignore_missing(lambda: getattr(identity, getter)(name))
        if found is not None:
            return str(found.id)
        filters: dict[str, Any] = {"name": name}
        if domain is not None:
            filters["domain_id"] = domain
        matches = [obj for obj in getattr(identity, lister)(**filters) if obj.name == name]
        if unique and len(matches) > 1:
            raise KeystoneServiceNameConflict(
                f"Keystone has more than one service with same name {name}. "
                "Please use service id instead of name")
        if not matches:
            raise _entity(entity, name)
        return str(matches[0].id)
    return lookup


def _region(cloud: Cloud, value: str) -> str:
    if value == "":
        raise _entity("KeystoneRegion", value)
    found = _ignore_missing(lambda: cloud.identity.get_region(value))
    if found is None:
        raise _entity("KeystoneRegion", value)
    return str(found.id)


def _sdk_find(service: str, finder: str) -> Callable[[Cloud, str], str]:
    """openstacksdk's own find (by id, then name), for the services Heat reaches
    through openstacksdk or whose texts are the SDK's."""
    def lookup(cloud: Cloud, value: str) -> str:
        proxy = getattr(cloud, service)
        return str(getattr(proxy, finder)(value, ignore_missing=False).id)
    return lookup


@dataclass(frozen=True, slots=True)
class Finder:
    client: str
    """The Heat client whose service answers (its catalog entry, interface, TLS)."""
    lookup: Callable[[Cloud, str], str]


FINDERS: Mapping[str, Finder] = {
    "flavor": Finder("nova", _flavor),
    "keypair": Finder("nova", _by_id("compute", "get_keypair", "Key",
                                     key=lambda obj: str(obj.name))),
    "server": Finder("nova", _by_id("compute", "get_server", "Server")),
    "host": Finder("nova", _host),
    "image": Finder("glance", _image),
    "volume": Finder("cinder", _by_id("block_storage", "get_volume", "Volume")),
    "volume_snapshot": Finder("cinder", _by_id("block_storage", "get_snapshot",
                                               "VolumeSnapshot")),
    "volume_backup": Finder("cinder", _by_id("block_storage", "get_backup", "Volume backup")),
    "volume_type": Finder("cinder", _volume_type),
    "qos_specs": Finder("cinder", _qos_specs),
    "network": Finder("neutron", _neutron("network", "networks")),
    "subnet": Finder("neutron", _neutron("subnet", "subnets")),
    "port": Finder("neutron", _neutron("port", "ports")),
    "router": Finder("neutron", _neutron("router", "routers")),
    "security_group": Finder("neutron", _neutron("security_group", "security_groups")),
    "subnetpool": Finder("neutron", _neutron("subnetpool", "subnet_pools")),
    "address_scope": Finder("neutron", _neutron("address_scope", "address_scopes",
                                                "address-scope")),
    "qos_policy": Finder("neutron", _neutron("policy", "qos_policies", "qos")),
    "segment": Finder("openstack", _sdk_find("network", "find_segment")),
    "project": Finder("keystone", _keystone("KeystoneProject", "get_project", "projects")),
    "domain": Finder("keystone", _keystone("KeystoneDomain", "get_domain", "domains",
                                           domains=False)),
    "group": Finder("keystone", _keystone("KeystoneGroup", "get_group", "groups")),
    "role": Finder("keystone", _keystone("KeystoneRole", "get_role", "roles")),
    "user": Finder("keystone", _keystone("KeystoneUser", "get_user", "users")),
    "service": Finder("keystone", _keystone("KeystoneService", "get_service", "services",
                                            domains=False, unique=True)),
    "region": Finder("keystone", _region),
    "share_network": Finder("manila", _sdk_find("shared_file_system", "find_share_network")),
    "share_snapshot": Finder("manila", _sdk_find("shared_file_system",
                                                 "find_share_snapshot")),
    "loadbalancer": Finder("octavia", _sdk_find("load_balancer", "find_load_balancer")),
    "listener": Finder("octavia", _sdk_find("load_balancer", "find_listener")),
    "pool": Finder("octavia", _sdk_find("load_balancer", "find_pool")),
    "l7policy": Finder("octavia", _sdk_find("load_balancer", "find_l7_policy")),
    "lb_flavor": Finder("octavia", _sdk_find("load_balancer", "find_flavor")),
    "lb_flavor_profile": Finder("octavia", _sdk_find("load_balancer", "find_flavor_profile")),
    "lb_availability_zone": Finder("octavia", _sdk_find("load_balancer",
                                                        "find_availability_zone")),
    "lb_availability_zone_profile": Finder("octavia", _sdk_find(
        "load_balancer", "find_availability_zone_profile")),
    "zone": Finder("designate", _sdk_find("dns", "find_zone")),
    "secret": Finder("barbican", _sdk_find("key_manager", "find_secret")),
    "container": Finder("barbican", _sdk_find("key_manager", "find_container")),
    "baremetal_node": Finder("ironic", _sdk_find("baremetal", "find_node")),
    "baremetal_portgroup": Finder("ironic", _sdk_find("baremetal", "find_port_group")),
    "workflow": Finder("mistral", _sdk_find("workflow", "find_workflow")),
    "queue": Finder("zaqar", _by_id("message", "get_queue", "Queue")),
    "database_flavor": Finder("trove", _sdk_find("database", "find_flavor")),
    "cluster_template": Finder("magnum", _sdk_find("container_infrastructure_management",
                                                   "find_cluster_template")),
}


def find(cloud: Cloud, kind: str, name_or_id: str) -> str:
    """The id of the ``kind`` object named (or identified) ``name_or_id``.

    Raises:
        KeyError: an unknown kind (a plugin bug).
        CloudNotFound, CloudError: Heat's texts for none and for many.
    """
    return FINDERS[kind].lookup(cloud, name_or_id)


def kinds() -> Iterable[str]:
    return FINDERS.keys()
