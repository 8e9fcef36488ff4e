"""Which of a server's networks an update leaves alone, and which it detaches and attaches.

A ``networks`` entry says what the user asked for (``network: net``), not what
Nova made of it (a port with an address on a subnet). Heat therefore first
pins each old entry to the interface it produced, then pairs each new entry
with the old one it is a subset of: ``network: net`` swapped for
``subnet: <net's subnet>`` names the interface the server already has, so its
port stays. Only what is left unpaired is detached (old) or attached (new). A
Heat-made port whose ``port_extra_properties`` changed only in keys Neutron
updates in place is updated rather than replaced.

Pure: the caller gives the interfaces (``{port, network, fixed_ip, subnet}``
as Nova lists them) and the two lookups that need a cloud.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

MANAGED_KEYS = ("port", "network", "fixed_ip", "subnet")
"""What an interface says of itself; an entry's other keys are the user's alone."""
NETWORK_KEYS = ("uuid", "network", "fixed_ip", "port", "subnet", "port_extra_properties",
                "floating_ip", "allocate_network", "tag")
EXTRA = "port_extra_properties"


@dataclass
class NetworkChanges:
    kept: list[dict[str, Any]] = field(default_factory=list)
    """Old entries paired with a new one (their ``port`` filled in from Nova)."""
    gone: list[dict[str, Any]] = field(default_factory=list)
    """Old entries to detach (``port`` filled in where an interface matched)."""
    added: list[dict[str, Any]] = field(default_factory=list)
    """New entries to attach."""
    port_updates: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """Heat-made ports updated in place: (port id, new extra properties)."""


def _subset(wanted: Mapping[str, Any], found: Mapping[str, Any]) -> bool:
    return all(key in found and found[key] == value for key, value in wanted.items())


def best_match(candidates: Iterable[dict[str, Any]], wanted: Mapping[str, Any]
               ) -> dict[str, Any] | None:
    """Heat's ``_find_best_match``: by port, else by fixed IP, else the candidate
    sharing the most values among those ``wanted`` is a subset of (none sharing any
    value matches nothing)."""
    if wanted.get("port") is not None:
        return next((c for c in candidates
                     if c.get("port") == wanted["port"] and _subset(wanted, c)), None)
    if wanted.get("fixed_ip") is not None:
        return next((c for c in candidates
                     if c.get("fixed_ip") == wanted["fixed_ip"] and _subset(wanted, c)), None)
    best, score = None, 0
    for candidate in candidates:
        if _subset(wanted, candidate):
            shared = sum(1 for key, value in wanted.items() if candidate.get(key) == value)
            if shared > score:
                best, score = candidate, shared
    return best


def sort_networks(old: Iterable[Mapping[str, Any]], new: Iterable[Mapping[str, Any]],
                  interfaces: Iterable[Mapping[str, Any]], internal_ports: Iterable[str],
                  network_of: Callable[[Mapping[str, Any]], str | None],
                  updatable_extra: Callable[[Mapping[str, Any] | None,
                                             Mapping[str, Any] | None], bool],
                  ) -> NetworkChanges:
    """Heat's ``_exclude_not_updated_networks`` over a list-of-entries update.

    ``network_of(entry)``: the network an entry without a port is on (its
    ``network``, else its subnet's). ``updatable_extra(old, new)``: whether a
    Heat-made port can take the new extra properties in place.
    """
    old_nets = [dict(n) for n in old]
    new_nets = [dict(n) for n in new]
    ifaces = [dict(i) for i in interfaces]
    for net in old_nets:  # pin each old entry to the interface it made
        if net.get("port") is None:
            net["network"] = network_of(net)
        reduced = {k: v for k, v in net.items() if k in MANAGED_KEYS and v is not None}
        found = best_match(ifaces, reduced)
        if found is not None:
            net.update(found)
            ifaces.remove(found)
    for net in (*new_nets, *old_nets):
        for key in NETWORK_KEYS:
            net[key] = net.get(key) or None
    internal = set(internal_ports)
    changes = NetworkChanges()
    for net in list(new_nets):
        reduced = {k: v for k, v in net.items() if k not in MANAGED_KEYS or v is not None}
        found = best_match(old_nets, reduced)
        if found is None:
            found = best_match(old_nets, {k: v for k, v in reduced.items() if k != EXTRA})
            port = found.get("port") if found is not None else None
            if found is None or port not in internal or not updatable_extra(
                    found.get(EXTRA), net.get(EXTRA)):
                continue
            changes.port_updates.append((str(port), dict(net.get(EXTRA) or {})))
        changes.kept.append(found)
        new_nets.remove(net)
        old_nets.remove(found)
    changes.gone = old_nets
    changes.added = new_nets
    return changes
