"""A server's boot data as Heat builds it for each ``user_data_format`` (pure).

``RAW`` passes the user data unchanged. ``HEAT_CFNTOOLS`` and ``SOFTWARE_CONFIG``
wrap it in a multi-part MIME message for cloud-init, with the parts Heat adds, in
Heat's order::

    part (subtype, filename)                    HEAT_CFNTOOLS   SOFTWARE_CONFIG
    cloud-config, cloud-config                  yes             yes
    cloud-boothook, boothook.sh                 yes             yes
    part-handler, part-handler.py               yes             yes
    x-cfninitdata, cfn-userdata (the data)      yes
    the data's own parts (or the data, text)                    yes
    x-shellscript, loguserdata.sh               yes
    x-cfninitdata, cfn-init-data (metadata)     if any          if any
    x-cfninitdata, cfn-metadata-server          yes
    x-cfninitdata, cfn-boto-cfg                 yes

The cloud-config part is hotplate's own minimal one (it asks cloud-init to
keep the data it was given); the boothook, the part handler that writes the
``x-cfninitdata`` parts to disk and the script that runs ``cfn-userdata`` are
hotplate's too (``guest_scripts``). Ignition user data (JSON with
``ignition.version``) gets the metadata as files, as Heat injects it.
"""

from __future__ import annotations

import email
import json
from collections.abc import Mapping
from email.mime.multipart import MIMEMultipart
from typing import Any
from urllib.parse import quote, urlparse

from hotplate.resources.multipart_mime import mime_part
from hotplate.resources.openstack.nova.guest_scripts import BOOTHOOK, PART_HANDLER, RUN_USERDATA

__all__ = ["CLOUD_CONFIG", "build_userdata", "is_ignition"]

CLOUD_CONFIG = "#cloud-config\nmerge_how: dict(recurse_array)+list(append)\n"


def is_ignition(userdata: str | None) -> bool:
    try:
        payload = json.loads(userdata or "")
    except ValueError:
        return False
    ignition = payload.get("ignition") if isinstance(payload, Mapping) else None
    return bool(isinstance(ignition, Mapping) and ignition.get("version"))


def _ignition(metadata: Mapping[str, Any], userdata: str) -> str:
    if not metadata:
        return userdata
    payload = json.loads(userdata)
    source = "data:," + quote(json.dumps(metadata))
    files = payload.setdefault("storage", {}).setdefault("files", [])
    for path in ("/var/lib/heat-cfntools/cfn-init-data", "/var/lib/cloud/data/cfn-init-data"):
        files.append({"filesystem": "root", "group": {"name": "root"}, "path": path,
                      "user": {"name": "root"},
                      "contents": {"source": source, "verification": {}}, "mode": 0o640})
    return json.dumps(payload)


def build_userdata(fmt: str, userdata: str | None, metadata: Mapping[str, Any],
                   metadata_url: str = "") -> str | None:
    """The boot data Nova receives for ``userdata`` in format ``fmt`` (module docstring)."""
    if fmt == "RAW":
        return userdata
    software = fmt == "SOFTWARE_CONFIG"
    if software and is_ignition(userdata):
        return _ignition(metadata, str(userdata))
    parts = [mime_part(CLOUD_CONFIG, "cloud-config", "cloud-config"),
             mime_part(BOOTHOOK, "cloud-boothook", "boothook.sh"),
             mime_part(PART_HANDLER, "part-handler", "part-handler.py")]
    if not software:
        parts.append(mime_part(userdata or "", "x-cfninitdata", "cfn-userdata"))
    else:
        parsed = None
        try:
            parsed = email.message_from_string(userdata or "")
        except Exception:
            parsed = None
        if parsed is not None and parsed.is_multipart():
            for part in parsed.get_payload():
                if not isinstance(part, email.message.Message):
                    continue
                parts.append(mime_part(str(part.get_payload()), part.get_content_subtype(),
                                       part.get_filename()))
        else:
            parts.append(mime_part(userdata or "", None, None))
    if not software:
        parts.append(mime_part(RUN_USERDATA, "x-shellscript", "loguserdata.sh"))
    if metadata:
        parts.append(mime_part(json.dumps(metadata), "x-cfninitdata", "cfn-init-data"))
    if not software:
        parts.append(mime_part(metadata_url, "x-cfninitdata", "cfn-metadata-server"))
        host = urlparse(metadata_url).hostname or ""
        boto = "\n".join(["[Boto]", "debug = 0", "is_secure = 0",
                          "https_validate_certificates = 1", "cfn_region_name = heat",
                          f"cfn_region_endpoint = {host}"])
        parts.append(mime_part(boto, "x-cfninitdata", "cfn-boto-cfg"))
    return MIMEMultipart(_subparts=parts).as_string()
