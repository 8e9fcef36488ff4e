"""OS::Heat::MultipartMime: configs assembled into one multi-part MIME message.

A part is inline text or the id of another config (whose stored config is
used); a part of type ``multipart`` that is itself a MIME message has its
parts appended one by one. The message is stored as a config, as Heat does.
"""

from __future__ import annotations

import contextlib
import email
import os
import re
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from typing import Any

from hotplate.resources import software_config as sc
from hotplate.resources.constraints import AllowedValues
from hotplate.resources.properties import Schema
from hotplate.resources.software_port import ConfigNotFound, software_configs
from hotplate.resources.support import SupportStatus

__all__ = ["MultipartMime", "mime_part"]

PARTS, CONFIG, FILENAME, TYPE, SUBTYPE = "parts", "config", "filename", "type", "subtype"
TEXT, MULTIPART = "text", "multipart"
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?([0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}$")


def mime_part(text: str, subtype: str | None, filename: str | None) -> MIMEText:
    """One text part; its subtype from the file name's stem when none is given."""
    if not subtype and filename:
        subtype = os.path.splitext(filename)[0]
    try:
        text.encode("us-ascii")
        charset = "us-ascii"
    except UnicodeEncodeError:
        charset = "utf-8"
    part = MIMEText(text, _subtype=subtype, _charset=charset) if subtype else MIMEText(
        text, _charset=charset)
    if filename:
        part.add_header("Content-Disposition", "attachment", filename=filename)
    return part


def _sub_parts(message: str) -> list[MIMEText]:
    parsed = email.message_from_string(message)
    if not parsed.is_multipart():
        return []
    found = []
    for part in parsed.get_payload():
        if isinstance(part, email.message.Message):
            found.append(mime_part(str(part.get_payload()), part.get_content_subtype(),
                                   part.get_filename()))
    return found


class MultipartMime(sc.SoftwareConfig):
    """Assembles a collection of software configurations as a multi-part mime.

    Parts in the message can be populated with inline configuration or
    references to other config resources. If the referenced resource is itself
    a valid multi-part mime message, that will be broken into parts and
    those parts appended to this message.

    The resulting multi-part mime message will be stored by the configs API
    and can be referenced in properties such as OS::Nova::Server user_data.

    This resource is generally used to build a list of cloud-init
    configuration elements including scripts and cloud-config. Since
    cloud-init is boot-only configuration, any changes to the definition
    will result in the replacement of all servers which reference it.
    """

    support_status = SupportStatus(version="2014.1")
    properties_schema = {
        sc.GROUP: Schema(Schema.STRING, "Namespace to group this multi-part configs by when "
                         "delivered to a server. This may imply what configuration tool is "
                         "going to perform the configuration.", default=sc.UNGROUPED,
                         support_status=SupportStatus(version="14.0.0")),
        PARTS: Schema(Schema.LIST, "Parts belonging to this message.", default=[],
                      schema=Schema(Schema.MAP, schema={
                          CONFIG: Schema(Schema.STRING, "Content of part to attach, either "
                                         "inline or by referencing the ID of another "
                                         "software config resource.", required=True),
                          FILENAME: Schema(Schema.STRING,
                                           "Optional filename to associate with part."),
                          TYPE: Schema(Schema.STRING, "Whether the part content is text or "
                                       "multipart.", default=TEXT,
                                       constraints=[AllowedValues((TEXT, MULTIPART))]),
                          SUBTYPE: Schema(Schema.STRING,
                                          "Optional subtype to specify with the type."),
                      })),
    }

    def message(self) -> str:
        parts: list[MIMEText] = []
        for item in self.properties.get(PARTS) or []:
            text = str(item.get(CONFIG) or "")
            if _UUID.match(text):
                with contextlib.suppress(ConfigNotFound):
                    text = str(software_configs(self).show_config(text).get("config") or "")
            if (item.get(TYPE) or TEXT) == MULTIPART:
                parts.extend(_sub_parts(text))
            else:
                parts.append(mime_part(text, item.get(SUBTYPE), item.get(FILENAME)))
        return MIMEMultipart(_subparts=parts).as_string()

    def config_body(self) -> dict[str, Any]:
        return {"group": self.properties.get(sc.GROUP) or sc.UNGROUPED,
                "config": self.message(), "inputs": [], "outputs": [], "options": None}
