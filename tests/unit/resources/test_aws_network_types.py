"""AWS::EC2::SecurityGroup, EIP and EIPAssociation rules that need no cloud: the rules'
common form and their diff, validation and update semantics, as Heat's."""

from __future__ import annotations

import re
from importlib.metadata import entry_points

import pytest

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.aws.eip import ElasticIp, ElasticIpAssociation
from hotplate.resources.aws.security_group import (
    SecurityGroup,
    neutron_rule,
    rule_changes,
    rule_of_neutron,
    wanted_rules,
)

PATH = ("resources", "r", "properties")


def test_types_are_registered() -> None:
    found = {e.name: e.value for e in entry_points(group="hotplate.resources")}
    assert found["AWS::EC2::SecurityGroup"].endswith("security_group:SecurityGroup")
    assert found["AWS::EC2::EIP"].endswith("eip:ElasticIp")
    assert found["AWS::EC2::EIPAssociation"].endswith("eip:ElasticIpAssociation")


def test_wanted_rules_as_heat_sends_them() -> None:
    props = SecurityGroup.validate({
        "GroupDescription": "d",
        "SecurityGroupIngress": [
            {"IpProtocol": "tcp", "FromPort": "22", "ToPort": "22", "CidrIp": "0.0.0.0/0"},
            {"IpProtocol": "icmp", "FromPort": "-1", "ToPort": "-1", "CidrIp": "10.0.0.0/8"},
            {"IpProtocol": "udp", "CidrIp": "10.0.0.0/8", "SourceSecurityGroupName": "web"}],
        "SecurityGroupEgress": [{"IpProtocol": "tcp", "FromPort": "80", "ToPort": "80",
                                 "SourceSecurityGroupId": "g1",
                                 "SourceSecurityGroupName": "web"}],
    }, PATH)
    assert wanted_rules(props) == [
        {"FromPort": 22, "ToPort": 22, "IpProtocol": "tcp", "direction": "ingress",
         "CidrIp": "0.0.0.0/0", "SourceSecurityGroupId": None},
        {"FromPort": None, "ToPort": None, "IpProtocol": "icmp", "direction": "ingress",
         "CidrIp": "10.0.0.0/8", "SourceSecurityGroupId": None},
        # no ports: no CIDR either (Heat's); a name stands for the remote group
        {"FromPort": None, "ToPort": None, "IpProtocol": "udp", "direction": "ingress",
         "CidrIp": None, "SourceSecurityGroupId": "web"},
        {"FromPort": 80, "ToPort": 80, "IpProtocol": "tcp", "direction": "egress",
         "CidrIp": None, "SourceSecurityGroupId": "g1"},
    ]


def test_neutron_rule_body_and_common_form_round_trip() -> None:
    rule = {"FromPort": 22, "ToPort": 23, "IpProtocol": "tcp", "direction": "ingress",
            "CidrIp": "0.0.0.0/0", "SourceSecurityGroupId": None}
    body = neutron_rule(rule, "sg")
    assert body == {"direction": "ingress", "ethertype": "IPv4",
                    "remote_ip_prefix": "0.0.0.0/0", "port_range_min": 22,
                    "port_range_max": 23, "protocol": "tcp", "remote_group_id": None,
                    "security_group_id": "sg"}
    assert rule_of_neutron({**body, "id": "r1"}) == rule


def test_rule_changes_keep_what_stays() -> None:
    ssh = {"FromPort": 22, "ToPort": 22, "IpProtocol": "tcp", "direction": "ingress",
           "CidrIp": "0.0.0.0/0", "SourceSecurityGroupId": None}
    web = {**ssh, "FromPort": 80, "ToPort": 80}
    default_egress = {"FromPort": None, "ToPort": None, "IpProtocol": None,
                      "direction": "egress", "CidrIp": None, "SourceSecurityGroupId": None}
    stale, missing = rule_changes({"a": ssh, "b": default_egress}, [ssh, web])
    assert stale == ["b"]  # Neutron's default egress rule goes on update, as in Heat
    assert missing == [web]
    assert rule_changes({"a": ssh}, [ssh]) == ([], [])


def test_owner_id_is_not_implemented() -> None:
    with pytest.raises(StackValidationFailed,
                       match="Property SourceSecurityGroupOwnerId not implemented yet"):
        SecurityGroup.validate({"GroupDescription": "d", "SecurityGroupIngress": [
            {"SourceSecurityGroupOwnerId": "x"}]}, PATH)


def test_only_rules_change_in_place() -> None:
    old = SecurityGroup.validate({"GroupDescription": "d"}, PATH)
    assert not SecurityGroup.needs_replacement(
        old, {**old, "SecurityGroupIngress": [{"IpProtocol": "tcp"}]})
    assert SecurityGroup.needs_replacement(old, {**old, "GroupDescription": "e"})
    assert SecurityGroup.needs_replacement(old, {**old, "VpcId": "v"})


def test_eip_domain_and_instance() -> None:
    with pytest.raises(StackValidationFailed):
        ElasticIp.validate({"Domain": "standard"}, PATH)
    old = ElasticIp.validate({"Domain": "vpc"}, PATH)
    assert not ElasticIp.needs_replacement(old, {**old, "InstanceId": "s"})
    assert ElasticIp.needs_replacement(old, {**old, "Domain": None})
    assert "AllocationId" in ElasticIp.attributes_schema


@pytest.mark.parametrize(("props", "error"), [
    ({"InstanceId": "s"}, "Either 'EIP' or 'AllocationId' must be provided."),
    ({"InstanceId": "s", "EIP": "1.2.3.4", "AllocationId": "a"},
     "Either 'EIP' or 'AllocationId' must be provided."),
    ({"EIP": "1.2.3.4", "NetworkInterfaceId": "p"},
     "Must specify 'InstanceId' if you specify 'EIP'."),
    ({"AllocationId": "a"}, "At least one of the following properties must be specified: "
                            "InstanceId, NetworkInterfaceId."),
])
def test_association_checks(props: dict[str, str], error: str) -> None:
    with pytest.raises(StackValidationFailed, match=re.escape(error)):
        ElasticIpAssociation.validate(props, PATH)


def test_association_checks_wait_for_unknown_values() -> None:
    # InstanceId comes from a server not made yet: nothing is refused for it
    ElasticIpAssociation.validate_known({"EIP": "1.2.3.4", "InstanceId": "pending"},
                                        frozenset({"InstanceId"}), PATH)


def test_association_replaced_only_for_a_new_address_and_a_new_target() -> None:
    old = ElasticIpAssociation.validate({"AllocationId": "a", "NetworkInterfaceId": "p"},
                                        PATH)
    assert not ElasticIpAssociation.needs_replacement(old, {**old, "AllocationId": "b"})
    assert not ElasticIpAssociation.needs_replacement(old, {**old, "NetworkInterfaceId": "q"})
    assert ElasticIpAssociation.needs_replacement(
        old, {**old, "AllocationId": "b", "NetworkInterfaceId": "q"})
    assert ElasticIpAssociation.needs_replacement(
        old, {**old, "AllocationId": "b", "InstanceId": "s"})
    # the target unset while the address changes: no new target, so in place (Heat's)
    assert not ElasticIpAssociation.needs_replacement(
        old, {**old, "AllocationId": "b", "NetworkInterfaceId": None})
