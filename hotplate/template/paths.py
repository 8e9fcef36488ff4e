"""Locations inside a template, spelled as Heat spells them in error messages.

A path is a tuple of text parts joined with dots; a list index is folded
into the part before it, so ``("resources", "web", "properties",
"networks[0]", "port")`` reads ``resources.web.properties.networks[0].port``.
"""

from __future__ import annotations

Path = tuple[str, ...]

# Heat names these sections CFN-style in reference errors ("web.Properties.image").
_REFERENCE_SECTIONS = {"properties": "Properties", "metadata": "Metadata"}
_RESOURCE_SECTIONS = ("resources", "Resources")


def key_path(path: Path, key: object) -> Path:
    """The path of the value under ``key`` of the mapping at ``path``."""
    return (*path, str(key))


def index_path(path: Path, index: int) -> Path:
    """The path of item ``index`` of the list at ``path``."""
    if not path:
        return (f"[{index}]",)
    return (*path[:-1], f"{path[-1]}[{index}]")


def text(path: Path) -> str:
    return ".".join(path)


def reference_key(function_path: Path) -> str:
    """Where a reference sits, as Heat's "(in ...)" names it: ``web.Properties.image``.

    ``function_path`` ends with the function's own name, which Heat leaves out.
    """
    where = function_path[:-1]
    if len(where) >= 3 and where[0] in _RESOURCE_SECTIONS:
        section = _REFERENCE_SECTIONS.get(where[2], where[2])
        return ".".join((where[1], section, *where[3:]))
    return ".".join(where)
