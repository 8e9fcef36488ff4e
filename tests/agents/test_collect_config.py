"""The real os-collect-config (PyPI, its own virtualenv) running ``hotplate agent-hook``.

os-collect-config's ``request`` source polls a plain JSON metadata URL served
by a real HTTP server thread here, which also receives the signals; the
agent runs in a network namespace of its own joined by a veth pair where the
machine allows it (see ``netns``), else over loopback. This checks the
contract between the two agents, with no hotplate server: the command gets
``OS_CONFIG_FILES``, new metadata runs it, unchanged metadata does not, and
a hook that exits 1 (a signal left undelivered) makes os-collect-config keep
the metadata uncommitted and run it again on its next poll.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agents.agents_venv import tool
from tests.agents.deployments import deployment
from tests.agents.netns import Network, server_network
from tests.agents.signal_receiver import SignalReceiver, signal_receiver

HOTPLATE = Path(sys.executable).with_name("hotplate")


@pytest.fixture
def network() -> Iterator[Network]:
    with server_network() as net:
        yield net


@pytest.fixture
def receiver(network: Network) -> Iterator[SignalReceiver]:
    with signal_receiver(network.host_ip) as listening:
        yield listening


def _collector_conf(tmp_path: Path, receiver: SignalReceiver) -> Path:
    hook = (f"{shlex.quote(str(HOTPLATE))} agent-hook --state-dir "
            f"{shlex.quote(str(tmp_path / 'heat-config'))} --signal-retries 0 "
            "--signal-timeout 5")
    conf = tmp_path / "os-collect-config.conf"
    conf.write_text(
        "[DEFAULT]\n"
        f"command = {hook}\n"
        f"cachedir = {tmp_path / 'occ-cache'}\n"
        f"backup_cachedir = {tmp_path / 'occ-backup'}\n"
        "collectors = request\n"
        "[request]\n"
        f"metadata_url = {receiver.url('/metadata')}\n")
    return conf


def _collect_once(agents: Path, network: Network, conf: Path) -> subprocess.CompletedProcess[str]:
    command = [*network.prefix, str(tool(agents, "os-collect-config")),
               "--config-file", str(conf), "--one-time"]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_os_collect_config_runs_agent_hook_on_new_metadata_and_again_after_a_failure(
        agents: Path, network: Network, receiver: SignalReceiver, tmp_path: Path) -> None:
    conf = _collector_conf(tmp_path, receiver)
    target = tmp_path / "configured"
    script = f"#!/bin/sh\necho \"$colour\" >> {target}\necho ok\n"
    receiver.metadata = {"deployments": [deployment(
        "occ-1", script, receiver.url("/v1/signal/occ-1"), colour="blue")]}
    receiver.statuses.append(503)  # the first signal finds hotplate unavailable

    first = _collect_once(agents, network, conf)
    assert first.returncode == 1, first.stderr  # the hook kept a signal: try again
    assert "Command failed, will not cache new data" in first.stderr
    assert target.read_text() == "blue\n"
    assert len(receiver.received) == 1

    second = _collect_once(agents, network, conf)  # same metadata, uncommitted: runs again
    assert second.returncode == 0, second.stderr
    assert target.read_text() == "blue\n"  # the deployment did not run twice
    assert len(receiver.received) == 2
    assert receiver.received[1].body == {"deploy_stdout": "ok\n", "deploy_stderr": "",
                                         "deploy_status_code": 0}

    third = _collect_once(agents, network, conf)  # committed and unchanged: nothing runs
    assert third.returncode == 0, third.stderr
    assert "Executing" not in third.stderr
    assert len(receiver.received) == 2

    receiver.metadata = {"deployments": [deployment(
        "occ-2", script, receiver.url("/v1/signal/occ-2"), colour="green")]}
    fourth = _collect_once(agents, network, conf)
    assert fourth.returncode == 0, fourth.stderr
    assert target.read_text() == "blue\ngreen\n"
    assert receiver.received[-1].path == "/v1/signal/occ-2"
    if network.isolated:  # the agent really was elsewhere: host loopback is out of its reach
        probe = subprocess.run([*network.prefix, sys.executable, "-c",
                                "import socket; socket.create_connection(('127.0.0.1', "
                                f"{receiver.base_url.rsplit(':', 1)[1]}), 2)"],
                               capture_output=True, text=True, timeout=30, check=False)
        assert probe.returncode != 0
