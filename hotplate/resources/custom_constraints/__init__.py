"""Every custom constraint Heat 27.0.1 registers, by name, checked as Heat checks it.

A template names one in a parameter (``custom_constraint: ip_addr``) or a
plugin in a property schema (``CustomConstraint("nova.flavor")``). Two kinds::

    pure    ip_addr mac_addr net_cidr ip_or_cidr dns_name rel_dns_name dns_domain
            iso_8601 expiration timezone cron_expression json_string
            test_constr nova.network (both: wait <value> seconds, Heat's test aid)
    cloud   <service>.<entity>: the value must name (or be the id of) something the
            caller can see: nova.flavor, glance.image, neutron.network, ...

A pure check needs nothing but the value (and the clock, for ``expiration``); a
cloud check asks the cloud through ``CheckContext.cloud`` (the client layer),
which raises when the service is not in the caller's catalog, as Heat's client
does. A failed check reads as Heat's: ``Error validating value 'x': <reason>``,
or ``Error validating value 'x'`` when Heat gives no reason; a name nobody
registered reads ``"x" does not validate <name> (constraint not found)``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from hotplate.resources.custom_constraints import network, timing

__all__ = ["CLOUD_CONSTRAINTS", "PURE_CONSTRAINTS", "CheckContext", "ConstraintCloud",
           "check_custom", "is_pure", "known"]

MAX_DELAY_SECS = 3600.0
"""``test_constr`` waits at most this long, whatever it is asked."""


class ConstraintCloud(Protocol):
    """What a cloud check needs of the client layer."""

    def check_constraint(self, name: str, value: Any) -> str | None:
        """None when ``value`` names something of the constraint's kind; else the reason.

        Raises:
            Exception: the service is not in the catalog or cannot be reached (as
                Heat's client raises; the caller does not turn it into a reason).
        """
        ...


@dataclass(frozen=True, slots=True)
class CheckContext:
    """What a check may use: the engine's clock, and the caller's cloud if any."""

    now: datetime
    cloud: ConstraintCloud | None = None


def _delay(value: Any, ctx: CheckContext) -> str | None:
    try:
        seconds = float(value)
    except (TypeError, ValueError) as exc:
        return str(exc)
    if seconds > 0:
        time.sleep(min(seconds, MAX_DELAY_SECS))
    return None


def _pure(check: Callable[[Any], str | None]) -> Callable[[Any, CheckContext], str | None]:
    return lambda value, ctx: check(value)


PURE_CONSTRAINTS: Mapping[str, Callable[[Any, CheckContext], str | None]] = {
    "cron_expression": _pure(timing.check_cron),
    "dns_domain": _pure(network.check_dns_domain),
    "dns_name": _pure(network.check_dns_name),
    "expiration": lambda value, ctx: timing.check_expiration(value, ctx.now),
    "rel_dns_name": _pure(network.check_relative_dns_name),
    "ip_addr": _pure(network.check_ip),
    "iso_8601": _pure(timing.check_iso8601),
    "mac_addr": _pure(network.check_mac),
    "net_cidr": _pure(network.check_cidr),
    "ip_or_cidr": _pure(network.check_ip_or_cidr),
    "test_constr": _delay,
    "timezone": _pure(timing.check_timezone),
    "json_string": _pure(timing.check_json_string),
    "nova.network": _delay,
}
"""The checks that need no cloud (``nova.network`` is Heat's leftover alias of
``test_constr``)."""

CLOUD_CONSTRAINTS: Mapping[str, str] = {
    "barbican.container": "barbican",
    "barbican.secret": "barbican",
    "blazar.reservation": "blazar",
    "cinder.backup": "cinder",
    "cinder.qos_specs": "cinder",
    "cinder.snapshot": "cinder",
    "cinder.volume": "cinder",
    "cinder.vtype": "cinder",
    "designate.zone": "designate",
    "glance.image": "glance",
    "keystone.domain": "keystone",
    "keystone.group": "keystone",
    "keystone.project": "keystone",
    "keystone.region": "keystone",
    "keystone.role": "keystone",
    "keystone.service": "keystone",
    "keystone.user": "keystone",
    "magnum.cluster_template": "magnum",
    "manila.share_network": "manila",
    "manila.share_snapshot": "manila",
    "manila.share_type": "manila",
    "mistral.workflow": "mistral",
    "neutron.address_scope": "neutron",
    "neutron.flow_classifier": "neutron",
    "neutron.lbaas.listener": "neutron",
    "neutron.lbaas.loadbalancer": "neutron",
    "neutron.lbaas.pool": "neutron",
    "neutron.lbaas.provider": "neutron",
    "neutron.network": "neutron",
    "neutron.port": "neutron",
    "neutron.port_pair": "neutron",
    "neutron.port_pair_group": "neutron",
    "neutron.qos_policy": "neutron",
    "neutron.router": "neutron",
    "neutron.security_group": "neutron",
    "neutron.segment": "openstack",
    "neutron.subnet": "neutron",
    "neutron.subnetpool": "neutron",
    "neutron.taas.tap_service": "neutron",
    "neutron.taas.tap_flow": "neutron",
    "nova.flavor": "nova",
    "nova.host": "nova",
    "nova.keypair": "nova",
    "nova.server": "nova",
    "octavia.listener": "octavia",
    "octavia.loadbalancer": "octavia",
    "octavia.l7policy": "octavia",
    "octavia.pool": "octavia",
    "octavia.flavor": "octavia",
    "octavia.flavorprofile": "octavia",
    "octavia.availabilityzone": "octavia",
    "octavia.availabilityzoneprofile": "octavia",
    "trove.flavor": "trove",
    "zaqar.queue": "zaqar",
    "ironic.portgroup": "ironic",
    "ironic.node": "ironic",
}
"""The checks that ask a cloud, with the client (Heat's name) each asks."""


def known(name: Any) -> bool:
    return name in PURE_CONSTRAINTS or name in CLOUD_CONSTRAINTS


def is_pure(name: Any) -> bool:
    """Whether the check needs no cloud (an unknown name needs none: it fails as it is)."""
    return name not in CLOUD_CONSTRAINTS


def _failure(value: Any, reason: str) -> str:
    if not reason:
        return f"Error validating value '{value}'"
    return f"Error validating value '{value}': {reason}"


def check_custom(name: Any, value: Any, ctx: CheckContext) -> str | None:
    """None when ``value`` satisfies the constraint ``name``, else Heat's message.

    A cloud constraint without a cloud in ``ctx`` is not checked (validation
    before the caller's credentials are known checks the pure ones only).

    Raises:
        Exception: from the client layer, when the service the check asks is not
            in the catalog or does not answer.
    """
    pure = PURE_CONSTRAINTS.get(name)
    if pure is not None:
        reason = pure(value, ctx)
    elif name in CLOUD_CONSTRAINTS:
        if ctx.cloud is None:
            return None
        reason = ctx.cloud.check_constraint(name, value)
    else:
        return f'"{value}" does not validate {name} (constraint not found)'
    return None if reason is None else _failure(value, reason)
