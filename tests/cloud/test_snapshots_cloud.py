"""Stack snapshots of cloud resources against the project's real Nova, Cinder and Glance,
through ``openstack stack snapshot ...``: a volume's part is a Cinder backup, a server's
an image; a restore rebuilds the same server on that image and restores the backup into
the same volume; deleting the snapshot deletes both.

Nova's fake hypervisor makes the image but uploads nothing to it, so it would stay
queued: the test stands in for the hypervisor and uploads the bytes itself.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cloud.leaks import cloud_leaks  # noqa: F401  (a fixture)
from tests.cloud.locate import Cloud
from tests.cloud.serving import Serving
from tests.cloud.stacks import (
    as_user,
    cli,
    connected,
    gone,
    physical_ids,
    serve_on_catalog_ports,
    template_file,
    unique_name,
    until,
)
from tests.cloud.test_nova_types import NOVA_CLOUD

pytestmark = pytest.mark.usefixtures("cloud_leaks")
LEAK_PREFIX = "sn-"
SETTLE = 180.0

TEMPLATE = """heat_template_version: 2021-04-16
resources:
  vol:
    type: OS::Cinder::Volume
    properties: {size: 1}
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-fake
      flavor: m1.tiny
      user_data_format: RAW
      networks: [{allocate_network: none}]
"""


@pytest.fixture(scope="module")
def snap_cloud(cloud: Cloud) -> Cloud:
    return as_user(cloud, NOVA_CLOUD)


@pytest.fixture(scope="module")
def user_conn(snap_cloud: Cloud) -> Iterator[Any]:
    yield from connected(snap_cloud)


@pytest.fixture(scope="module")
def served(snap_cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    yield from serve_on_catalog_ports(snap_cloud, tmp_path_factory, "snapshot-serve")


def _status(served: Serving, name: str) -> str:
    return str(cli(served, "stack", "show", name, "-f", "json")["stack_status"])


def _shown(served: Serving, name: str, snapshot_id: str) -> dict[str, Any]:
    found: dict[str, Any] = cli(served, "stack", "snapshot", "show", name, snapshot_id,
                                "-f", "json")["snapshot"]
    return found


def _wait_status(served: Serving, name: str, wait: float = SETTLE) -> str:
    deadline = time.monotonic() + wait
    while (status := _status(served, name)).endswith("_IN_PROGRESS"):
        assert time.monotonic() < deadline, f"{name} still {status}"
        time.sleep(1.0)
    return status


def _upload_for_the_hypervisor(user_conn: Any, prefix: str) -> str:
    """The image Nova made of the server, given the bytes the fake hypervisor never
    uploads; its id."""
    deadline = time.monotonic() + SETTLE
    while not (images := [i for i in user_conn.image.images()
                          if str(i.name).startswith(prefix)]):
        assert time.monotonic() < deadline, "no image was made of the server"
        time.sleep(1.0)
    image = images[0].id
    until(lambda: user_conn.image.get_image(image).status == "queued"
          or user_conn.image.get_image(image).status == "active",
          "the image never became uploadable", SETTLE)
    if user_conn.image.get_image(image).status == "queued":
        user_conn.image.update_image(image, disk_format="raw", container_format="bare")
        stored = user_conn.image.put(f"/images/{image}/file", data=b"\0" * 1024,
                                     headers={"Content-Type": "application/octet-stream"})
        assert stored.status_code == 204, stored.text
    return str(image)


def test_snapshot_restore_and_delete_of_a_server_and_a_volume(served: Serving,
                                                              user_conn: Any) -> None:
    name = unique_name(LEAK_PREFIX)
    storage = user_conn.block_storage
    image = backup = None
    try:
        cli(served, "stack", "create", "--wait", "-t", template_file(served, TEMPLATE), name)
        ids = physical_ids(served, name)
        first_image = user_conn.compute.get_server(ids["server"]).image["id"]

        taken = cli(served, "stack", "snapshot", "create", name, "--name", "before",
                    "-f", "json")
        assert (taken["status"], taken["name"]) == ("IN_PROGRESS", "before")
        snapshot_id = taken["ID"]
        image = _upload_for_the_hypervisor(user_conn, f"{name}-server-")
        assert _wait_status(served, name) == "SNAPSHOT_COMPLETE"
        shown = _shown(served, name, snapshot_id)
        assert shown["status"] == "COMPLETE", shown
        parts = shown["data"]["resources"]
        backup = parts["vol"]["resource_data"]["backup_id"]
        assert parts["server"]["resource_data"]["snapshot_image_id"] == image
        assert storage.get_backup(backup).volume_id == ids["vol"]
        assert storage.get_backup(backup).status == "available"

        cli(served, "stack", "snapshot", "restore", name, snapshot_id)
        assert _wait_status(served, name) == "RESTORE_COMPLETE"
        assert physical_ids(served, name) == ids  # the same server and volume, rebuilt
        server = user_conn.compute.get_server(ids["server"])
        assert server.image["id"] == image != first_image
        assert storage.get_volume(ids["vol"]).status == "available"

        cli(served, "stack", "snapshot", "delete", "--yes", name, snapshot_id)
        until(lambda: not cli(served, "stack", "snapshot", "list", name, "-f", "json"),
              "the snapshot stayed listed", SETTLE)
        until(lambda: gone(storage.get_backup, backup), "the backup stayed", SETTLE)
        until(lambda: gone(user_conn.image.get_image, image), "the image stayed", SETTLE)
    finally:
        cli(served, "stack", "delete", "--yes", "--wait", name, check=False)
        if backup is not None:
            storage.delete_backup(backup, ignore_missing=True)
        if image is not None:
            user_conn.image.delete_image(image, ignore_missing=True)


def test_a_stack_delete_deletes_its_snapshots_backups(served: Serving, user_conn: Any) -> None:
    name = unique_name(LEAK_PREFIX)
    storage = user_conn.block_storage
    backup = None
    volume_only = TEMPLATE.split("  server:")[0]
    try:
        cli(served, "stack", "create", "--wait", "-t", template_file(served, volume_only), name)
        taken = cli(served, "stack", "snapshot", "create", name, "-f", "json")
        assert _wait_status(served, name) == "SNAPSHOT_COMPLETE"
        shown = _shown(served, name, taken["ID"])
        backup = shown["data"]["resources"]["vol"]["resource_data"]["backup_id"]
        cli(served, "stack", "delete", "--yes", "--wait", name)
        until(lambda: gone(storage.get_backup, backup), "the backup stayed", SETTLE)
    finally:
        cli(served, "stack", "delete", "--yes", "--wait", name, check=False)
        if backup is not None:
            storage.delete_backup(backup, ignore_missing=True)
