"""``openstack software config ...`` and ``openstack software deployment ...`` against
``hotplate serve``: the real command line, as users run it."""

from __future__ import annotations

import json
from typing import Any

from tests.api import test_openstack_cli as osc
from tests.api.test_openstack_cli import Cli

pytestmark = osc.pytestmark
cli = osc.cli  # the served command line, as the stack commands' tests use it

SCRIPT = "#!/bin/sh\necho hello > /tmp/hello\n"
DEFINITION = """\
inputs:
- name: greeting
  default: hi
outputs:
- name: result
options: {tidy: true}
"""


def _heat(cli: Cli) -> Any:
    from heatclient.client import Client

    return Client("1", endpoint=cli.endpoint, token=cli.token)


def test_software_config_create_list_show_delete(cli: Cli) -> None:
    (cli.cwd / "script.sh").write_text(SCRIPT)
    (cli.cwd / "definition.yaml").write_text(DEFINITION)
    made = cli.json("software", "config", "create", "--config-file", "script.sh",
                    "--definition-file", "definition.yaml", "--group", "script", "hello")
    assert isinstance(made, dict)
    config_id = made["id"]
    shown = cli.json("software", "config", "show", config_id)
    assert isinstance(shown, dict)
    assert shown["config"] == SCRIPT
    assert shown["group"] == "script"
    assert shown["inputs"] == [{"name": "greeting", "default": "hi", "type": "String"}]
    assert shown["outputs"] == [{"name": "result", "type": "String", "error_output": False}]
    assert shown["options"] == {"tidy": True}
    assert cli.value("software", "config", "show", config_id, "--config-only") == SCRIPT.strip()
    listed = cli.json("software", "config", "list")
    assert isinstance(listed, list)
    assert {"id": config_id, "name": "hello", "group": "script"}.items() <= {
        k: v for row in listed if row["id"] == config_id for k, v in row.items()}.items()
    cli.run("software", "config", "delete", config_id)
    gone = cli.run("software", "config", "show", config_id, check=False)
    assert gone.returncode != 0
    assert f"Configuration not found: {config_id}" in gone.stderr  # the client's 404 text


def test_software_deployment_create_show_metadata_output_delete(cli: Cli) -> None:
    (cli.cwd / "script.sh").write_text(SCRIPT)
    (cli.cwd / "definition.yaml").write_text(DEFINITION)
    source = cli.json("software", "config", "create", "--config-file", "script.sh",
                      "--definition-file", "definition.yaml", "--group", "script", "source")
    assert isinstance(source, dict)
    config_id = source["id"]
    server = "5d4b4e3c-9a5f-4f0e-8b1d-3c0ddc0ffee1"
    made = cli.json("software", "deployment", "create", "--config", config_id,
                    "--server", server, "--signal-transport", "NO_SIGNAL",
                    "--input-value", "greeting=hello", "deployed")
    assert isinstance(made, dict)
    deployment_id = made["id"]
    assert (made["server_id"], made["status"], made["action"]) == (
        server, "IN_PROGRESS", "UPDATE")
    shown = cli.json("software", "deployment", "show", deployment_id)
    assert isinstance(shown, dict)
    assert shown["config_id"] != config_id  # the client's derived config
    listed = cli.json("software", "deployment", "list", "--server", server)
    assert isinstance(listed, list)
    assert [row["id"] for row in listed] == [deployment_id]

    metadata = json.loads(cli.run("software", "deployment", "metadata", "show",
                                  server).stdout)
    [derived] = metadata
    assert derived["name"] == "deployed"
    assert {i["name"]: i.get("value") for i in derived["inputs"]}["greeting"] == "hello"

    _heat(cli).software_deployments.update(
        deployment_id, status="COMPLETE", output_values={"result": "made it"})
    out = cli.run("software", "deployment", "output", "show", deployment_id, "result").stdout
    assert "made it" in out

    cli.run("software", "deployment", "delete", deployment_id)
    gone = cli.run("software", "deployment", "show", deployment_id, check=False)
    assert gone.returncode != 0
    assert json.loads(cli.run("software", "deployment", "metadata", "show",
                              server).stdout) == []
