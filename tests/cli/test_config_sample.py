"""``hotplate config sample``: every option, its help and default, as a hotplate.conf that
oslo.config reads back to the defaults; and the commands' one-line configuration errors."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from oslo_config import cfg

from hotplate.config import Sources, load
from hotplate.config.options import GROUPS, env_name, register
from hotplate.config.sample import render


def run(*args: str, home: Path, env: dict[str, str] | None = None,
        ) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("HOTPLATE_")}
    return subprocess.run([sys.executable, "-m", "hotplate.cli.main", *args],
                          env={**base, "HOME": str(home), **(env or {})}, cwd=home,
                          capture_output=True, text=True, timeout=60)


def test_the_sample_lists_every_section_and_option_at_its_default() -> None:
    text = render()
    sections = re.findall(r"^\[(\w+)\]$", text, re.MULTILINE)
    assert sections == [group for group, _ in GROUPS]
    for group, opts in GROUPS:
        body = text.split(f"[{group}]\n", 1)[1].split("\n[", 1)[0]
        for opt in opts:
            assert f"\n#{opt.dest} =" in body, opt.dest
            assert f"# Environment variable: {env_name(group, opt.dest)}\n" in body
    assert "#executor_thread_pool_size = 16\n" in text
    assert "#num_engine_workers = <max(4, CPU count)>\n" in text
    assert "#max_resources_per_stack = 1000\n" in text
    assert "#enable_stack_adopt = false\n" in text
    assert "#topics = notifications\n" in text
    assert "#driver =\n" in text
    assert "# Minimum value: 1\n" in text
    assert all(len(line) <= 79 for line in text.splitlines())


def test_every_help_text_is_in_the_sample() -> None:
    text = " ".join(line.lstrip("# ") for line in render().splitlines())
    for _, opts in GROUPS:
        for opt in opts:
            assert " ".join(opt.help.split()) in " ".join(text.split()), opt.dest


def test_the_sample_is_a_configuration_that_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "hotplate.conf"
    path.write_text(render())
    conf = cfg.ConfigOpts()
    register(conf)
    conf(args=[], default_config_files=[str(path)], use_env=False)  # it parses
    from_sample = load([str(path)], environ={}, search=())
    assert from_sample.sources.files == (str(path),)
    assert replace(from_sample, sources=Sources()) == load(environ={}, search=())


def test_hotplate_config_sample_prints_it(tmp_path: Path) -> None:
    done = run("config", "sample", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == render()


def test_engine_reads_the_broker_from_the_file(tmp_path: Path) -> None:
    conf = tmp_path / "heat.conf"
    conf.write_text("[DEFAULT]\ntransport_url = nosuch://heat:s3cret@broker/\n"
                    "[keystone_authtoken]\nauth_type = password\n")
    done = run("engine", "--config-file", str(conf), home=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "error: transport URL 'nosuch://heat:***@broker/': no oslo.messaging driver "
        "'nosuch' (installed: fake, kafka, kombu, rabbit)")


def test_engine_without_a_broker_anywhere(tmp_path: Path) -> None:
    done = run("engine", home=tmp_path)
    assert done.returncode == 2
    assert "pass --transport-url or set HOTPLATE_TRANSPORT_URL" in done.stderr


@pytest.mark.parametrize("command", [["db", "sync"], ["engine"], ["serve"], ["api"]])
def test_a_bad_value_ends_any_command_with_one_line(tmp_path: Path,
                                                    command: list[str]) -> None:
    conf = tmp_path / ".hotplate" / "hotplate.conf"  # found in HOME without a flag
    conf.parent.mkdir()
    conf.write_text("[DEFAULT]\ntransport_url = rabbit://g:g@127.0.0.1:1/\n"
                    "periodic_interval = often\n")
    done = run(*command, home=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"error: [DEFAULT]/periodic_interval in {conf}: invalid literal for int() with "
        "base 10: 'often'")


def test_a_variable_beats_the_file_on_the_command_line(tmp_path: Path) -> None:
    conf = tmp_path / "h.conf"
    conf.write_text("[database]\nconnection = sqlite:///from-file.sqlite\n")
    done = run("--config-file", str(conf), "db", "sync", home=tmp_path,
               env={"HOTPLATE_DB_URL": f"sqlite:///{tmp_path}/from-variable.sqlite"})
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "from-variable.sqlite").exists()
    assert not (tmp_path / "from-file.sqlite").exists()
    flagged = run("--config-file", str(conf), "--db-url",
                  f"sqlite:///{tmp_path}/from-flag.sqlite", "db", "sync", home=tmp_path,
                  env={"HOTPLATE_DB_URL": f"sqlite:///{tmp_path}/from-variable.sqlite"})
    assert flagged.returncode == 0, flagged.stderr
    assert (tmp_path / "from-flag.sqlite").exists()


@pytest.mark.parametrize("command", ["serve", "engine"])
def test_an_unknown_notification_driver_stops_the_command(tmp_path: Path,
                                                          command: str) -> None:
    conf = tmp_path / "h.conf"
    conf.write_text("[DEFAULT]\ntransport_url = rabbit://g:g@127.0.0.1:1/\n"
                    "[oslo_messaging_notifications]\ndriver = nonesuch\n")
    done = run(command, "--config-file", str(conf), home=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "error: unknown notification driver nonesuch; oslo.messaging has " in done.stderr
    assert done.stdout == ""
