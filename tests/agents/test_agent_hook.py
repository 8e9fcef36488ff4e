"""``hotplate agent-hook`` on its own: real processes, a real HTTP server receiving the signals.

Each test plays os-collect-config: it writes the collector's cached JSON
file, runs the command with ``OS_CONFIG_FILES`` naming it, and reads what
the receiver got.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hotplate.agent.metadata import merge
from tests.agents.deployments import deployment
from tests.agents.signal_receiver import SignalReceiver, signal_receiver

HOTPLATE = Path(sys.executable).with_name("hotplate")


class Server:
    """One "server": its metadata cache, its agent state and the agent-hook command."""

    def __init__(self, root: Path, receiver: SignalReceiver) -> None:
        self.root = root
        self.receiver = receiver
        self.state = root / "state"
        self.cache = root / "cache"
        self.cache.mkdir()

    def deployment(self, deployment_id: str, config: str, *, transport: str = "CFN_SIGNAL",
                   **kwargs: Any) -> dict[str, Any]:
        """A deployment signalling this server's receiver."""
        url = (None if transport == "NO_SIGNAL"
               else self.receiver.url(f"/v1/signal/{deployment_id}?Signature=s"))
        return deployment(deployment_id, config, url, transport=transport, **kwargs)

    def publish(self, *deployments: dict[str, Any], name: str = "cfn") -> Path:
        """The collector's cache file, as os-collect-config stores it."""
        path = self.cache / f"{name}.json"
        path.write_text(json.dumps({"deployments": list(deployments)}, indent=1))
        return path

    def _command(self, extra: tuple[str, ...]) -> tuple[list[str], dict[str, str]]:
        env = dict(os.environ)
        env["OS_CONFIG_FILES"] = ":".join(str(p) for p in sorted(self.cache.glob("*.json")))
        command = [str(HOTPLATE), "agent-hook", "--state-dir", str(self.state),
                   "--signal-retries", "0", "--signal-timeout", "5",
                   "--hooks-dir", str(self.root / "hooks"), *extra]
        return command, env

    def run(self, *extra: str) -> subprocess.CompletedProcess[str]:
        command, env = self._command(extra)
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60,
                              check=False)

    def start(self, *extra: str) -> subprocess.Popen[str]:
        command, env = self._command(extra)
        return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, text=True)


@pytest.fixture
def receiver() -> Iterator[SignalReceiver]:
    with signal_receiver() as listening:
        yield listening


@pytest.fixture
def server(tmp_path: Path, receiver: SignalReceiver) -> Server:
    return Server(tmp_path, receiver)


WRITE_AND_ANSWER = """#!/bin/sh
echo "$greeting" >> "$target"
printf 'said %s' "$greeting" > "$heat_outputs_path.result"
echo done
"""


def test_a_script_runs_once_per_deployment_and_again_when_its_inputs_change(
        server: Server, receiver: SignalReceiver, tmp_path: Path) -> None:
    target = tmp_path / "written"
    server.publish(server.deployment("d1", WRITE_AND_ANSWER, outputs=("result",),
                                     greeting="hello", target=str(target)))
    done = server.run()
    assert done.returncode == 0, done.stderr
    assert target.read_text() == "hello\n"
    [signal_request] = receiver.received
    assert signal_request.method == "POST"
    assert signal_request.path == "/v1/signal/d1?Signature=s"
    assert signal_request.headers["Content-Type"] == "application/json"
    assert signal_request.body == {"result": "said hello", "deploy_stdout": "done\n",
                                   "deploy_stderr": "", "deploy_status_code": 0}

    again = server.run()  # the same metadata: nothing runs, nothing is signalled
    assert again.returncode == 0, again.stderr
    assert target.read_text() == "hello\n"
    assert len(receiver.received) == 1

    server.publish(server.deployment("d1", WRITE_AND_ANSWER, outputs=("result",),
                                     greeting="bonjour", target=str(target)))
    changed = server.run()
    assert changed.returncode == 0, changed.stderr
    assert target.read_text() == "hello\nbonjour\n"
    assert [b["result"] for b in receiver.bodies()] == ["said hello", "said bonjour"]


def test_a_failing_script_signals_its_status_and_stderr(
        server: Server, receiver: SignalReceiver) -> None:
    server.publish(server.deployment("bad", "#!/bin/sh\necho partial\necho broken >&2\nexit 3\n",
                                     outputs=("result",)))
    done = server.run()
    assert done.returncode == 0, done.stderr  # the failure is Heat's to know, and it was told
    assert receiver.bodies() == [{"deploy_stdout": "partial\n", "deploy_stderr": "broken\n",
                                  "deploy_status_code": 3}]
    assert "exited with status 3" in done.stderr


def test_a_config_that_cannot_execute_is_signalled_as_such(
        server: Server, receiver: SignalReceiver) -> None:
    server.publish(server.deployment("noexec", "no interpreter line here\n"))
    assert server.run().returncode == 0
    [body] = receiver.bodies()
    assert body["deploy_status_code"] == 126
    assert "Exec format error" in body["deploy_stderr"]


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def test_a_hook_killed_mid_run_is_signalled_failed_on_the_next_run_and_never_rerun(
        server: Server, receiver: SignalReceiver, tmp_path: Path) -> None:
    started = tmp_path / "started"
    script = f"#!/bin/sh\necho $$ >> {started}\nsleep 60\necho finished\n"
    server.publish(server.deployment("slow", script))
    agent = server.start()
    deadline = time.monotonic() + 20
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started.exists(), "the script never started"
    script_pid = int(started.read_text())
    agent.send_signal(signal.SIGKILL)
    agent.wait(10)
    assert _alive(script_pid)  # the script outlives the runner that started it
    assert receiver.received == []

    after = server.run()
    assert after.returncode == 0, after.stderr
    [body] = receiver.bodies()
    assert body["deploy_status_code"] == -1
    assert "stopped while this deployment's hook ran" in body["deploy_stderr"]
    assert "interrupted" in after.stderr
    deadline = time.monotonic() + 5
    while _alive(script_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(script_pid), "the interrupted hook was left running"

    assert server.run().returncode == 0
    assert len(started.read_text().split()) == 1  # ran once, never again
    assert len(receiver.received) == 1


def test_a_signal_the_server_could_not_take_is_sent_again_on_the_next_run(
        server: Server, receiver: SignalReceiver, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    server.publish(server.deployment("d503", f"#!/bin/sh\necho run >> {runs}\necho ok\n"))
    receiver.statuses.append(503)
    first = server.run()
    assert first.returncode == 1, first.stderr  # os-collect-config runs the hook again
    assert "503" in first.stderr
    assert len(list((server.state / "outbox").iterdir())) == 1

    second = server.run()
    assert second.returncode == 0, second.stderr
    bodies = receiver.bodies()
    assert len(bodies) == 2
    assert bodies[0] == bodies[1] == {"deploy_stdout": "ok\n", "deploy_stderr": "",
                                      "deploy_status_code": 0}
    assert runs.read_text() == "run\n"  # the deployment itself ran once
    assert list((server.state / "outbox").iterdir()) == []

    receiver.statuses.append(403)  # refused for good: not kept
    server.publish(server.deployment("d403", "#!/bin/sh\ntrue\n"))
    refused = server.run()
    assert refused.returncode == 0
    assert "refused" in refused.stderr
    assert list((server.state / "outbox").iterdir()) == []


def test_a_signal_to_a_server_that_is_not_listening_is_kept(
        server: Server, receiver: SignalReceiver) -> None:
    deployment = server.deployment("away", "#!/bin/sh\ntrue\n")
    for item in deployment["inputs"]:
        if item["name"] == "deploy_signal_id":
            item["value"] = "http://127.0.0.1:9/v1/signal/away"  # the discard port: refused
    server.publish(deployment)
    assert server.run().returncode == 1
    assert len(list((server.state / "outbox").iterdir())) == 1


def test_groups_without_a_hook_are_skipped_unsignalled(
        server: Server, receiver: SignalReceiver, tmp_path: Path) -> None:
    server.publish(server.deployment("p", "class {}", group="puppet"),
                   server.deployment("o", "{}", group="os-apply-config"),
                   server.deployment("u", "{}", group="Heat::Ungrouped"))
    done = server.run()
    assert done.returncode == 0, done.stderr
    assert receiver.received == []
    assert "Skipping group puppet with no hook script" in done.stderr
    assert "os-apply-config" not in done.stderr
    assert "Ungrouped" not in done.stderr


def test_an_installed_heat_config_hook_runs_its_group(
        server: Server, receiver: SignalReceiver) -> None:
    hooks = server.root / "hooks"
    hooks.mkdir()
    hook = hooks / "json-echo"
    hook.write_text(f"#!{sys.executable}\nimport json, sys\nc = json.load(sys.stdin)\n"
                    "print(json.dumps({'seen': c['config'], 'deploy_status_code': 0}))\n")
    hook.chmod(0o755)
    server.publish(server.deployment("h", "payload", group="json-echo"))
    assert server.run().returncode == 0
    assert receiver.bodies() == [{"seen": "payload", "deploy_status_code": 0}]


def test_token_and_no_signal_transports(
        server: Server, receiver: SignalReceiver, tmp_path: Path) -> None:
    token = server.deployment("t", "#!/bin/sh\necho tok\n", transport="TOKEN_SIGNAL",
                              deploy_auth_token="secret-token")
    quiet = server.deployment("n", f"#!/bin/sh\ntouch {tmp_path / 'quiet-ran'}\n",
                              transport="NO_SIGNAL")
    server.publish(token, quiet)
    assert server.run().returncode == 0
    [request] = receiver.received
    assert request.headers["X-Auth-Token"] == "secret-token"
    assert request.body["deploy_stdout"] == "tok\n"
    assert (tmp_path / "quiet-ran").exists()


def test_the_collectors_files_merge_as_os_apply_config_merges_them() -> None:
    first = {"deployments": [{"id": "a"}], "nested": {"x": 1, "y": {"z": 1}}, "s": "one"}
    second = {"deployments": [{"id": "b"}], "nested": {"y": {"w": 2}}, "s": "two"}
    assert merge([first, [1, 2], second, None]) == {
        "deployments": [{"id": "b"}], "nested": {"x": 1, "y": {"z": 1, "w": 2}}, "s": "two"}


def test_two_runners_at_once_run_a_deployment_once(
        server: Server, receiver: SignalReceiver, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    server.publish(server.deployment("both", f"#!/bin/sh\necho run >> {runs}\nsleep 1\n"))
    first, second = server.start(), server.start()
    assert first.wait(30) == 0 and second.wait(30) == 0
    assert runs.read_text() == "run\n"
    assert len(receiver.received) == 1


def test_a_component_runs_the_config_of_its_deploy_action(
        server: Server, receiver: SignalReceiver) -> None:
    component = server.deployment("c", "unused", group="component")
    component["config"] = {"configs": [
        {"actions": ["DELETE"], "tool": "script", "config": "#!/bin/sh\necho deleting\n"},
        {"actions": ["CREATE", "UPDATE"], "tool": "script", "config": "#!/bin/sh\necho making\n"},
    ]}
    server.publish(component)
    assert server.run().returncode == 0
    assert [b["deploy_stdout"] for b in receiver.bodies()] == ["making\n"]


def test_a_deployment_heat_config_already_ran_is_not_run_again(
        server: Server, receiver: SignalReceiver, tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    deployment = server.deployment("old", f"#!/bin/sh\ntouch {ran}\n")
    (server.state / "deployed").mkdir(parents=True)
    (server.state / "deployed" / "old.json").write_text(json.dumps(deployment))  # heat-config's
    server.publish(deployment)
    assert server.run().returncode == 0
    assert not ran.exists()
    assert receiver.received == []


def test_a_signal_too_big_for_heat_keeps_the_end_of_its_output() -> None:
    from hotplate.agent.notify import MAX_RESPONSE_SIZE, trim

    body = {"result": "kept", "deploy_stdout": "a" * 900_000 + "THE END",
            "deploy_stderr": "b" * 300_000 + "LAST ERROR", "deploy_status_code": 0}
    text = trim(body)
    assert len(text) <= MAX_RESPONSE_SIZE
    sent = json.loads(text)
    assert sent["result"] == "kept" and sent["deploy_status_code"] == 0
    assert sent["deploy_stdout"].endswith("THE END")
    assert sent["deploy_stderr"].endswith("LAST ERROR")
    assert trim({"deploy_stdout": "small"}) == json.dumps({"deploy_stdout": "small"})
