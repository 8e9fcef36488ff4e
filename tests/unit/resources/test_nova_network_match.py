"""Which networks a server update keeps (nova/network_match.py): the cases of
heat-tempest-plugin's UpdateServerNetworksTest, where the ports must survive."""

from __future__ import annotations

from typing import Any

from hotplate.resources.openstack.nova.network_match import best_match, sort_networks

NET, SUBNET = "net-1", "subnet-1"


def _iface(port: str, ip: str) -> dict[str, Any]:
    return {"port": port, "network": NET, "fixed_ip": ip, "subnet": SUBNET}


def _network_of(entry: Any) -> str | None:
    return entry.get("network") or (NET if entry.get("subnet") == SUBNET else None)


def _sorted(old: list[dict[str, Any]], new: list[dict[str, Any]],
            ifaces: list[dict[str, Any]], internal: tuple[str, ...] = ()) -> Any:
    return sort_networks(old, new, ifaces, internal, _network_of, lambda o, n: True)


def test_a_network_swapped_for_its_subnet_keeps_the_port() -> None:
    changes = _sorted([{"network": NET}], [{"subnet": SUBNET}], [_iface("p0", "10.0.0.5")])
    assert [n["port"] for n in changes.kept] == ["p0"]
    assert changes.gone == [] and changes.added == []


def test_a_subnet_given_its_network_too_keeps_the_port() -> None:
    changes = _sorted([{"subnet": SUBNET}], [{"network": NET, "subnet": SUBNET}],
                      [_iface("p0", "10.0.0.5")], internal=("p0",))
    assert [n["port"] for n in changes.kept] == ["p0"] and not changes.added


def test_reordered_entries_keep_every_port() -> None:
    old = [{"network": NET}, {"network": NET, "fixed_ip": "10.0.0.33"}, {"subnet": SUBNET}]
    new = [{"subnet": SUBNET}, {"network": NET}, {"network": NET, "subnet": SUBNET}]
    ifaces = [_iface("p0", "10.0.0.5"), _iface("p1", "10.0.0.33"), _iface("p2", "10.0.0.6")]
    changes = _sorted(old, new, ifaces, internal=("p2",))
    assert sorted(n["port"] for n in changes.kept) == ["p0", "p1", "p2"]
    assert changes.gone == [] and changes.added == []


def test_an_added_entry_is_attached_and_the_old_kept() -> None:
    changes = _sorted([{"network": NET}], [{"network": NET}, {"network": "net-2"}],
                      [_iface("p0", "10.0.0.5")])
    assert [n["port"] for n in changes.kept] == ["p0"]
    assert [n["network"] for n in changes.added] == ["net-2"]


def test_a_port_swapped_for_a_network_is_detached_and_the_network_attached() -> None:
    changes = _sorted([{"port": "user-port"}], [{"network": "net-2"}],
                      [_iface("user-port", "10.0.0.9")])
    assert [n["port"] for n in changes.gone] == ["user-port"]
    assert [n["network"] for n in changes.added] == ["net-2"]


def test_extra_properties_updated_in_place_only_on_a_port_heat_made() -> None:
    old = [{"network": NET, "port_extra_properties": {"admin_state_up": True}}]
    new = [{"network": NET, "port_extra_properties": {"admin_state_up": False}}]
    made = _sorted(old, new, [_iface("p0", "10.0.0.5")], internal=("p0",))
    assert made.port_updates == [("p0", {"admin_state_up": False})]
    assert [n["port"] for n in made.kept] == ["p0"]
    theirs = _sorted(old, new, [_iface("p0", "10.0.0.5")])
    assert theirs.port_updates == [] and len(theirs.gone) == len(theirs.added) == 1


def test_best_match_needs_a_shared_value() -> None:
    assert best_match([{"network": NET}], {}) is None
    assert best_match([{"network": NET, "port": "a"}, {"network": NET, "port": "b"}],
                      {"port": "b"}) == {"network": NET, "port": "b"}
