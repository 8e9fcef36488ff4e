"""What a template and its environments send: files named by get_file and by a
resource type, environments merged in order and sent as files, parameters, hooks."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from hotplate.cli.remote.errors import CommandError
from hotplate.cli.remote.template_files import (
    add_hooks,
    deep_update,
    load_environments,
    load_template,
    parameter_files,
    parse_parameters,
)
from tests.cli.helpers import write

PARENT = """\
heat_template_version: 2021-04-16
resources:
  server:
    type: OS::Heat::TestResource
    properties:
      value: {get_file: config/motd.txt}
      list: [{get_file: /abs/ignored/until/read.txt}]
  child:
    type: child.yaml
  computed:
    type: OS::Heat::Value
    properties: {value: {get_file: {get_param: name}}}
"""
CHILD = """\
heat_template_version: 2018-08-31
resources:
  inner:
    type: OS::Heat::Value
    properties: {value: {get_file: ../data/blob.bin}}
"""


def test_a_template_sends_the_files_it_names(tmp_path: Path) -> None:
    parent = write(tmp_path, "tpl/parent.yaml", PARENT.replace(
        "/abs/ignored/until/read.txt", str(tmp_path / "abs.txt")))
    write(tmp_path, "tpl/config/motd.txt", "hello\n")
    write(tmp_path, "abs.txt", "absolute\n")
    write(tmp_path, "tpl/child.yaml", CHILD)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "blob.bin").write_bytes(b"\xff\x00binary")
    files, template = load_template(parent)
    url = (tmp_path / "tpl").as_uri()
    motd, child, blob = (f"{url}/config/motd.txt", f"{url}/child.yaml",
                         (tmp_path / "data" / "blob.bin").as_uri())
    absolute = (tmp_path / "abs.txt").as_uri()
    assert sorted(files) == sorted([motd, child, blob, absolute])
    assert template["heat_template_version"] == "2021-04-16", "dates stay strings"
    server = template["resources"]["server"]["properties"]
    assert server == {"value": {"get_file": motd}, "list": [{"get_file": absolute}]}
    assert template["resources"]["child"]["type"] == child
    assert template["resources"]["computed"]["properties"] == {
        "value": {"get_file": {"get_param": "name"}}}, "only literal names are read"
    assert files[motd] == "hello\n"
    assert json.loads(files[child])["resources"]["inner"]["properties"] == {
        "value": {"get_file": blob}}, "a named template is sent processed, as JSON"
    assert base64.b64decode(files[blob]) == b"\xff\x00binary"


def test_templates_naming_each_other_end(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", "heat_template_version: 2021-04-16\n"
          "resources: {b: {type: b.yaml}}\n")
    write(tmp_path, "b.yaml", "heat_template_version: 2021-04-16\n"
          "resources: {a: {type: a.yaml}}\n")
    files, _ = load_template(str(tmp_path / "a.yaml"))
    assert sorted(files) == [(tmp_path / "a.yaml").as_uri(), (tmp_path / "b.yaml").as_uri()]


def test_environments_merge_in_order_and_travel_as_files(tmp_path: Path) -> None:
    first = write(tmp_path, "env/first.yaml", """\
parameters: {a: 1, b: 1}
resource_registry:
  My::Server: ../provider/server.yaml
  My::Alias: OS::Heat::None
  resources:
    web: {My::Server: ../provider/web.yaml, hooks: pre-create}
""")
    second = write(tmp_path, "second.yaml", "parameters: {b: 2}\n"
                   "parameter_defaults: {c: 3}\n")
    write(tmp_path, "provider/server.yaml", "heat_template_version: 2021-04-16\n")
    write(tmp_path, "provider/web.yaml", "heat_template_version: 2021-04-16\n")
    files, env, urls = load_environments([first, second])
    provider = (tmp_path / "provider").as_uri()
    assert urls == [(tmp_path / "env" / "first.yaml").as_uri(),
                    (tmp_path / "second.yaml").as_uri()]
    assert env["parameters"] == {"a": 1, "b": 2}
    assert env["parameter_defaults"] == {"c": 3}
    registry = env["resource_registry"]
    assert registry["My::Server"] == f"{provider}/server.yaml"
    assert registry["My::Alias"] == "OS::Heat::None"
    assert registry["resources"]["web"] == {"My::Server": f"{provider}/web.yaml",
                                            "hooks": "pre-create"}
    assert sorted(files) == sorted([*urls, f"{provider}/server.yaml", f"{provider}/web.yaml"])
    assert json.loads(files[urls[1]]) == {"parameters": {"b": 2},
                                          "parameter_defaults": {"c": 3}}


@pytest.mark.parametrize(("text", "message"), [
    ("resources: {}\n", "Template format version not found."),
    ("heat_template_version: [\n", "Error parsing template"),
    ("- a list\n", "Template format version not found."),
])
def test_unreadable_templates(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        load_template(write(tmp_path, "t.yaml", text))


def test_environment_sections_are_checked(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match='environment has wrong section "resources"'):
        load_environments([write(tmp_path, "e.yaml", "resources: {}\n")])
    with pytest.raises(CommandError, match="not a valid YAML mapping"):
        load_environments([write(tmp_path, "e.yaml", "- 1\n")])


def test_parameters() -> None:
    assert parse_parameters(["a=1;b=x=y"]) == {"a": "1", "b": "x=y"}
    assert parse_parameters(["a=1", "a=2", "a=3", "b="]) == {"a": ["1", "2", "3"], "b": ""}
    assert parse_parameters(None) == {}
    with pytest.raises(CommandError, match=r"Malformed parameter\(novalue\)"):
        parse_parameters(["novalue"])


def test_parameter_files_are_read_relative_to_the_template(tmp_path: Path) -> None:
    template = write(tmp_path, "tpl/t.yaml", "heat_template_version: 2021-04-16\n")
    write(tmp_path, "tpl/key.pub", "ssh-ed25519 AAAA\n")
    assert parameter_files(["key=key.pub"], template) == {"key": "ssh-ed25519 AAAA\n"}


def test_hooks_and_deep_merges() -> None:
    env: dict[str, object] = {"resource_registry": {"resources": {"db": {"hooks": "x"}}}}
    add_hooks(env, ["web", "app/*_server"], "pre-update")
    assert env["resource_registry"] == {"resources": {
        "db": {"hooks": "x"}, "web": {"hooks": "pre-update"},
        "app": {"*_server": {"hooks": "pre-update"}}}}
    assert deep_update({"a": {"b": 1, "c": 2}, "d": {"e": 1}}, {"a": {"b": 3}, "d": None}) == \
        {"a": {"b": 3, "c": 2}, "d": {"e": 1}}
