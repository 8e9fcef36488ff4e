"""The stacks a real Heat makes for an import test: servers, ports, networks, volumes.

Two shapes, made through Heat's API with python-heatclient and waited for by polling:

- ``server_volume``: a network, subnet and port, a server on that port
  (``cirros-fake``, ``m1.tiny``), a 1 GiB volume attached to it, and outputs naming
  the server, the port, the volume and the server's first address;
- ``nested_server``: a network and subnet, and a provider template (``files`` and
  ``resource_registry``) whose nested stack holds a server on that network, so
  Heat makes the server's port itself (its ``internal_ports``); the server takes
  ``SOFTWARE_CONFIG`` user data, so Heat also makes a stack domain project, user
  and EC2 key pair for it.

Every stack name starts with the caller's ``prefix``; Heat names what it makes after
its stack, so those objects carry the prefix too (the cleanup's last look).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import yaml

IMAGE, FLAVOR = "cirros-fake", "m1.tiny"
POLL = 1.0
"""Seconds between two looks at a stack being made."""
CREATE_WAIT = 600.0
"""The longest a create may take (Heat on a loaded 2-core machine)."""

SERVER_VOLUME: dict[str, Any] = {
    "heat_template_version": "2021-04-16",
    "description": "A server on a port of its own network, with a volume attached.",
    "resources": {
        "net": {"type": "OS::Neutron::Net"},
        "subnet": {"type": "OS::Neutron::Subnet",
                   "properties": {"network": {"get_resource": "net"},
                                  "cidr": "10.71.0.0/24"}},
        "port": {"type": "OS::Neutron::Port",
                 "properties": {"network": {"get_resource": "net"},
                                "fixed_ips": [{"subnet": {"get_resource": "subnet"}}]}},
        "server": {"type": "OS::Nova::Server",
                   "properties": {"image": IMAGE, "flavor": FLAVOR,
                                  "networks": [{"port": {"get_resource": "port"}}]}},
        "volume": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
        "attachment": {"type": "OS::Cinder::VolumeAttachment",
                       "properties": {"instance_uuid": {"get_resource": "server"},
                                      "volume_id": {"get_resource": "volume"}}},
    },
    "outputs": {
        "server_id": {"value": {"get_resource": "server"}},
        "port_id": {"value": {"get_resource": "port"}},
        "volume_id": {"value": {"get_resource": "volume"}},
        "first_address": {"value": {"get_attr": ["port", "fixed_ips", 0, "ip_address"]}},
    },
}

MEMBER = "member.yaml"
MEMBER_TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2021-04-16",
    "description": "A server on the network it is given (Heat makes its port).",
    "parameters": {"network": {"type": "string"}},
    "resources": {
        "server": {"type": "OS::Nova::Server",
                   "properties": {"image": IMAGE, "flavor": FLAVOR,
                                  "user_data_format": "SOFTWARE_CONFIG",
                                  "networks": [{"network": {"get_param": "network"}}]}},
    },
    "outputs": {"server_id": {"value": {"get_resource": "server"}}},
}

NESTED_SERVER: dict[str, Any] = {
    "heat_template_version": "2021-04-16",
    "description": "A provider template's nested stack holding a server.",
    "resources": {
        "net": {"type": "OS::Neutron::Net"},
        "subnet": {"type": "OS::Neutron::Subnet",
                   "properties": {"network": {"get_resource": "net"},
                                  "cidr": "10.72.0.0/24"}},
        "member": {"type": "Test::Server::Member", "depends_on": ["subnet"],
                   "properties": {"network": {"get_resource": "net"}}},
    },
    "outputs": {
        "nested_stack_id": {"value": {"get_resource": "member"}},
        "server_id": {"value": {"get_attr": ["member", "server_id"]}},
        "network_id": {"value": {"get_resource": "net"}},
    },
}
NESTED_ENVIRONMENT = {"resource_registry": {"Test::Server::Member": MEMBER}}


@dataclass(frozen=True)
class MadeStack:
    """A stack Heat made: its id, status, outputs and each resource's physical id."""

    name: str
    id: str
    status: str
    reason: str
    outputs: dict[str, Any] = field(default_factory=dict)
    physical_ids: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Shapes:
    """Both stacks once Heat finished making them."""

    server_volume: MadeStack
    nested_server: MadeStack

    @property
    def stacks(self) -> tuple[MadeStack, ...]:
        return (self.server_volume, self.nested_server)


def begin(client: Any, name: str, template: dict[str, Any], **extra: Any) -> str:
    """Ask Heat to make the stack; its id (Heat answers before it made anything)."""
    answer = client.stacks.create(stack_name=name, template=template, **extra)
    return str(answer["stack"]["id"])


def finished(client: Any, name: str, stack_id: str, wait: float = CREATE_WAIT) -> MadeStack:
    """The stack once it is no longer IN_PROGRESS (looking every ``POLL`` s)."""
    deadline = time.monotonic() + wait
    while True:
        stack = client.stacks.get(stack_id)
        if not str(stack.stack_status).endswith("IN_PROGRESS"):
            break
        if time.monotonic() > deadline:
            raise AssertionError(f"stack {name} still {stack.stack_status} after {wait} s")
        time.sleep(POLL)
    outputs = {o["output_key"]: o.get("output_value") for o in stack.outputs or []}
    resources = client.resources.list(stack_id, nested_depth=2)
    return MadeStack(name=name, id=stack_id, status=str(stack.stack_status),
                     reason=str(stack.stack_status_reason), outputs=outputs,
                     physical_ids={r.resource_name: str(r.physical_resource_id)
                                   for r in resources})


def make_shapes(client: Any, prefix: str, started: list[str] | None = None) -> Shapes:
    """Both shapes, made side by side; ``started`` receives each stack id as soon as
    Heat accepts it (a cleanup then knows them even if waiting fails)."""
    started = started if started is not None else []
    names = (f"{prefix}server-volume", f"{prefix}nested-server")
    started.append(begin(client, names[0], SERVER_VOLUME))
    started.append(begin(client, names[1], NESTED_SERVER,
                         files={MEMBER: yaml.safe_dump(MEMBER_TEMPLATE)},
                         environment=NESTED_ENVIRONMENT))
    return Shapes(server_volume=finished(client, names[0], started[-2]),
                  nested_server=finished(client, names[1], started[-1]))
