"""The template versions this engine accepts and the functions each offers, as Heat lists them.

Heat names a version by its entry point, ``<version key>.<date>``
(``heat_template_version.2016-10-14``, ``AWSTemplateFormatVersion.2010-09-09``);
release names (``heat_template_version.newton``) are aliases of a dated
version. The tables themselves live with the template parser
(``hotplate.template.versions``); this module shapes them into Heat's answers.
"""

from __future__ import annotations

from typing import Any

from hotplate.engine.errors import NotFound
from hotplate.template.function_listing import listed_functions
from hotplate.template.versions import TEMPLATE_VERSIONS, find_version_label


def list_template_versions() -> list[dict[str, Any]]:
    """Every version in Heat's order: ``{"version", "type", "aliases"}``."""
    return [{"version": v.label, "type": v.kind, "aliases": list(v.aliases)}
            for v in TEMPLATE_VERSIONS]


def list_template_functions(template_version: str, with_condition: bool = False,
                            ) -> list[dict[str, str]]:
    """The functions of a version, named by label or alias: ``{"functions", "description"}``.

    Raises:
        NotFound: "Template with version X not found" (a 404, as in Heat).
    """
    version = find_version_label(template_version)
    if version is None:
        raise NotFound(f"Template with version {template_version} not found")
    return [{"functions": name, "description": description}
            for name, description in listed_functions(version, with_conditions=with_condition)]
