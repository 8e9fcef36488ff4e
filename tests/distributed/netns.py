"""A network namespace whose link to this host a packet filter cuts: partitions the kernel
sees, so that keepalives and TCP_USER_TIMEOUT fire (partition_proxy.py stays in user
space, where the kernel on each side keeps acknowledging).

::

    host                                      namespace hp-<id>
    127.0.0.1:5432/3306/5672  <-- DNAT --  <host ip>:port  <== veth ==>  <ns ip>
    (source rewritten to 127.0.0.1: the servers here accept loopback clients only)

A process started in the namespace (``command``) reaches PostgreSQL, MariaDB
and RabbitMQ at ``url(url)``. ``cut(ports)`` drops, inside the namespace, every
packet to and from those ports of the host (``reject=True``: refuses them
instead); ``heal()`` lets them through again. Nothing crosses meanwhile, and
neither end is told: each kernel retransmits into the void until its
TCP_USER_TIMEOUT or keepalives give up, as across a real partition.

Needs root, ``ip`` (iproute2) and ``nft`` (nftables; CI installs it, .ci/run).
``unavailable()`` says why a machine cannot make one, for a test to skip with.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import subprocess
import uuid
from collections.abc import Iterable, Iterator, Sequence
from urllib.parse import urlsplit, urlunsplit

PORTS = {"db": (5432, 3306), "broker": (5672,)}
"""The host's ports a cut names: the database servers' and the broker's."""


def _run(*argv: str, stdin: str | None = None) -> None:
    subprocess.run(argv, input=stdin, text=True, check=True, capture_output=True, timeout=30)


def unavailable() -> str | None:
    """Why no namespace can be made here, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    for tool, package in (("ip", "iproute2"), ("nft", "nftables")):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian's {package})"
    probe = f"hp-probe-{uuid.uuid4().hex[:6]}"
    try:
        _run("ip", "netns", "add", probe)
    except (subprocess.CalledProcessError, OSError) as exc:
        detail = getattr(exc, "stderr", "") or exc
        return f"cannot make a network namespace: {str(detail).strip()}"
    with contextlib.suppress(subprocess.CalledProcessError):
        _run("ip", "netns", "del", probe)
    return None


class Namespace:
    """One namespace and its veth link; see the module docstring."""

    def __init__(self) -> None:
        tag = uuid.uuid4().hex[:6]
        self.name = f"hp-{tag}"
        self._veth = f"hp{tag}h"
        self._table = f"hotplate_{tag}"
        subnet = random.randrange(0, 256)
        self.host_ip = f"10.231.{subnet}.1"
        self.ns_ip = f"10.231.{subnet}.2"
        self._made: list[Sequence[str]] = []
        """How to undo what was made, last first."""

    def start(self) -> Namespace:
        try:
            self._make()
        except BaseException:
            self.stop()
            raise
        return self

    def _make(self) -> None:
        ns, host, peer = self.name, self._veth, f"{self._veth[:-1]}n"
        _run("ip", "netns", "add", ns)
        self._made.append(("ip", "netns", "del", ns))
        _run("ip", "link", "add", host, "type", "veth", "peer", "name", peer)
        self._made.append(("ip", "link", "del", host))
        _run("ip", "link", "set", peer, "netns", ns)
        _run("ip", "addr", "add", f"{self.host_ip}/30", "dev", host)
        _run("ip", "link", "set", host, "up")
        _run("sysctl", "-qw", f"net.ipv4.conf.{host}.route_localnet=1")
        inside = ("ip", "netns", "exec", ns)
        _run(*inside, "ip", "addr", "add", f"{self.ns_ip}/30", "dev", peer)
        _run(*inside, "ip", "link", "set", peer, "up")
        _run(*inside, "ip", "link", "set", "lo", "up")
        _run(*inside, "ip", "route", "add", "default", "via", self.host_ip)
        ports = ", ".join(str(p) for group in PORTS.values() for p in group)
        _run("nft", "-f", "-", stdin=f"""
table ip {self._table} {{
  chain pre {{ type nat hook prerouting priority -100;
    iifname "{host}" ip daddr {self.host_ip} tcp dport {{ {ports} }} dnat to 127.0.0.1; }}
  chain inp {{ type nat hook input priority 100;
    ip saddr {self.ns_ip} snat to 127.0.0.1; }}
}}""")
        self._made.append(("nft", "delete", "table", "ip", self._table))

    def url(self, url: str) -> str:
        """``url`` (a database's or the broker's, on this host) as seen from inside."""
        parts = urlsplit(url)
        netloc = parts.netloc.replace(parts.hostname or "", self.host_ip, 1)
        return urlunsplit(parts._replace(netloc=netloc))

    def command(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run inside the namespace."""
        return ["ip", "netns", "exec", self.name, *argv]

    def cut(self, links: Iterable[str] = ("db", "broker"), *, reject: bool = False) -> None:
        """Drop (or refuse) every packet to and from the ``links``' ports, both ways."""
        ports = ", ".join(str(p) for link in links for p in PORTS[link])
        verdict = "reject with tcp reset" if reject else "drop"
        self.heal()
        _run("ip", "netns", "exec", self.name, "nft", "-f", "-", stdin=f"""
table inet cut {{
  chain out {{ type filter hook output priority 0; tcp dport {{ {ports} }} {verdict}; }}
  chain in {{ type filter hook input priority 0; tcp sport {{ {ports} }} {verdict}; }}
}}""")

    def heal(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            _run("ip", "netns", "exec", self.name, "nft", "delete", "table", "inet", "cut")

    def stop(self) -> None:
        """Undo everything, the processes inside excepted (stop them first)."""
        while self._made:
            with contextlib.suppress(subprocess.CalledProcessError, OSError):
                _run(*self._made.pop())


@contextlib.contextmanager
def namespace() -> Iterator[Namespace]:
    made = Namespace().start()
    try:
        yield made
    finally:
        made.stop()
