"""``hotplate stack ...`` against a real server: output formats, columns, pagination,
update --existing, files sent with a template, delete --wait, Heat's error messages."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import POLL, Cli
from tests.cli.helpers import PLAIN_TEMPLATE, VALUE_TEMPLATE, write


def _create(cli: Cli, name: str, template: str, *extra: str) -> str:
    """Create and wait; returns the new stack's id."""
    done = cli("stack", "create", name, "-t", template, "--wait", "--poll", POLL,
               "-f", "value", "-c", "id", *extra)
    assert done.code == 0, done.err
    return done.out.strip()


def test_create_wait_prints_events_then_the_stack(cli: Cli) -> None:
    template = write(cli.home, "value.yaml", VALUE_TEMPLATE)
    done = cli("stack", "create", "hello", "-t", template, "--wait", "--poll", POLL)
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    assert lines[0].endswith("[hello]: CREATE_IN_PROGRESS  Stack CREATE started")
    assert any("[hello.source]: CREATE_COMPLETE  state changed" in line for line in lines)
    assert any(line.endswith("[hello]: CREATE_COMPLETE  Stack CREATE completed successfully")
               for line in lines)
    table = done.out[done.out.index("+--"):]
    assert "| Field               | Value" in table
    assert "| stack_status        | CREATE_COMPLETE " in table
    assert "| description         | a greeting " in table


def test_show_list_outputs_resources_and_events(cli: Cli) -> None:
    template = write(cli.home, "value.yaml", VALUE_TEMPLATE)
    stack_id = _create(cli, "reader", template, "--parameter", "greeting=hi")

    shown = json.loads(cli("stack", "show", "reader", "-f", "json").out)
    assert shown["id"] == stack_id
    assert list(shown)[:7] == ["id", "stack_name", "description", "creation_time",
                               "updated_time", "stack_status", "stack_status_reason"]
    assert shown["outputs"] == [{"output_key": "message", "description": "the greeting",
                                 "output_value": "hi, world"}]
    assert shown["parameters"]["greeting"] == "hi"
    assert "template_description" not in shown
    by_id = cli("stack", "show", stack_id, "-f", "value", "-c", "stack_name", "-c",
                "stack_status")
    assert by_id.out == "reader\nCREATE_COMPLETE\n"

    listed = json.loads(cli("stack", "list", "-f", "json").out)
    mine = next(row for row in listed if row["ID"] == stack_id)
    assert list(mine) == ["ID", "Stack Name", "Project", "Stack Status", "Creation Time",
                          "Updated Time"]
    assert mine["Stack Name"] == "reader" and mine["Project"] == "admin"

    assert cli("stack", "output", "show", "reader", "message", "-f", "value", "-c",
               "output_value").out == "hi, world\n"
    outputs = cli("stack", "output", "list", "reader")
    assert "| output_key | description  |" in outputs.out
    assert "| message    | the greeting |" in outputs.out

    resources = json.loads(cli("stack", "resource", "list", "reader", "-f", "json").out)
    assert [(r["resource_name"], r["resource_type"], r["resource_status"])
            for r in resources] == [("source", "OS::Heat::TestResource", "CREATE_COMPLETE"),
                                    ("message", "OS::Heat::Value", "CREATE_COMPLETE")]
    assert list(resources[0]) == ["resource_name", "physical_resource_id", "resource_type",
                                  "resource_status", "updated_time"]
    source = cli("stack", "resource", "show", "reader", "source", "-f", "json")
    assert json.loads(source.out)["attributes"] == {"output": "hi"}

    events = cli("stack", "event", "list", "reader").out.splitlines()
    assert len(events) == 6
    assert "[reader]: CREATE_IN_PROGRESS  Stack CREATE started" in events[0]
    assert "[reader.message]: CREATE_COMPLETE  state changed" in events[4]
    newest = cli("stack", "event", "list", "reader", "--sort", "event_time:desc", "--limit",
                 "1", "-f", "value", "-c", "resource_status_reason")
    assert newest.out == "Stack CREATE completed successfully\n"
    first = json.loads(cli("stack", "event", "list", "reader", "--limit", "1", "-f",
                           "json").out)[0]
    detail = cli("stack", "event", "show", "reader", "reader", first["id"], "-f", "json")
    assert json.loads(detail.out)["resource_status_reason"] == "Stack CREATE started"

    template_text = cli("stack", "template", "show", "reader").out
    assert "heat_template_version: '2021-04-16'" in template_text
    assert "  source:\n    properties:" in template_text


def test_columns_and_value_format(cli: Cli) -> None:
    template = write(cli.home, "plain.yaml", PLAIN_TEMPLATE)
    _create(cli, "columns", template)
    value = cli("stack", "resource", "list", "columns", "-f", "value", "-c",
                "Resource Name", "-c", "resource_status")
    assert value.out == "first CREATE_COMPLETE\nsecond CREATE_COMPLETE\n"
    table = cli("stack", "resource", "list", "columns", "-c", "resource_name")
    assert table.out.splitlines() == ["+---------------+", "| resource_name |",
                                      "+---------------+", "| first         |",
                                      "| second        |", "+---------------+"]
    unknown = cli("stack", "list", "-c", "nope")
    assert unknown.code == 1
    assert unknown.err.startswith("ERROR: No recognized column names in ['nope']. "
                                  "Recognized columns are ['ID', 'Stack Name',")


def test_list_pages_with_limit_and_marker(cli: Cli) -> None:
    template = write(cli.home, "plain.yaml", PLAIN_TEMPLATE)
    names = ["page-a", "page-b", "page-c"]
    for name in names:
        assert cli("stack", "create", name, "-t", template).code == 0
    mine = [arg for name in names for arg in ("--property", f"name={name}")]

    def listed(*extra: str) -> list[str]:
        done = cli("stack", "list", *mine, "-f", "value", "-c", "Stack Name", "-c", "ID",
                   *extra)
        assert done.code == 0, done.err
        return done.out.splitlines()

    everything = listed()
    assert sorted(line.split()[1] for line in everything) == names
    assert listed("--limit", "2") == everything[:2]
    assert listed("--limit", "10") == everything
    second_id = everything[1].split()[0]
    assert listed("--marker", second_id, "--limit", "5") == everything[2:]
    by_name = listed("--sort", "stack_name:desc")
    assert [line.split()[1] for line in by_name] == names[::-1]


def test_update_existing_keeps_the_template(cli: Cli) -> None:
    template = write(cli.home, "value.yaml", VALUE_TEMPLATE)
    _create(cli, "patched", template)
    done = cli("stack", "update", "patched", "--existing", "--parameter", "greeting=hola",
               "--wait", "--poll", POLL, "-f", "value", "-c", "stack_status")
    assert done.code == 0, done.err
    assert done.out == "UPDATE_COMPLETE\n"
    assert "[patched]: UPDATE_COMPLETE  Stack UPDATE completed successfully" in done.err
    assert "CREATE" not in done.err, "the wait shows only the update's own events"
    assert cli("stack", "output", "show", "patched", "message", "-f", "value", "-c",
               "output_value").out == "hola, world\n"
    again = cli("stack", "update", "patched", "--existing", "--wait", "--poll", POLL)
    assert again.code == 0, again.err
    assert cli("stack", "output", "show", "patched", "message", "-f", "value", "-c",
               "output_value").out == "hola, world\n"
    missing = cli("stack", "update", "patched")
    assert missing.code == 1
    assert missing.err.startswith("ERROR: Need to specify exactly one of")


def test_local_files_and_environments_travel_with_the_template(cli: Cli) -> None:
    write(cli.home, "tpl/motd.txt", "from a file\n")
    template = write(cli.home, "tpl/files.yaml", """\
heat_template_version: 2021-04-16
parameters:
  greeting: {type: string, default: hello}
resources:
  text:
    type: Local::Text
    properties: {value: {get_file: motd.txt}}
  greet:
    type: OS::Heat::Value
    properties: {value: {get_param: greeting}}
outputs:
  text: {value: {get_attr: [text, output]}}
  greeting: {value: {get_attr: [greet, value]}}
""")
    first = write(cli.home, "env/first.yaml", "parameters: {greeting: first}\n"
                  "resource_registry: {'Local::Text': 'OS::Heat::TestResource'}\n")
    second = write(cli.home, "env/second.yaml", "parameters: {greeting: second}\n")
    _create(cli, "files", template, "-e", first, "-e", second)

    def output(key: str) -> str:
        return cli("stack", "output", "show", "files", key, "-f", "value", "-c",
                   "output_value").out

    assert output("text") == "from a file\n\n"
    assert output("greeting") == "second\n"
    stored = cli("stack", "template", "show", "files", "-f", "json").out
    motd = (Path(cli.home) / "tpl" / "motd.txt").resolve().as_uri()
    assert json.loads(stored)["resources"]["text"]["properties"]["value"] == {"get_file": motd}


def test_delete_wait_then_the_stack_is_gone(cli: Cli) -> None:
    template = write(cli.home, "plain.yaml", PLAIN_TEMPLATE)
    _create(cli, "doomed", template)
    done = cli("stack", "delete", "doomed", "--yes", "--wait", "--poll", POLL)
    assert done.code == 0, done.err
    assert "[doomed]: DELETE_COMPLETE  Stack DELETE completed successfully" in done.out
    assert "CREATE" not in done.out
    gone = cli("stack", "show", "doomed")
    assert (gone.code, gone.err) == (1, "ERROR: Stack not found: doomed\n")
    again = cli("stack", "delete", "doomed", "-y")
    assert again.code == 1
    assert again.err == "Stack not found: doomed\nERROR: Unable to delete 1 of the 1 stacks.\n"


def test_heat_fault_bodies_print_as_one_line(cli: Cli) -> None:
    template = write(cli.home, "bad.yaml", "heat_template_version: 2021-04-16\n"
                     "resources:\n  thing: {type: 'No::Such::Type'}\n")
    done = cli("stack", "create", "refused", "-t", template)
    assert done.code == 1
    assert done.out == ""
    assert done.err.startswith("ERROR: ")
    assert len(done.err.splitlines()) == 1
    assert "No::Such::Type" in done.err
    template_path = write(cli.home, "plain.yaml", PLAIN_TEMPLATE)
    _create(cli, "settled", template_path)
    cancel = cli("stack", "cancel", "settled")
    assert cancel.err == ("ERROR: Stack settled with status 'create_complete' not in "
                          "cancelable state\n")
    no_output = cli("stack", "output", "show", "settled", "nothing")
    assert no_output.err == "ERROR: Stack settled or output nothing not found.\n"
    unreadable = cli("stack", "create", "nofile", "-t", str(cli.home / "missing.yaml"))
    assert unreadable.code == 1
    assert unreadable.err.startswith("ERROR: Could not fetch contents for file://")


def test_snapshot_create_list_show_restore_delete(cli: Cli) -> None:
    template = write(cli.home, "value.yaml", VALUE_TEMPLATE)
    _create(cli, "snapshotted-cli", template, "--parameter", "greeting=first")
    made = json.loads(cli("stack", "snapshot", "create", "snapshotted-cli", "--name", "one",
                          "--wait", "--poll", POLL, "-f", "json").out)
    assert (made["name"], made["status"]) == ("one", "COMPLETE")
    assert made["data"]["environment"]["parameters"]["greeting"] == "first"

    listed = json.loads(cli("stack", "snapshot", "list", "snapshotted-cli", "-f", "json").out)
    assert [(row["ID"], row["Name"], row["Status"]) for row in listed] == [
        (made["id"], "one", "COMPLETE")]
    shown = cli("stack", "snapshot", "show", "snapshotted-cli", made["id"])
    assert shown.code == 0 and f"id: {made['id']}" in shown.out

    update = cli("stack", "update", "snapshotted-cli", "--existing", "--parameter",
                 "greeting=second", "--wait", "--poll", POLL)
    assert update.code == 0, update.err
    restored = cli("stack", "snapshot", "restore", "snapshotted-cli", made["id"], "--wait",
                   "--poll", POLL)
    assert restored.code == 0, restored.err
    assert cli("stack", "output", "show", "snapshotted-cli", "message", "-f", "value", "-c",
               "output_value").out == "first, world\n"

    assert cli("stack", "snapshot", "delete", "snapshotted-cli", made["id"]).code == 0
    assert json.loads(cli("stack", "snapshot", "list", "snapshotted-cli", "-f", "json").out) == []
    missing = cli("stack", "snapshot", "show", "snapshotted-cli", made["id"])
    assert missing.code == 1 and "ERROR:" in missing.err and "Traceback" not in missing.err
