"""The cloud the cloud suites run against is whole: what every other cloud test assumes."""

from __future__ import annotations

from typing import Any

from tests.cloud.locate import Cloud

SERVICES = ("identity", "compute", "network", "image", "volumev3", "placement")


def test_the_catalog_has_each_service_and_hotplate_as_orchestration(
        cloud: Cloud, admin_conn: Any) -> None:
    types = {service.type for service in admin_conn.identity.services()}
    assert set(SERVICES) <= types
    assert {"orchestration", "cloudformation"} <= types
    url = admin_conn.session.get_endpoint(service_type="orchestration", interface="public",
                                          region_name=cloud.region)
    assert url.startswith("http://127.0.0.1:8004/v1/")


def test_the_test_user_reaches_each_service(user_conn: Any) -> None:
    assert "m1.tiny" in {flavor.name for flavor in user_conn.compute.flavors()}
    assert [image.status for image in user_conn.image.images(name="cirros-fake")] == ["active"]
    [public] = user_conn.network.networks(name="public")
    assert public.is_router_external
    assert list(user_conn.block_storage.types()) != []


def test_the_test_user_is_a_member_not_an_admin(cloud: Cloud, user_conn: Any) -> None:
    roles = set(user_conn.session.auth.get_access(user_conn.session).role_names)
    assert "member" in roles and "admin" not in roles, (cloud.user, roles)


def test_glance_imports_an_image_served_on_loopback(user_conn: Any) -> None:
    """web-download from a URL a test serves: what OS::Glance::WebImage's tests need."""
    import functools
    import http.server
    import tempfile
    import threading
    import time
    import uuid
    from pathlib import Path

    with tempfile.TemporaryDirectory() as served:
        (Path(served) / "disk.raw").write_bytes(b"\0" * 65536)
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=served)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        image = user_conn.image.create_image(
            name=f"hotplate-test-{uuid.uuid4().hex[:8]}", disk_format="raw",
            container_format="bare", allow_duplicates=True)
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}/disk.raw"
            user_conn.image.import_image(image, method="web-download", uri=url)
            deadline = time.monotonic() + 60
            while (found := user_conn.image.get_image(image)).status != "active":
                assert found.status in ("queued", "importing"), found.status
                assert time.monotonic() < deadline, found.status
                time.sleep(0.5)
            assert found.size == 65536
        finally:
            user_conn.image.delete_image(image, ignore_missing=True)
            server.shutdown()
            server.server_close()


def test_cinder_backs_a_volume_up_and_restores_it(user_conn: Any) -> None:
    """A backup service with bytes to read: Volume's deletion_policy Snapshot needs it."""
    import time
    import uuid

    storage = user_conn.block_storage
    name = f"hotplate-test-{uuid.uuid4().hex[:8]}"

    def settled(get: Any, thing: Any, *, want: str) -> Any:
        deadline = time.monotonic() + 120
        while (found := get(thing)).status != want:
            assert "error" not in found.status, found
            assert time.monotonic() < deadline, found.status
            time.sleep(0.25)
        return found

    volume = storage.create_volume(name=name, size=1)
    backup = None
    try:
        settled(storage.get_volume, volume, want="available")
        backup = storage.create_backup(volume_id=volume.id, name=name)
        assert settled(storage.get_backup, backup, want="available").size == 1
        storage.restore_backup(backup, volume_id=volume.id)
        settled(storage.get_volume, volume, want="available")
    finally:
        if backup is not None:
            deadline = time.monotonic() + 120
            while storage.get_backup(backup).status not in ("available", "error"):
                assert time.monotonic() < deadline
                time.sleep(0.25)
            storage.delete_backup(backup, ignore_missing=True)
            storage.wait_for_delete(backup, interval=0.5)
        storage.delete_volume(volume, ignore_missing=True)
        storage.wait_for_delete(volume, interval=0.5)
