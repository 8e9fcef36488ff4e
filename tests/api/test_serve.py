"""``hotplate serve``: the API and an embedded engine in one process."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hotplate.api.background import free_port
from hotplate.cli.main import main
from tests.api.conftest import Api
from tests.api.helpers import value_template, wait_status, wait_until_serving


def test_serve_refuses_a_non_loopback_host(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--noauth", "--host", "0.0.0.0"]) == 2
    assert "--force" in capsys.readouterr().err


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Api, subprocess.Popen[str]]]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hotplate.cli.main", "serve", "--port", str(port),
         "--data-dir", str(tmp_path / "var"), "--noauth"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == f"hotplate API at http://127.0.0.1:{port}/v1/admin"
        api = Api(f"http://127.0.0.1:{port}")
        wait_until_serving(f"{api.endpoint}/build_info", proc)
        yield api, proc
    finally:
        proc.terminate()
        proc.wait(20)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def test_serve_drives_a_stack(served: tuple[Api, subprocess.Popen[str]],
                              tmp_path: Path) -> None:
    api, proc = served
    hc = api.client()
    hc.stacks.create(stack_name="served", template=value_template("hola"))
    stack = wait_status(hc, "served")
    assert stack.stack_status == "CREATE_COMPLETE"
    assert hc.stacks.output_show("served", "message")["output"]["output_value"] == \
        "hola, world"
    assert (tmp_path / "var" / "hotplate.sqlite").exists()
    proc.terminate()
    assert proc.wait(20) == 0
    assert proc.stderr is not None
    assert "noauth" in proc.stderr.read()


def test_serve_reads_its_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from hotplate.cli.main import build_parser

    monkeypatch.setenv("HOTPLATE_HOST", "::1")
    monkeypatch.setenv("HOTPLATE_PORT", "18123")
    monkeypatch.setenv("HOTPLATE_DATA_DIR", "/srv/hotplate")
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.data_dir) == ("::1", 18123, "/srv/hotplate")
    flagged = build_parser().parse_args(["serve", "--port", "9000", "--data-dir", "d"])
    assert (flagged.port, flagged.data_dir) == (9000, "d")
    monkeypatch.setenv("HOTPLATE_PORT", "http")
    with pytest.raises(SystemExit, match="HOTPLATE_PORT"):
        build_parser()


@pytest.mark.parametrize("command", ["api", "engine"])
def test_scale_out_commands_need_a_broker(command: str, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("HOTPLATE_TRANSPORT_URL", raising=False)
    assert main([command]) == 2
    assert "pass --transport-url or set HOTPLATE_TRANSPORT_URL" in capsys.readouterr().err


def test_a_bad_broker_url_is_named_without_its_password(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'hotplate.sqlite'}"
    assert main(["--db-url", db, "api", "--transport-url", "nosuch://u:secret@h/"]) == 2
    err = capsys.readouterr().err
    assert "nosuch://u:***@h/" in err and "secret" not in err


def test_api_refuses_noauth_on_a_public_address(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["api", "--noauth", "--host", "0.0.0.0",
                 "--transport-url", "rabbit://guest:guest@127.0.0.1:5672/"]) == 2
    assert "refusing to listen on non-loopback host 0.0.0.0" in capsys.readouterr().err
