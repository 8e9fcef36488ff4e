"""The collectors' cached files, merged as os-apply-config merges them, and their deployments."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "MetadataError",
    "config_files",
    "deployments",
    "inputs_of",
    "merge",
    "read_merged",
]

OS_CONFIG_FILES_PATH = "/var/lib/os-collect-config/os_config_files.json"
"""Where os-collect-config lists its cache files (os-apply-config's fallback)."""


class MetadataError(RuntimeError):
    """A metadata file could not be read or is not JSON."""


def config_files(explicit: Iterable[str] | None, environ: Mapping[str, str]) -> list[str]:
    """The files to merge: ``explicit`` if given, else ``OS_CONFIG_FILES``
    (colon-separated), else the list os-collect-config stored
    (``OS_CONFIG_FILES_PATH``), as os-apply-config chooses them."""
    if explicit:
        return [f for f in explicit if f]
    if "OS_CONFIG_FILES" in environ:
        return [f for f in environ["OS_CONFIG_FILES"].split(":") if f]
    listing = Path(environ.get("OS_CONFIG_FILES_PATH", OS_CONFIG_FILES_PATH))
    try:
        listed = json.loads(listing.read_text())
    except (OSError, ValueError):
        return []
    return [str(f) for f in listed] if isinstance(listed, list) else []


def _deep_merge(base: dict[str, Any], over: Any) -> Any:
    if not isinstance(over, dict):
        return copy.deepcopy(over)
    merged = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def merge(documents: Iterable[Any]) -> dict[str, Any]:
    """Deep-merge the JSON objects in order, a later one winning; lists and
    scalars are replaced whole and non-objects ignored (os-apply-config's rule)."""
    merged: dict[str, Any] = {}
    for doc in documents:
        if doc and isinstance(doc, dict):
            merged = _deep_merge(merged, doc)
    return merged


def read_merged(paths: Iterable[str]) -> dict[str, Any]:
    """The merged metadata of the files that exist among ``paths``.

    Raises:
        MetadataError: a file exists but cannot be read or parsed.
    """
    documents: list[Any] = []
    for path in paths:
        if not os.path.exists(path):
            continue
        try:
            documents.append(json.loads(Path(path).read_text()))
        except (OSError, ValueError) as exc:
            raise MetadataError(f"could not parse metadata file {path}: {exc}") from exc
    return merge(documents)


def deployments(metadata: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``deployments`` list, keeping only well-formed items (an object
    with an ``id``), each copied so the caller may normalise it."""
    items = metadata.get("deployments")
    if not isinstance(items, list):
        return []
    return [copy.deepcopy(item) for item in items if isinstance(item, dict) and item.get("id")]


def inputs_of(deployment: Mapping[str, Any]) -> dict[str, Any]:
    """The deployment's input values by name (heat-config's ``iv``)."""
    values: dict[str, Any] = {}
    for item in deployment.get("inputs") or []:
        if isinstance(item, dict) and "name" in item:
            values[str(item["name"])] = item.get("value")
    return values


def normalise(deployment: dict[str, Any]) -> dict[str, Any]:
    """String-typed inputs given as other values become strings, as
    heat-config makes them (Heat bug 1333992)."""
    for item in deployment.get("inputs") or []:
        if (isinstance(item, dict) and item.get("type") == "String"
                and item.get("value") is not None and not isinstance(item["value"], str)):
            item["value"] = str(item["value"])
    return deployment
