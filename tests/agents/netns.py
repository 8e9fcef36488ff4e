"""A "server" of its own: a network namespace joined to this host by a veth pair.

Where the machine allows it (root, ``ip netns``, veth), each agent runs in a
namespace whose only way out is a /30 link to the host: it reaches hotplate
at the host end's address, as a real server reaches its cloud, and nothing
on the host's loopback. Elsewhere the agent runs on the host and everything
talks over loopback (``Network.isolated`` says which one a test got).
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

_COUNTER = itertools.count()


@dataclass(frozen=True)
class Network:
    """Where the agent runs and how it reaches the host."""

    host_ip: str
    """The address hotplate (or any host-side server) listens on for the agent."""
    prefix: tuple[str, ...]
    """Put before an agent's command to run it inside the namespace (empty on loopback)."""
    isolated: bool


LOOPBACK = Network("127.0.0.1", (), False)


def _ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=False,
                          timeout=30)


def _why_not() -> str | None:
    if os.geteuid() != 0:
        return "not root"
    if shutil.which("ip") is None:
        return "no ip command"
    return None


@contextmanager
def server_network() -> Iterator[Network]:
    """A namespace with a veth link to the host, removed afterwards; loopback
    when the machine cannot make one."""
    if _why_not() is not None:
        yield LOOPBACK
        return
    n = next(_COUNTER)
    tag = f"{os.getpid() % 100000}x{n}"
    name, host_if, ns_if = f"hpagent-{tag}", f"hpa{tag}", f"hpb{tag}"
    octet = (os.getpid() + n * 7) % 250 + 1
    subnet = f"10.231.{octet}"
    host_ip, ns_ip = f"{subnet}.1", f"{subnet}.2"
    steps = [
        ("netns", "add", name),
        ("link", "add", host_if, "type", "veth", "peer", "name", ns_if),
        ("link", "set", ns_if, "netns", name),
        ("addr", "add", f"{host_ip}/30", "dev", host_if),
        ("link", "set", host_if, "up"),
        ("-n", name, "addr", "add", f"{ns_ip}/30", "dev", ns_if),
        ("-n", name, "link", "set", ns_if, "up"),
        ("-n", name, "link", "set", "lo", "up"),
    ]
    made = True
    for step in steps:
        if _ip(*step).returncode != 0:
            made = False
            break
    try:
        if made:
            yield Network(host_ip, ("ip", "netns", "exec", name), True)
        else:
            yield LOOPBACK
    finally:
        _ip("link", "del", host_if)
        _ip("netns", "del", name)
