"""Stacks real Heat 27 made on the cloud (servers, ports, networks, volumes, a nested
stack, a stack user) imported into hotplate with ``hotplate manage import-heat
--heat-config``, then driven with the ``openstack`` CLI: hotplate shows them as Heat
did, updates them in place on the very same cloud objects (a server renamed, a volume
grown), lets the nested server's stack user sign the CFN API with the key Heat made
for it, and deletes them with everything Heat made for them, trusts and stack users
included."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import create_engine, text

from hotplate.db.crypt import SecretBox
from tests.cloud import heat_leftovers
from tests.cloud.heat_fixtures import MadeByHeat
from tests.cloud.heat_shapes import SERVER_VOLUME
from tests.cloud.heat_source import HeatSource
from tests.cloud.locate import Cloud
from tests.cloud.serving import authtoken_section, keystone_serve
from tests.cloud.stacks import (
    answered_by,
    cli,
    keystone_extra,
    outputs_of,
    physical_ids,
    show_stack,
    stack_action,
    template_file,
    until,
)
from tests.cloud.test_aws_iam import _describe as describe

pytestmark = pytest.mark.timeout(1500)


def manage(conf: Path, data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "hotplate.cli.main", "manage", "--config-file", str(conf),
         "--data-dir", str(data_dir), *args], capture_output=True, text=True, timeout=600)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def check_stack_user_key_signs(heat_source: HeatSource, parent_id: str) -> None:
    """The EC2 key Heat made for the nested server's stack user signs the CFN API's
    DescribeStackResource for that server, as its in-instance agent would (Keystone
    checks the signature; hotplate knows whose key it is)."""
    engine = create_engine(heat_source.url)
    try:
        with engine.connect() as conn:
            stack_name, stack_id = conn.execute(text(
                "SELECT name, id FROM stack WHERE owner_id = :p"), {"p": parent_id}).one()
            data = {row.key: row for row in conn.execute(text(
                "SELECT d.key, d.value, d.decrypt_method FROM resource_data d JOIN resource r "
                "ON r.id = d.resource_id WHERE r.stack_id = :s AND r.name = 'server'"),
                {"s": stack_id})}
    finally:
        engine.dispose()
    box = SecretBox(heat_source.auth_encryption_key)

    def plain(key: str) -> str:
        row = data[key]
        return row.value if row.decrypt_method is None else box.decrypt(
            row.decrypt_method, row.value)

    answer = describe(plain("access_key"), plain("secret_key"), stack_name, "server")
    assert answer.status_code == 200, answer.text
    assert "<LogicalResourceId>server</LogicalResourceId>" in answer.text


def test_heats_cloud_stacks_are_updated_in_place_and_deleted_by_hotplate(
        cloud: Cloud, heat_source: HeatSource, made_by_heat_source: MadeByHeat,
        admin_conn: Any, tmp_path: Path) -> None:
    made = made_by_heat_source
    shapes = made.make()
    for stack in shapes.stacks:
        assert stack.status == "CREATE_COMPLETE", (stack.name, stack.reason)
    found = made.leftovers()
    heat_source.stop()

    config = keystone_extra(cloud)
    conf = tmp_path / "hotplate.conf"
    conf.write_text(authtoken_section(cloud) + config)
    data_dir = tmp_path / "var"
    assert manage(conf, data_dir, "db_sync").returncode == 0
    done = manage(conf, data_dir, "import-heat", "--heat-config", str(heat_source.conf))
    assert done.returncode == 0, done.stdout + done.stderr
    verdicts = [line.split()[0] for line in done.stdout.splitlines()]
    assert verdicts == ["imported", "imported"], done.stdout

    with keystone_serve(cloud, tmp_path, extra=config) as served:
        assert answered_by(served), "another server held the catalog's ports"
        first, nested = shapes.server_volume, shapes.nested_server
        for stack in (first, nested):
            shown = show_stack(served, stack.id)
            assert shown["stack_status"] == "CREATE_COMPLETE"
            assert outputs_of(shown) == stack.outputs
        before = physical_ids(served, first.id)
        assert before == first.physical_ids
        check_stack_user_key_signs(heat_source, nested.id)

        changed = yaml.safe_load(yaml.safe_dump(SERVER_VOLUME))
        changed["resources"]["server"]["properties"]["name"] = f"{first.name}-renamed"
        changed["resources"]["volume"]["properties"]["size"] = 2
        status = stack_action(served, "update", "-t",
                              template_file(served, yaml.safe_dump(changed)), first.name,
                              stack=first.name)
        assert status == "UPDATE_COMPLETE", served.log.read_text()[-3000:]
        assert physical_ids(served, first.id) == before  # the same objects, no replacement
        server = admin_conn.compute.get_server(before["server"])
        assert server.name == f"{first.name}-renamed"
        until(lambda: admin_conn.block_storage.get_volume(before["volume"]).size == 2,
              "the volume grown to 2 GiB", 120)

        for stack in (first, nested):
            assert stack_action(served, "delete", stack=stack.name) == "DELETE_COMPLETE"
        listed = cli(served, "stack", "list", "-f", "json")
        assert not {s["ID"] for s in listed} & {first.id, nested.id}
    until(lambda: heat_leftovers.existing(admin_conn, found) == heat_leftovers.empty(),
          "nothing Heat's stacks made left in the cloud", 180)
