"""Cinder's types against the project's real Cinder (and Nova for attachments), through
``openstack stack ...``.

hotplate serves in Keystone mode with Heat's ``[trustee]``; each test drives it
with the unchanged openstack CLI as a user of the cloud's second project
(``OS_CINDER_CLOUD``, default ``hotplate-alt-demo``, as the Nova module does), or
as the cloud's admin for the admin-only types, and reads the result back from
Cinder and Nova. Every object is named with ``cd-`` (the stacks, hence the
physical names, too): ``cloud_leaks`` fails a test that leaves a volume, server
or Neutron object behind, ``cinder_admin_leaks`` one that leaves a volume type or
QoS specs (and deletes them). Backups the Snapshot policy keeps are deleted by
the test that makes them.

This cloud's Cinder has no dataplane: a volume made from an image goes to
``error`` (which the image test expects, with Heat's words), so bootable
volumes are cloned from one made bootable with the CLI.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest

from hotplate.resources.openstack.attempt_marks import (
    ATTEMPT_METADATA_KEY,
    is_attempt_tag,
    metadata_without_marks,
)
from tests.cloud.leaks import cinder_admin_leaks, cloud_leaks  # noqa: F401  (fixtures)
from tests.cloud.locate import Cloud
from tests.cloud.serving import Serving
from tests.cloud.stacks import (
    as_user,
    cli,
    connected,
    deleted,
    gone,
    heat_client,
    outputs_of,
    physical_ids,
    serve_on_catalog_ports,
    stack_action,
    template_file,
    unique_name,
    until,
)

pytestmark = pytest.mark.usefixtures("cloud_leaks")
LEAK_PREFIX = "cd-"
"""Every object these tests make is named so (``cloud_leaks``, ``cinder_admin_leaks``)."""
CINDER_CLOUD = os.environ.get("OS_CINDER_CLOUD") or "hotplate-alt-demo"
SETTLE = 120.0


@pytest.fixture(scope="module")
def cinder_cloud(cloud: Cloud) -> Cloud:
    return as_user(cloud, CINDER_CLOUD)


@pytest.fixture(scope="module")
def user_conn(cinder_cloud: Cloud) -> Iterator[Any]:
    """This module's user (``CINDER_CLOUD``), in place of the suites' demo user."""
    yield from connected(cinder_cloud)


@pytest.fixture(scope="module")
def served(cinder_cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    """hotplate on the catalog's ports, as this module's user."""
    yield from serve_on_catalog_ports(cinder_cloud, tmp_path_factory, "cinder-serve")


def _reason(served: Serving, stack: str, cloud: str | None = None) -> str:
    return str(heat_client(served, cloud).stacks.get(stack).stack_status_reason)


def _bootable_volume(user_conn: Any, name: str) -> str:
    """A blank volume marked bootable (Cinder here cannot copy an image into one)."""
    made = user_conn.block_storage.create_volume(size=1, name=name)
    until(lambda: user_conn.block_storage.get_volume(made.id).status == "available",
          "the test's base volume did not become available", SETTLE)
    user_conn.block_storage.set_volume_bootable_status(made.id, True)
    return str(made.id)


def _drop_volume(user_conn: Any, ident: str) -> None:
    user_conn.block_storage.delete_volume(ident, ignore_missing=True)
    until(lambda: gone(user_conn.block_storage.get_volume, ident),
          f"the test's volume {ident} stayed", SETTLE)


VOLUME = """heat_template_version: 2021-04-16
parameters:
  vol_name: {type: string}
  size: {type: number, default: 1}
  meta: {type: json, default: {purpose: test}}
  read_only: {type: boolean, default: false}
  zone: {type: string, default: ""}
resources:
  vol:
    type: OS::Cinder::Volume
    properties:
      name: {get_param: vol_name}
      description: made by a stack
      size: {get_param: size}
      metadata: {get_param: meta}
      read_only: {get_param: read_only}
      availability_zone: {get_param: zone}
outputs:
  size: {value: {get_attr: [vol, size]}}
  status: {value: {get_attr: [vol, status]}}
  display_name: {value: {get_attr: [vol, display_name]}}
  metadata: {value: {get_attr: [vol, metadata]}}
  metadata_values: {value: {get_attr: [vol, metadata_values]}}
  bootable: {value: {get_attr: [vol, bootable]}}
  snapshot_id: {value: {get_attr: [vol, snapshot_id]}}
  attachments_list: {value: {get_attr: [vol, attachments_list]}}
  show_id: {value: {get_attr: [vol, show, id]}}
  ref: {value: {get_resource: vol}}
"""


def test_volume_create_update_in_place_replace_and_delete(served: Serving,
                                                          user_conn: Any) -> None:
    name = unique_name(LEAK_PREFIX)
    vol_name = f"{name}-vol"
    template = template_file(served, VOLUME)
    storage = user_conn.block_storage
    try:
        assert stack_action(served, "create", "-t", template,
                            "--parameter", f"vol_name={vol_name}", name,
                            stack=name) == "CREATE_COMPLETE", _reason(served, name)
        first = physical_ids(served, name)["vol"]
        vol = storage.get_volume(first)
        assert (vol.name, vol.size, vol.status, vol.description) == \
            (vol_name, 1, "available", "made by a stack")
        assert vol.metadata.get("purpose") == "test"
        outputs = outputs_of(heat_client(served).stacks.get(name).to_dict())
        assert outputs["size"] == "1" and outputs["status"] == "available"
        assert outputs["display_name"] == vol_name and outputs["bootable"] == "false"
        assert outputs["snapshot_id"] == "None" and outputs["attachments_list"] == []
        assert outputs["metadata_values"]["purpose"] == "test"
        assert '"purpose": "test"' in outputs["metadata"]
        assert outputs["show_id"] == outputs["ref"] == first

        # In place: a bigger size, new metadata, a new name, read-only.
        assert stack_action(served, "update", "-t", template, "--parameter",
                            f"vol_name={vol_name}-2", "--parameter", "size=2", "--parameter",
                            'meta={"purpose": "more"}', "--parameter", "read_only=true", name,
                            stack=name) == "UPDATE_COMPLETE", _reason(served, name)
        assert physical_ids(served, name)["vol"] == first
        vol = storage.get_volume(first)
        assert (vol.name, vol.size, vol.status) == (f"{vol_name}-2", 2, "available")
        assert vol.metadata.get("purpose") == "more"
        assert vol.metadata.get("readonly") == "True"

        # A new availability zone is a new volume; the old one is deleted.
        assert stack_action(served, "update", "--existing", "--parameter", "zone=nova", name,
                            stack=name) == "UPDATE_COMPLETE", _reason(served, name)
        second = physical_ids(served, name)["vol"]
        assert second != first and storage.get_volume(second).size == 2
        until(lambda: gone(storage.get_volume, first), "the replaced volume stayed", SETTLE)

        # A check finds it available.
        assert stack_action(served, "check", name, stack=name) == "CHECK_COMPLETE"
    finally:
        assert deleted(served, name) == "DELETE_COMPLETE"
    until(lambda: gone(storage.get_volume, second), "the stack's volume stayed", SETTLE)


REPLACED_FROM_IMAGE = VOLUME.replace("""      availability_zone: {get_param: zone}
""", """      availability_zone: {get_param: zone}
      image: cirros-fake
""")


def test_failed_updates_roll_back(served: Serving, user_conn: Any) -> None:
    """A shrink fails in place as in Heat (what it changed before, the name, stays, as
    with Heat: the rollback finds nothing to change); a replacement that fails (a volume
    from an image goes to error here) is rolled back to the old volume, the failed one
    deleted."""
    name = unique_name(LEAK_PREFIX)
    vol_name = f"{name}-vol"
    template = template_file(served, VOLUME)
    params = ["--parameter", f"vol_name={vol_name}", "--parameter", "size=2"]
    until = ("ROLLBACK_COMPLETE", "ROLLBACK_FAILED")
    storage = user_conn.block_storage
    try:
        assert stack_action(served, "create", "-t", template, *params, name,
                            stack=name) == "CREATE_COMPLETE"
        ident = physical_ids(served, name)["vol"]
        status = stack_action(served, "update", "-t", template, "--rollback", "enabled",
                              "--parameter", f"vol_name={vol_name}-x", "--parameter", "size=1",
                              name, stack=name, until=until)
        assert status == "ROLLBACK_COMPLETE", _reason(served, name)
        assert "NotSupported: resources.vol: Shrinking volume is not supported." in \
            _failures(served, name)
        assert physical_ids(served, name)["vol"] == ident
        vol = storage.get_volume(ident)
        assert (vol.name, vol.size, vol.status) == (f"{vol_name}-x", 2, "available")

        status = stack_action(served, "update", "-t", template_file(served, REPLACED_FROM_IMAGE),
                              "--rollback", "enabled", *params, name, stack=name, until=until)
        assert status == "ROLLBACK_COMPLETE", _reason(served, name)
        assert 'ResourceInError: resources.vol: Went to status error due to "Unknown"' in \
            _failures(served, name, "CREATE_FAILED")
        assert physical_ids(served, name)["vol"] == ident
        assert storage.get_volume(ident).status == "available"
        mine = [v for v in storage.volumes() if str(v.name).startswith(vol_name)]
        assert [v.id for v in mine] == [ident]  # the failed replacement is gone
    finally:
        assert deleted(served, name) == "DELETE_COMPLETE"


def _failures(served: Serving, stack: str, status: str = "UPDATE_FAILED") -> list[str]:
    events = heat_client(served).events.list(stack, resource_name="vol")
    return [str(e.resource_status_reason) for e in events if e.resource_status == status]


SOURCES = """heat_template_version: 2021-04-16
parameters:
  base: {type: string}
  snapshot: {type: string}
  backup: {type: string}
  refill: {type: boolean, default: false}
resources:
  from_snapshot:
    type: OS::Cinder::Volume
    properties: {snapshot_id: {get_param: snapshot}}
  clone:
    type: OS::Cinder::Volume
    properties: {source_volid: {get_param: base}, description: a clone}
  restored:
    type: OS::Cinder::Volume
    properties: {backup_id: {get_param: backup}}
  refilled:
    type: OS::Cinder::Volume
    properties:
      size: 1
      backup_id: {if: [{get_param: refill}, {get_param: backup}, null]}
outputs:
  snapshot_of: {value: {get_attr: [from_snapshot, snapshot_id]}}
  source_of: {value: {get_attr: [clone, source_volid]}}
"""


def test_volumes_from_a_snapshot_a_volume_and_a_backup(served: Serving,
                                                       user_conn: Any) -> None:
    """Each source Heat takes; a backup_id given later restores into the volume in
    place, and a volume restored from a backup gets its name as Heat gives it."""
    name = unique_name(LEAK_PREFIX)
    storage = user_conn.block_storage
    base = _bootable_volume(user_conn, f"{name}-base")
    snapshot = storage.create_snapshot(volume_id=base, name=f"{name}-snap")
    backup = storage.create_backup(volume_id=base, name=f"{name}-backup")
    try:
        until(lambda: storage.get_snapshot(snapshot.id).status == "available",
              "the test's snapshot", SETTLE)
        until(lambda: storage.get_backup(backup.id).status == "available",
              "the test's backup", SETTLE)
        template = template_file(served, SOURCES)
        params = ["--parameter", f"base={base}", "--parameter", f"snapshot={snapshot.id}",
                  "--parameter", f"backup={backup.id}"]
        assert stack_action(served, "create", "-t", template, *params, name,
                            stack=name) == "CREATE_COMPLETE", _reason(served, name)
        ids = physical_ids(served, name)
        assert storage.get_volume(ids["from_snapshot"]).snapshot_id == snapshot.id
        clone = storage.get_volume(ids["clone"])
        assert (clone.source_volume_id, clone.description, clone.is_bootable) == \
            (base, "a clone", True)
        restored = storage.get_volume(ids["restored"])
        assert restored.status == "available" and restored.size == 1
        assert restored.name.startswith(f"{name}-restored-")  # Heat's name for it
        assert restored.description is None
        outputs = outputs_of(heat_client(served).stacks.get(name).to_dict())
        assert (outputs["snapshot_of"], outputs["source_of"]) == (snapshot.id, base)

        assert stack_action(served, "update", "-t", template, *params, "--parameter",
                            "refill=true", name, stack=name) == "UPDATE_COMPLETE", \
            _reason(served, name)
        assert physical_ids(served, name) == ids
        assert storage.get_volume(ids["refilled"]).status == "available"
    finally:
        assert deleted(served, name) == "DELETE_COMPLETE", _reason(served, name)
        storage.delete_backup(backup.id, ignore_missing=True)
        storage.delete_snapshot(snapshot.id, ignore_missing=True)
        until(lambda: gone(storage.get_backup, backup.id), "the test's backup stayed", SETTLE)
        until(lambda: gone(storage.get_snapshot, snapshot.id), "the test's snapshot stayed",
              SETTLE)
        _drop_volume(user_conn, base)


POLICIES = """heat_template_version: 2021-04-16
resources:
  kept:
    type: OS::Cinder::Volume
    deletion_policy: Retain
    properties: {size: 1}
  saved:
    type: OS::Cinder::Volume
    deletion_policy: Snapshot
    properties: {size: 1}
  lost:
    type: OS::Cinder::Volume
    properties: {size: 1}
"""


def test_retain_snapshot_and_a_volume_already_gone(served: Serving, user_conn: Any) -> None:
    """Retain keeps the volume; Snapshot keeps a backup of it (Heat 27 backs up, and this
    cloud runs cinder-backup); a volume deleted behind the stack's back is fine."""
    name = unique_name(LEAK_PREFIX)
    storage = user_conn.block_storage
    ids: dict[str, str] = {}
    backups: list[Any] = []
    try:
        assert stack_action(served, "create", "-t", template_file(served, POLICIES), name,
                            stack=name) == "CREATE_COMPLETE", _reason(served, name)
        ids = physical_ids(served, name)
        storage.delete_volume(ids["lost"])
        until(lambda: gone(storage.get_volume, ids["lost"]), "the volume stayed", SETTLE)
        assert deleted(served, name) == "DELETE_COMPLETE"
        assert storage.get_volume(ids["kept"]).status == "available"
        assert gone(storage.get_volume, ids["saved"])
        backups = [b for b in storage.backups() if b.volume_id == ids["saved"]]
        assert [b.status for b in backups] == ["available"]
    finally:
        deleted(served, name)
        for backup in backups:
            storage.delete_backup(backup.id, ignore_missing=True)
        for backup in backups:
            until(lambda b=backup: gone(storage.get_backup, b.id), "the backup stayed", SETTLE)
        if ids.get("kept"):
            _drop_volume(user_conn, ids["kept"])


FROM_IMAGE = """heat_template_version: 2021-04-16
resources:
  vol:
    type: OS::Cinder::Volume
    properties: {size: 1, image: cirros-fake}
"""


def test_a_volume_going_error_fails_with_heats_words(served: Serving) -> None:
    name = unique_name(LEAK_PREFIX)
    try:
        assert stack_action(served, "create", "-t", template_file(served, FROM_IMAGE), name,
                            stack=name) == "CREATE_FAILED"
        assert _reason(served, name) == ('Resource CREATE failed: ResourceInError: '
                                         'resources.vol: Went to status error due to '
                                         '"Unknown"')
    finally:
        assert deleted(served, name) == "DELETE_COMPLETE"


ATTACHED = """heat_template_version: 2021-04-16
parameters:
  use: {type: string, default: a}
  size_b: {type: number, default: 1}
  ro_b: {type: boolean, default: false}
conditions:
  on_a: {equals: [{get_param: use}, a]}
resources:
  a:
    type: OS::Cinder::Volume
    properties: {size: 1}
  b:
    type: OS::Cinder::Volume
    properties: {size: {get_param: size_b}, read_only: {get_param: ro_b}}
  data:
    type: OS::Cinder::Volume
    properties: {size: 1}
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-fake
      flavor: m1.tiny
      networks: [{allocate_network: none}]
      block_device_mapping: [{device_name: vdc, volume_id: {get_resource: data}}]
  attach:
    type: OS::Cinder::VolumeAttachment
    properties:
      instance_uuid: {get_resource: server}
      volume_id: {if: [on_a, {get_resource: a}, {get_resource: b}]}
outputs:
  attachments: {value: {get_attr: [b, attachments_list]}}
"""


def test_attachments_move_and_volumes_grow_attached(served: Serving, user_conn: Any) -> None:
    """An attachment moves to another volume; an attached volume grows in place and
    is detached and attached again to turn read-only. The server also has a data
    volume of the stack's in its block_device_mapping (the volume is built first: the
    reference orders them)."""
    name = unique_name(LEAK_PREFIX)
    storage, compute = user_conn.block_storage, user_conn.compute
    template = template_file(served, ATTACHED)
    try:
        assert stack_action(served, "create", "-t", template, name,
                            stack=name) == "CREATE_COMPLETE", _reason(served, name)
        ids = physical_ids(served, name)
        assert ids["attach"] == ids["a"]
        attached = storage.get_volume(ids["a"])
        assert attached.status == "in-use"
        assert [a["server_id"] for a in attached.attachments] == [ids["server"]]
        server = compute.get_server(ids["server"])
        assert sorted(a["id"] for a in server.attached_volumes) == \
            sorted([ids["a"], ids["data"]])

        # An attachment update detaches, then attaches the other volume.
        assert stack_action(served, "update", "-t", template, "--parameter", "use=b", name,
                            stack=name) == "UPDATE_COMPLETE", \
            _reason(served, name)
        assert physical_ids(served, name)["attach"] == ids["b"]
        until(lambda: storage.get_volume(ids["a"]).status == "available", "a stayed in use",
              SETTLE)
        assert storage.get_volume(ids["b"]).status == "in-use"

        # An attached volume grows in place (Cinder 3.42), staying attached.
        assert stack_action(served, "update", "-t", template, "--parameter", "use=b",
                            "--parameter", "size_b=2", name,
                            stack=name) == "UPDATE_COMPLETE", _reason(served, name)
        grown = storage.get_volume(ids["b"])
        assert (grown.size, grown.status) == (2, "in-use")
        assert physical_ids(served, name)["b"] == ids["b"]
        outputs = outputs_of(heat_client(served).stacks.get(name).to_dict())
        assert [a["server_id"] for a in outputs["attachments"]] == [ids["server"]]

        # Read-only needs the volume free: detached, flagged, attached again.
        assert stack_action(served, "update", "-t", template, "--parameter", "use=b",
                            "--parameter", "size_b=2", "--parameter", "ro_b=true", name,
                            stack=name) == "UPDATE_COMPLETE", _reason(served, name)
        flagged = storage.get_volume(ids["b"])
        assert flagged.metadata.get("readonly") == "True" and flagged.status == "in-use"
        assert [a["server_id"] for a in flagged.attachments] == [ids["server"]]
    finally:
        assert deleted(served, name) == "DELETE_COMPLETE", _reason(served, name)


BOOT = """heat_template_version: 2021-04-16
parameters:
  base: {type: string}
resources:
  boot_vol:
    type: OS::Cinder::Volume
    properties: {source_volid: {get_param: base}}
  server:
    type: OS::Nova::Server
    properties:
      flavor: m1.tiny
      networks: [{allocate_network: none}]
      block_device_mapping_v2: [{volume_id: {get_resource: boot_vol}, boot_index: 0}]
"""


def test_a_server_boots_from_a_volume_of_the_stack(served: Serving, user_conn: Any) -> None:
    name = unique_name(LEAK_PREFIX)
    base = _bootable_volume(user_conn, f"{name}-base")
    try:
        created = cli(served, "stack", "create", "-t", template_file(served, BOOT),
                      "--parameter", f"base={base}", name, check=False)
        assert created.returncode == 0, created.stderr
        assert _wait_status(served, name) == "CREATE_COMPLETE", _reason(served, name)
        ids = physical_ids(served, name)
        server = user_conn.compute.get_server(ids["server"])
        assert [a["id"] for a in server.attached_volumes] == [ids["boot_vol"]]
        assert user_conn.block_storage.get_volume(ids["boot_vol"]).is_bootable
    finally:
        assert deleted(served, name) == "DELETE_COMPLETE"
        _drop_volume(user_conn, base)


def _wait_status(served: Serving, stack: str) -> str:
    hc = heat_client(served)
    deadline = time.monotonic() + SETTLE
    while (status := str(hc.stacks.get(stack).stack_status)).endswith("IN_PROGRESS"):
        assert time.monotonic() < deadline, f"{stack} stayed {status}"
        time.sleep(0.25)
    return status


AWS = """AWSTemplateFormatVersion: 2010-09-09
Resources:
  server:
    Type: OS::Nova::Server
    Properties:
      image: cirros-fake
      flavor: m1.tiny
      networks: [{allocate_network: none}]
  vol:
    Type: AWS::EC2::Volume
    Properties:
      AvailabilityZone: nova
      Size: 1
      Tags: [{Key: made-by, Value: aws}]
  attach:
    Type: AWS::EC2::VolumeAttachment
    Properties:
      InstanceId: {Ref: server}
      VolumeId: {Ref: vol}
      Device: /dev/vdb
"""


def test_aws_volume_and_attachment(served: Serving, user_conn: Any) -> None:
    name = unique_name(LEAK_PREFIX)
    storage = user_conn.block_storage
    try:
        assert stack_action(served, "create", "-t", template_file(served, AWS), name,
                            stack=name) == "CREATE_COMPLETE", _reason(served, name)
        ids = physical_ids(served, name)
        vol = storage.get_volume(ids["vol"])
        assert vol.status == "in-use"
        # The Tags as metadata, beside the mark of the create's attempt.
        assert metadata_without_marks(vol.metadata) == {"made-by": "aws"}
        assert is_attempt_tag(vol.metadata[ATTEMPT_METADATA_KEY])
        assert vol.name == vol.description and vol.name.startswith(f"{name}-vol-")
        assert vol.attachments[0]["server_id"] == ids["server"]
        assert vol.attachments[0]["device"].startswith("/dev/")  # Nova's fake names it
    finally:
        assert deleted(served, name) == "DELETE_COMPLETE", _reason(served, name)
    assert gone(storage.get_volume, ids["vol"])


ADMIN = """heat_template_version: 2021-04-16
parameters:
  prefix: {type: string}
  project: {type: string}
  spec: {type: string, default: "1000"}
  cipher: {type: string, default: aes-xts-plain64}
  volumes: {type: number, default: 50}
  two_types: {type: boolean, default: false}
resources:
  vtype:
    type: OS::Cinder::VolumeType
    properties:
      name: {list_join: ["-", [{get_param: prefix}, type]]}
      description: a private type
      is_public: false
      projects: [{get_param: project}]
      metadata: {volume_backend_name: fake}
  other:
    type: OS::Cinder::VolumeType
    properties:
      name: {list_join: ["-", [{get_param: prefix}, other]]}
  crypt:
    type: OS::Cinder::EncryptedVolumeType
    properties:
      volume_type: {get_resource: vtype}
      provider: luks
      cipher: {get_param: cipher}
      key_size: 256
  qos:
    type: OS::Cinder::QoSSpecs
    properties:
      name: {list_join: ["-", [{get_param: prefix}, qos]]}
      specs: {total_iops_sec: {get_param: spec}}
  assoc:
    type: OS::Cinder::QoSAssociation
    properties:
      qos_specs: {get_resource: qos}
      volume_types:
        if:
        - {get_param: two_types}
        - [{get_resource: vtype}, {get_attr: [other, show, name]}]
        - [{get_resource: vtype}]
  vol:
    type: OS::Cinder::Volume
    properties:
      size: 1
      volume_type: {if: [{get_param: two_types}, {get_resource: other}, __DEFAULT__]}
  quota:
    type: OS::Cinder::Quota
    properties:
      project: {get_param: project}
      volumes: {get_param: volumes}
      gigabytes: 100
outputs:
  crypt: {value: {get_attr: [crypt, show]}}
  qos: {value: {get_attr: [qos, show, specs]}}
"""


def _associated(admin_conn: Any, qos: str) -> list[str]:
    answer = admin_conn.block_storage.get(f"/qos-specs/{qos}/associations")
    answer.raise_for_status()
    return sorted(a["id"] for a in answer.json()["qos_associations"])


@pytest.mark.usefixtures("cinder_admin_leaks")
def test_admin_types(served: Serving, admin_conn: Any) -> None:
    """Types, their encryption, QoS specs and their association, and a quota, as the
    cloud's admin (Cinder's policy), on a project of the test's own; a volume retyped
    in place to one of the new types."""
    name = unique_name(LEAK_PREFIX)
    admin = served.cloud.admin
    project = admin_conn.identity.create_project(name=f"{name}-project",
                                                 domain_id="default")
    storage = admin_conn.block_storage
    template = template_file(served, ADMIN)
    params = ["--parameter", f"prefix={name}", "--parameter", f"project={project.name}"]
    try:
        assert stack_action(served, "create", "-t", template, *params, name, stack=name,
                            cloud=admin) == "CREATE_COMPLETE", _reason(served, name, admin)
        ids = physical_ids(served, name, admin)
        vtype = storage.get_type(ids["vtype"])
        assert (vtype.name, vtype.is_public) == (f"{name}-type", False)
        assert vtype.extra_specs == {"volume_backend_name": "fake"}
        access = storage.get_type_access(ids["vtype"])
        assert [a["project_id"] for a in access] == [project.id]
        assert ids["crypt"] == ids["vtype"]
        crypt = storage.get_type_encryption(ids["vtype"])
        assert (crypt.provider, crypt.cipher, crypt.key_size) == ("luks", "aes-xts-plain64",
                                                                  256)
        qos = storage.get_qos_spec(ids["qos"])
        assert qos.specs == {"total_iops_sec": "1000"}
        assert _associated(admin_conn, ids["qos"]) == [ids["vtype"]]
        quota = storage.get_quota_set(project.id)
        assert (quota.volumes, quota.gigabytes) == (50, 100)
        assert ids["quota"].startswith(f"{name}-quota-")
        outputs = outputs_of(heat_client(served, admin).stacks.get(name).to_dict())
        assert outputs["crypt"]["cipher"] == "aes-xts-plain64"
        assert outputs["qos"] == {"total_iops_sec": "1000"}

        assert storage.get_volume(ids["vol"]).volume_type == "__DEFAULT__"

        # Everything in place: new specs, cipher, limit, one more associated type, the
        # volume's type.
        assert stack_action(served, "update", "-t", template, *params, "--parameter", "spec=2000",
                            "--parameter", "cipher=aes-cbc-essiv", "--parameter", "volumes=60",
                            "--parameter", "two_types=true", name, stack=name,
                            cloud=admin) == "UPDATE_COMPLETE", _reason(served, name, admin)
        assert physical_ids(served, name, admin) == ids
        assert storage.get_qos_spec(ids["qos"]).specs == {"total_iops_sec": "2000"}
        assert storage.get_type_encryption(ids["vtype"]).cipher == "aes-cbc-essiv"
        assert storage.get_quota_set(project.id).volumes == 60
        assert _associated(admin_conn, ids["qos"]) == sorted([ids["vtype"], ids["other"]])
        assert storage.get_volume(ids["vol"]).volume_type == f"{name}-other"  # a retype
    finally:
        assert deleted(served, name, cloud=admin) == "DELETE_COMPLETE", \
            _reason(served, name, admin)
        quota = storage.get_quota_set(project.id)
        admin_conn.identity.delete_project(project.id)
    assert quota.volumes != 50 and quota.volumes != 60  # the defaults again
    assert gone(storage.get_type, ids["vtype"]) and gone(storage.get_qos_spec, ids["qos"])
