"""Glance's types against the real Glance, through ``openstack stack ...`` as the admin.

OS::Glance::WebImage has Glance import an image by web-download from a small file
the test serves on loopback (the cloud's Glance accepts loopback URLs): created
active, updated in place (tags, extra properties, a field, deactivated and
reactivated), replaced, deleted. OS::Glance::Image is Heat's hidden placeholder:
it takes any properties and makes nothing. ``admin_leaks`` fails a test that
leaves an image named ``LEAK_PREFIX``.
"""

from __future__ import annotations

import hashlib
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cloud.admin_leaks import admin_leaks  # noqa: F401  (a fixture)
from tests.cloud.serving import Serving
from tests.cloud.stacks import (
    cli,
    delete_stack,
    gone,
    outputs_of,
    physical_ids,
    show_stack,
    stack_action,
    template_file,
    unique_name,
)

pytestmark = pytest.mark.usefixtures("admin_leaks")
LEAK_PREFIX = "hpg-"
DATA = bytes(range(256)) * 16
"""The image's 4 KiB of data."""


@pytest.fixture(scope="module")
def image_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a file served on loopback for as long as the module runs."""
    root = Path(tmp_path_factory.mktemp("glance-data"))
    (root / "disk.raw").write_bytes(DATA)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/disk.raw"
    finally:
        server.shutdown()
        server.server_close()


IMAGE = """heat_template_version: 2021-04-16
parameters:
  name: {type: string}
  url: {type: string}
  tags: {type: comma_delimited_list, default: one}
  extra: {type: json, default: {"hp_a": "1"}}
  distro: {type: string, default: cirros}
  active: {type: boolean, default: true}
  min_ram: {type: number, default: 0}
resources:
  image:
    type: OS::Glance::WebImage
    properties:
      name: {get_param: name}
      location: {get_param: url}
      disk_format: raw
      container_format: bare
      tags: {get_param: tags}
      extra_properties: {get_param: extra}
      os_distro: {get_param: distro}
      active: {get_param: active}
      min_ram: {get_param: min_ram}
  old:
    type: OS::Glance::Image
    properties: {name: anything, location: "http://nowhere.invalid/", is_public: true}
outputs:
  show: {value: {get_attr: [image, show]}}
"""


def test_web_image_create_update_replace_delete(served: Serving, admin_conn: Any,
                                                image_url: str) -> None:
    admin = served.cloud.admin
    name = unique_name(LEAK_PREFIX)
    template = template_file(served, IMAGE)
    base = ["--parameter", f"name={name}", "--parameter", f"url={image_url}"]
    ids: dict[str, str] = {}
    try:
        created = stack_action(served, "create", "-t", template, *base, name, stack=name,
                               cloud=admin)
        assert created == "CREATE_COMPLETE", show_stack(served, name, admin)
        ids = physical_ids(served, name, admin)
        image = admin_conn.image.get_image(ids["image"])
        assert (image.name, image.status, image.disk_format, image.container_format) == \
            (name, "active", "raw", "bare")
        assert image.checksum == hashlib.md5(DATA).hexdigest()
        assert image.tags == ["one"] and image.os_distro == "cirros"
        assert image.properties.get("hp_a") == "1"
        assert outputs_of(show_stack(served, name, admin))["show"]["id"] == ids["image"]
        assert ids["old"]  # the placeholder has an id of its own and no image
        assert not list(admin_conn.image.images(name="anything"))

        # In place: tags, extra properties (hp_a removed), a field, and deactivated.
        updated = stack_action(served, "update", "-t", template, *base, "--parameter", "tags=two",
                               "--parameter", 'extra={"hp_b": "2"}', "--parameter", "distro=other",
                               "--parameter", "active=false", name, stack=name, cloud=admin)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name, admin)
        assert physical_ids(served, name, admin) == ids
        image = admin_conn.image.get_image(ids["image"])
        assert image.status == "deactivated" and image.tags == ["two"]
        assert image.os_distro == "other"
        assert image.properties.get("hp_b") == "2" and "hp_a" not in image.properties

        reactivated = stack_action(served, "update", "-t", template, *base, "--parameter",
                                   "tags=two", "--parameter", 'extra={"hp_b": "2"}', "--parameter",
                                   "distro=other", name, stack=name, cloud=admin)
        assert reactivated == "UPDATE_COMPLETE", show_stack(served, name, admin)
        assert admin_conn.image.get_image(ids["image"]).status == "active"

        # min_ram cannot change in place: a new image, imported again; the old one goes.
        replaced = stack_action(served, "update", "-t", template, *base, "--parameter",
                                "min_ram=64", name, stack=name, cloud=admin)
        assert replaced == "UPDATE_COMPLETE", show_stack(served, name, admin)
        after = physical_ids(served, name, admin)
        assert after["image"] != ids["image"] and gone(admin_conn.image.get_image,
                                                       ids["image"])
        image = admin_conn.image.get_image(after["image"])
        assert (image.status, image.min_ram) == ("active", 64)
        ids = after
    finally:
        delete_stack(served, name, admin)
    assert gone(admin_conn.image.get_image, ids["image"])


FAILING = """heat_template_version: 2021-04-16
parameters:
  name: {type: string}
  url: {type: string}
resources:
  image:
    type: OS::Glance::WebImage
    properties: {name: {get_param: name}, location: {get_param: url}, disk_format: raw,
                 container_format: bare}
"""


def test_a_failed_web_download_fails_the_create(served: Serving, image_url: str) -> None:
    admin = served.cloud.admin
    name = unique_name(LEAK_PREFIX)
    missing = image_url.replace("disk.raw", "missing.raw")
    try:
        failed = stack_action(served, "create", "-t",
                              template_file(served, FAILING), "--parameter", f"name={name}",
                              "--parameter", f"url={missing}", name, stack=name, cloud=admin)
        assert failed == "CREATE_FAILED", show_stack(served, name, admin)
        reason = show_stack(served, name, admin)["stack_status_reason"]
        # The import task's own words for the missing file (this Glance's).
        assert 'ResourceInError: resources.image: Went to status queued due to "Task failed ' \
               'due to Internal Error"' in reason, reason
    finally:
        delete_stack(served, name, admin)


def test_the_placeholder_type_is_hidden(served: Serving) -> None:
    admin = served.cloud.admin
    listed = cli(served, "orchestration", "resource", "type", "list", "-f", "json",
                 cloud=admin)
    types = [t["Resource Type"] for t in listed]
    assert "OS::Glance::WebImage" in types and "OS::Glance::Image" not in types
    shown = cli(served, "orchestration", "resource", "type", "show", "OS::Glance::Image",
                check=False, cloud=admin)
    assert shown.returncode != 0
    assert "OS::Glance::Image is not supported." in shown.stderr, shown.stderr
