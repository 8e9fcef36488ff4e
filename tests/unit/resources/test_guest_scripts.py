"""The programs a server's boot data carries (nova/guest_scripts.py), run here as
cloud-init would run them, with their paths moved into a temporary directory: the
part handler writes each x-cfninitdata part where heat-cfntools reads it, and the
user script runs the user data once, logging it, and marks a success."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path
from typing import Any

from hotplate.resources.openstack.nova.guest_scripts import PART_HANDLER, RUN_USERDATA


def _handler(tmp: Path) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(PART_HANDLER, "part-handler.py", "exec"), namespace)
    namespace["TARGETS"] = (str(tmp / "heat-cfntools"), str(tmp / "cloud-data"))
    namespace["LOG"] = str(tmp / "part-handler.log")
    return namespace


def test_the_part_handler_writes_each_part_into_both_places(tmp_path: Path) -> None:
    handler = _handler(tmp_path)
    assert handler["list_types"]() == ["text/x-cfninitdata"]
    handler["handle_part"](None, "__begin__", None, None)
    assert stat.S_IMODE(os.stat(tmp_path / "heat-cfntools").st_mode) == 0o700
    handler["handle_part"](None, "text/x-cfninitdata", "cfn-init-data", '{"a": 1}')
    handler["handle_part"](None, "text/x-cfninitdata", "../escape", "no")
    handler["handle_part"](None, "__end__", None, None)
    for place in ("heat-cfntools", "cloud-data"):
        written = tmp_path / place / "cfn-init-data"
        assert written.read_text() == '{"a": 1}'
        assert stat.S_IMODE(written.stat().st_mode) == 0o600
        assert (tmp_path / place / "escape").read_text() == "no"  # its name only
    assert not (tmp_path / "escape").exists()
    assert "filename:cfn-init-data" in (tmp_path / "part-handler.log").read_text()


def _run(tmp: Path, userdata: str | None) -> subprocess.CompletedProcess[str]:
    data = tmp / "heat-cfntools"
    data.mkdir()
    if userdata is not None:
        (data / "cfn-userdata").write_text(userdata)
    script = RUN_USERDATA.replace("/var/lib/heat-cfntools", str(data)).replace(
        "/var/log/heat-provision.log", str(tmp / "provision.log"))
    return subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=30)


def test_the_user_data_runs_logged_and_a_success_is_marked(tmp_path: Path) -> None:
    done = _run(tmp_path, "#!/bin/sh\necho configured\n")
    assert done.returncode == 0, done.stderr
    log = (tmp_path / "provision.log").read_text()
    assert "Provision began" in log and "configured" in log and "Provision done" in log
    assert (tmp_path / "heat-cfntools" / "provision-finished").exists()


def test_a_failing_user_data_fails_the_script_and_marks_nothing(tmp_path: Path) -> None:
    done = _run(tmp_path, "#!/bin/sh\nexit 3\n")
    assert done.returncode == 3
    assert "Provision failed with exit code 3" in (tmp_path / "provision.log").read_text()
    assert not (tmp_path / "heat-cfntools" / "provision-finished").exists()


def test_no_user_data_is_nothing_to_run(tmp_path: Path) -> None:
    assert _run(tmp_path, None).returncode == 0
    assert "Userdata empty" in (tmp_path / "provision.log").read_text()
