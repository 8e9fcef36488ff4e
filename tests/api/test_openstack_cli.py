"""``openstack stack ...`` (openstackclient and heatclient's plugin) against ``hotplate serve``.

The real command line, as a subprocess, in a scratch working directory and
HOME (openstacksdk reads ./clouds.yaml and ~/.config), authenticated the way
the server's first start tells users to: ``--os-auth-type admin_token``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hotplate.api.background import free_port
from tests.api.helpers import wait_until_serving
from tests.openstack_cli import openstack_available, openstack_command

pytestmark = pytest.mark.skipif(not openstack_available(),
                                reason="python-openstackclient missing")

TEMPLATE = """\
heat_template_version: 2021-04-16
parameters:
  greeting: {type: string, default: hello}
  fail: {type: boolean, default: false}
resources:
  source:
    type: OS::Heat::TestResource
    properties: {value: {get_param: greeting}, fail: {get_param: fail}}
  message:
    type: OS::Heat::Value
    properties:
      value: {str_replace: {template: $g world, params: {$g: {get_attr: [source, output]}}}}
outputs:
  message: {value: {get_attr: [message, value]}, description: the greeting}
"""


@dataclass
class Cli:
    endpoint: str
    token: str
    cwd: Path

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
        env.update(HOME=str(self.cwd), XDG_CONFIG_HOME=str(self.cwd / ".config"))
        proc = subprocess.run(
            [*openstack_command(), "--os-auth-type", "admin_token", "--os-token", self.token,
             "--os-endpoint", self.endpoint, *args],
            cwd=self.cwd, env=env, capture_output=True, text=True, timeout=120,
        )
        if check:
            assert proc.returncode == 0, f"{args}: {proc.stdout}\n{proc.stderr}"
        return proc

    def json(self, *args: str) -> object:
        return json.loads(self.run(*args, "-f", "json").stdout)

    def value(self, *args: str) -> str:
        return self.run(*args, "-f", "value").stdout.strip()


@pytest.fixture(scope="module")
def cli(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cli]:
    root = tmp_path_factory.mktemp("osc")
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hotplate.cli.main", "serve", "--port", str(port),
         "--data-dir", str(root / "var")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(3)]
        command = lines[2].split()
        token = command[command.index("--os-token") + 1]
        endpoint = command[command.index("--os-endpoint") + 1]
        wait_until_serving(endpoint.rsplit("/v1/", 1)[0] + "/", proc)
        work = root / "work"
        work.mkdir()
        (work / "stack.yaml").write_text(TEMPLATE)
        (work / "env.yaml").write_text("parameter_defaults: {greeting: hi}\n")
        yield Cli(endpoint, token, work)
    finally:
        proc.terminate()
        proc.wait(20)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def test_create_with_environment_and_parameter_waits_for_the_end(cli: Cli) -> None:
    out = cli.run("stack", "create", "-t", "stack.yaml", "-e", "env.yaml",
                  "--parameter", "greeting=hey", "--wait", "first").stdout
    assert "[first]: CREATE_COMPLETE  Stack CREATE completed successfully" in out
    assert cli.value("stack", "output", "show", "first", "message", "-c",
                     "output_value") == "hey world"
    shown = cli.json("stack", "show", "first")
    assert isinstance(shown, dict)
    assert shown["stack_status"] == "CREATE_COMPLETE"
    assert shown["parameters"]["greeting"] == "hey"
    assert {o["output_key"] for o in shown["outputs"]} == {"message"}


def test_a_failing_create_exits_non_zero_with_the_reason(cli: Cli) -> None:
    proc = cli.run("stack", "create", "-t", "stack.yaml", "--parameter", "fail=true",
                   "--wait", "broken", check=False)
    assert proc.returncode != 0
    assert "CREATE_FAILED" in proc.stdout + proc.stderr
    reason = cli.value("stack", "show", "broken", "-c", "stack_status_reason")
    assert "Resource CREATE failed" in reason and "Test Resource failed source" in reason


def test_list_pages_through_limit_and_marker(cli: Cli) -> None:
    for name in ("page-a", "page-b", "page-c"):
        cli.run("stack", "create", "-t", "stack.yaml", "--wait", name)
    listed = cli.json("stack", "list")
    assert isinstance(listed, list)
    names = [s["Stack Name"] for s in listed]
    assert names[:3] == ["page-c", "page-b", "page-a"]  # newest first, as Heat
    first = cli.json("stack", "list", "--limit", "2")
    assert isinstance(first, list)
    assert [s["Stack Name"] for s in first] == names[:2]
    rest = cli.json("stack", "list", "--limit", "2", "--marker", first[-1]["ID"])
    assert isinstance(rest, list)
    assert [s["Stack Name"] for s in rest] == names[2:4]
    by_name = cli.json("stack", "list", "--sort", "stack_name:asc")
    assert isinstance(by_name, list)
    assert [s["Stack Name"] for s in by_name] == sorted(names)


def test_update_and_update_existing(cli: Cli) -> None:
    cli.run("stack", "create", "-t", "stack.yaml", "--wait", "upd")
    (cli.cwd / "stack2.yaml").write_text(TEMPLATE.replace("default: hello",
                                                          "default: howdy"))
    out = cli.run("stack", "update", "-t", "stack2.yaml", "--wait", "upd").stdout
    assert "UPDATE_COMPLETE" in out
    assert cli.value("stack", "output", "show", "upd", "message", "-c",
                     "output_value") == "howdy world"
    cli.run("stack", "update", "--existing", "--parameter", "greeting=yo", "--wait", "upd")
    assert cli.value("stack", "output", "show", "upd", "message", "-c",
                     "output_value") == "yo world"
    events = cli.run("stack", "event", "list", "upd").stdout
    assert "[upd]: UPDATE_COMPLETE  Stack UPDATE completed successfully" in events
    assert "[upd.source]: UPDATE_COMPLETE  state changed" in events


def test_resource_list_show_and_event_list(cli: Cli) -> None:
    cli.run("stack", "create", "-t", "stack.yaml", "--wait", "res")
    rows = cli.json("stack", "resource", "list", "--nested-depth", "2", "res")
    assert isinstance(rows, list)
    assert {(r["resource_name"], r["resource_type"], r["resource_status"]) for r in rows} == {
        ("source", "OS::Heat::TestResource", "CREATE_COMPLETE"),
        ("message", "OS::Heat::Value", "CREATE_COMPLETE"),
    }
    assert all(r["stack_name"] == "res" for r in rows)
    shown = cli.json("stack", "resource", "show", "res", "message")
    assert isinstance(shown, dict)
    assert shown["attributes"]["value"] == "hello world"
    events = cli.json("stack", "event", "list", "res", "--resource", "source")
    assert isinstance(events, list)
    assert [e["resource_status"] for e in events] == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]


def test_cancel_of_a_finished_stack_is_refused(cli: Cli) -> None:
    cli.run("stack", "create", "-t", "stack.yaml", "--wait", "done")
    proc = cli.run("stack", "cancel", "done", check=False)
    assert proc.returncode != 0
    assert "not in cancelable state" in proc.stderr


def test_delete_waits_and_the_stack_is_gone(cli: Cli) -> None:
    cli.run("stack", "create", "-t", "stack.yaml", "--wait", "gone")
    cli.run("stack", "delete", "--yes", "--wait", "gone")
    names = cli.value("stack", "list", "-c", "Stack Name").splitlines()
    assert "gone" not in names
    proc = cli.run("stack", "show", "gone", check=False)
    assert proc.returncode != 0
    assert "Stack not found: gone" in proc.stderr or "could not be found" in proc.stderr


NESTED_INNER = """\
heat_template_version: 2021-04-16
parameters:
  word: {type: string}
resources:
  leaf:
    type: OS::Heat::TestResource
    properties: {value: {get_param: word}}
outputs:
  said: {value: {get_attr: [leaf, output]}}
"""

NESTED_OUTER = """\
heat_template_version: 2021-04-16
resources:
  kid:
    type: inner.yaml
    properties: {word: nested}
outputs:
  said: {value: {get_attr: [kid, said]}}
"""


def test_a_template_resource_from_a_local_file_and_nested_listing(cli: Cli) -> None:
    (cli.cwd / "inner.yaml").write_text(NESTED_INNER)
    (cli.cwd / "outer.yaml").write_text(NESTED_OUTER)
    cli.run("stack", "create", "-t", "outer.yaml", "--wait", "nest")
    assert cli.value("stack", "output", "show", "nest", "said", "-c",
                     "output_value") == "nested"
    rows = cli.json("stack", "resource", "list", "--nested-depth", "2", "nest")
    assert isinstance(rows, list)
    by_name = {r["resource_name"]: r for r in rows}
    assert set(by_name) == {"kid", "leaf"}
    assert by_name["kid"]["stack_name"] == "nest"
    assert by_name["leaf"]["stack_name"].startswith("nest-kid-")
    assert "nest-kid-" not in cli.value("stack", "list", "-c", "Stack Name")


def test_template_validate(cli: Cli) -> None:
    shown = cli.json("orchestration", "template", "validate", "-t", "stack.yaml")
    assert isinstance(shown, dict)
    assert shown["Parameters"]["greeting"]["Default"] == "hello"
    assert shown["Parameters"]["fail"]["Type"] == "Boolean"
    (cli.cwd / "broken.yaml").write_text(
        "heat_template_version: 2021-04-16\nresources:\n  r:\n    type: OS::Heat::None\n"
        "    depends_on: ghost\n")
    proc = cli.run("orchestration", "template", "validate", "-t", "broken.yaml",
                   check=False)
    assert proc.returncode != 0
    assert 'The specified reference "ghost" (in r) is incorrect.' in proc.stderr


def test_hook_poll_and_clear(cli: Cli) -> None:
    (cli.cwd / "hooks.yaml").write_text(
        "resource_registry:\n  resources:\n    source:\n      hooks: pre-create\n")
    cli.run("stack", "create", "-t", "stack.yaml", "-e", "hooks.yaml", "hooked")
    deadline = time.monotonic() + 30
    while "pre-create" not in cli.run("stack", "hook", "poll", "hooked").stdout:
        assert time.monotonic() < deadline, "the hook was never reached"
        time.sleep(0.5)
    assert cli.value("stack", "show", "hooked", "-c", "stack_status") == \
        "CREATE_IN_PROGRESS"
    cli.run("stack", "hook", "clear", "--pre-create", "hooked", "source")
    deadline = time.monotonic() + 30
    while cli.value("stack", "show", "hooked", "-c", "stack_status") != "CREATE_COMPLETE":
        assert time.monotonic() < deadline, "the stack did not finish after the clear"
        time.sleep(0.5)
    events = cli.run("stack", "event", "list", "hooked").stdout
    assert "CREATE paused until Hook pre-create is cleared" in events
    assert "Hook pre-create is cleared" in events


def test_signal_to_a_resource_that_takes_none(cli: Cli) -> None:
    cli.run("stack", "create", "-t", "stack.yaml", "--wait", "sig")
    proc = cli.run("stack", "resource", "signal", "sig", "source", "--data", '{"a": 1}',
                   check=False)
    assert proc.returncode != 0
    assert "signal is not supported for resource." in proc.stderr


def test_suspend_resume_and_check(cli: Cli) -> None:
    cli.run("stack", "create", "-t", "stack.yaml", "--wait", "sus")
    cli.run("stack", "suspend", "--wait", "sus")
    assert cli.value("stack", "show", "sus", "-c", "stack_status") == "SUSPEND_COMPLETE"
    cli.run("stack", "resume", "--wait", "sus")
    assert cli.value("stack", "show", "sus", "-c", "stack_status") == "RESUME_COMPLETE"
    cli.run("stack", "check", "--wait", "sus")
    assert cli.value("stack", "show", "sus", "-c", "stack_status") == "CHECK_COMPLETE"


SLOW_UPDATE = """\
heat_template_version: 2021-04-16
parameters:
  v: {type: string, default: one}
resources:
  slow:
    type: OS::Heat::TestResource
    properties: {value: {get_param: v}, action_wait_secs: {update: 10}}
"""


def test_cancel_a_running_update_rolls_back(cli: Cli) -> None:
    (cli.cwd / "slow.yaml").write_text(SLOW_UPDATE)
    cli.run("stack", "create", "-t", "slow.yaml", "--wait", "slowpoke")
    cli.run("stack", "update", "--existing", "--parameter", "v=two", "slowpoke")
    assert cli.value("stack", "show", "slowpoke", "-c", "stack_status") == \
        "UPDATE_IN_PROGRESS"
    cli.run("stack", "cancel", "--wait", "slowpoke")
    status = cli.value("stack", "show", "slowpoke", "-c", "stack_status")
    assert status == "ROLLBACK_COMPLETE"


def test_update_dry_run_prints_heats_five_lists_only(cli: Cli) -> None:
    # hotplate's plan detail travels beside resource_changes; the plugin prints one
    # column per key of resource_changes, so its output is what it is against Heat.
    cli.run("stack", "create", "-t", "stack.yaml", "--wait", "dry")
    (cli.cwd / "dry2.yaml").write_text(TEMPLATE.replace("default: hello", "default: howdy"))
    shown = cli.json("stack", "update", "--dry-run", "-t", "dry2.yaml", "dry")
    assert isinstance(shown, dict)
    assert sorted(shown) == ["added", "deleted", "replaced", "unchanged", "updated"]
    assert [r["resource_name"] for r in shown["updated"]] == ["source"]
    assert "properties" not in shown["updated"][0]
    assert cli.value("stack", "show", "dry", "-c", "stack_status") == "CREATE_COMPLETE"
