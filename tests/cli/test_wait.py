"""``--wait`` (event lines in a pipe, a live view on a terminal) and ``event list --follow``."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time

from tests.cli.conftest import POLL, Cli
from tests.cli.helpers import FAILING_TEMPLATE, PLAIN_TEMPLATE, SLOW_TEMPLATE, write

FAILURE = "Resource CREATE failed: ValueError: resources.bad: Test Resource failed bad"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_a_failing_create_exits_1_with_the_reason(cli: Cli) -> None:
    template = write(cli.home, "failing.yaml", FAILING_TEMPLATE)
    done = cli("stack", "create", "broken", "-t", template, "--wait", "--poll", POLL)
    assert done.code == 1
    assert "[broken.bad]: CREATE_FAILED  ValueError: resources.bad: Test Resource failed bad" \
        in done.out
    assert f"| stack_status_reason | {FAILURE} |" in done.out
    assert done.err == f"ERROR: Stack broken CREATE_FAILED: {FAILURE}\n"
    without_wait = cli("stack", "create", "broken-later", "-t", template)
    assert without_wait.code == 0, "without --wait the failure is not known yet"


def test_cancel_without_rollback_ends_the_wait(cli: Cli) -> None:
    template = write(cli.home, "slow.yaml", SLOW_TEMPLATE)
    assert cli("stack", "create", "patient", "-t", template).code == 0
    done = cli("stack", "cancel", "patient", "--no-rollback", "--wait", "--poll", POLL)
    assert done.code == 1
    assert "[patient]: CREATE_FAILED  Stack CREATE cancelled" in done.out
    assert done.err == "ERROR: Stack patient CREATE_FAILED: Stack CREATE cancelled\n"


def _run_in_terminal(cli: Cli, *args: str, timeout: float = 60) -> tuple[int, str]:
    """Run the command with a 120x40 pseudo-terminal as stdin, stdout and stderr."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = cli.environ({"TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"})
    proc = subprocess.Popen(cli.command(*args), stdin=follower, stdout=follower,
                            stderr=follower, env=env, cwd=cli.home, close_fds=True)
    os.close(follower)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.5)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(leader, 65536)
            except OSError:  # the terminal closed with the process
                break
            if not data:
                break
            chunks.append(data)
        code = proc.wait(timeout=10)
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()
    return code, _ANSI.sub("", b"".join(chunks).decode(errors="replace"))


def test_on_a_terminal_the_wait_is_a_live_view(cli: Cli) -> None:
    template = write(cli.home, "failing.yaml", FAILING_TEMPLATE)
    code, screen = _run_in_terminal(cli, "stack", "create", "watched", "-t", template,
                                    "--wait", "--poll", POLL)
    assert code == 1, screen
    assert "Stack watched  CREATE_FAILED" in screen
    assert re.search(r"Resource\s+Type\s+Status\s+Time\s+Reason", screen), screen
    assert re.search(r"good\s+OS::Heat::TestResource\s+CREATE_COMPLETE", screen), screen
    assert re.search(r"bad\s+OS::Heat::TestResource\s+CREATE_FAILED\s+\d+s\s+ValueError",
                     screen), screen
    assert f"ERROR: Stack watched CREATE_FAILED: {FAILURE}" in screen


def test_follow_prints_events_until_its_time_is_up(cli: Cli) -> None:
    template = write(cli.home, "plain.yaml", PLAIN_TEMPLATE)
    assert cli("stack", "create", "followed", "-t", template, "--wait", "--poll",
               POLL).code == 0
    done = cli("stack", "event", "list", "followed", "--follow", "--poll", POLL,
               "--follow-timeout", "0.5")
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    assert len(lines) == 6, "each event once, however many polls"
    assert lines[-1].endswith("[followed]: CREATE_COMPLETE  Stack CREATE completed "
                              "successfully")
    table = cli("stack", "event", "list", "followed", "--follow", "-f", "table")
    assert table.err == "ERROR: --follow can only be specified with --format log\n"


def test_follow_ends_quietly_on_ctrl_c(cli: Cli) -> None:
    template = write(cli.home, "plain.yaml", PLAIN_TEMPLATE)
    assert cli("stack", "create", "tailed", "-t", template, "--wait", "--poll",
               POLL).code == 0
    proc = subprocess.Popen(cli.command("stack", "event", "list", "tailed", "--follow",
                                        "--poll", POLL),
                            env=cli.environ(), cwd=cli.home, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(6)]
        assert lines[0].rstrip().endswith("[tailed]: CREATE_IN_PROGRESS  Stack CREATE started")
        assert lines[5].rstrip().endswith("[tailed]: CREATE_COMPLETE  Stack CREATE completed "
                                          "successfully")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert (out, err) == ("", "")
