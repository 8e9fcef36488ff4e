"""The cloud custom constraints: which finder each uses and which misses it reports.

A constraint passes when its finder finds the value; a miss or an ambiguous
name becomes the constraint's reason (``Error validating value 'x': The
Flavor ...``), as Heat's ``expected_exceptions`` do. Any other failure (the
service not in the catalog, unreachable, refusing) is raised, as Heat's
client raises it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hotplate.cloud.errors import CloudError, CloudNotFound, CloudOverLimit, CloudTransient
from hotplate.cloud.errors import EndpointNotFound as _EndpointNotFound

if TYPE_CHECKING:
    from hotplate.cloud.client import Cloud

__all__ = ["CONSTRAINT_FINDERS", "check_constraint"]

CONSTRAINT_FINDERS: Mapping[str, str] = {
    "nova.flavor": "flavor", "nova.keypair": "keypair", "nova.server": "server",
    "nova.host": "host",
    "glance.image": "image",
    "cinder.volume": "volume", "cinder.snapshot": "volume_snapshot",
    "cinder.backup": "volume_backup", "cinder.vtype": "volume_type",
    "cinder.qos_specs": "qos_specs",
    "neutron.network": "network", "neutron.subnet": "subnet", "neutron.port": "port",
    "neutron.router": "router", "neutron.security_group": "security_group",
    "neutron.subnetpool": "subnetpool", "neutron.address_scope": "address_scope",
    "neutron.qos_policy": "qos_policy", "neutron.segment": "segment",
    "keystone.project": "project", "keystone.domain": "domain", "keystone.group": "group",
    "keystone.role": "role", "keystone.user": "user", "keystone.service": "service",
    "keystone.region": "region",
    "manila.share_network": "share_network", "manila.share_snapshot": "share_snapshot",
    "octavia.loadbalancer": "loadbalancer", "octavia.listener": "listener",
    "octavia.pool": "pool", "octavia.l7policy": "l7policy", "octavia.flavor": "lb_flavor",
    "octavia.flavorprofile": "lb_flavor_profile",
    "octavia.availabilityzone": "lb_availability_zone",
    "octavia.availabilityzoneprofile": "lb_availability_zone_profile",
    "designate.zone": "zone", "barbican.secret": "secret", "barbican.container": "container",
    "ironic.node": "baremetal_node", "ironic.portgroup": "baremetal_portgroup",
    "mistral.workflow": "workflow", "zaqar.queue": "queue", "trove.flavor": "database_flavor",
    "magnum.cluster_template": "cluster_template",
}
"""Constraint -> finder kind. The rest of Heat's cloud constraints (Neutron's LBaaS,
SFC and TaaS, Blazar's reservations, Manila's share types) name services
this engine has no finder for: they fail as lookups of a service not offered."""

_NOT_EXPECTED = (_EndpointNotFound, CloudTransient, CloudOverLimit)


def check_constraint(cloud: Cloud, name: str, value: Any) -> str | None:
    """None when ``value`` satisfies the cloud constraint ``name``, else the reason.

    Raises:
        EndpointNotFound: the constraint's service is not in the catalog (or has no
            finder here).
        CloudError: the service failed otherwise.
    """
    if name == "nova.keypair" and not value:
        return None  # Heat lets an empty key name through (a KeyPair resource's)
    kind = CONSTRAINT_FINDERS.get(name)
    if kind is None:
        raise _EndpointNotFound()
    try:
        cloud.find(kind, str(value))
    except _NOT_EXPECTED:
        raise
    except (CloudNotFound, CloudError) as exc:
        if type(exc) is CloudError and exc.status is not None:
            raise  # the service refused (403, 400): not a miss
        return str(exc)
    return None
