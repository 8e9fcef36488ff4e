"""Templates, environments and parameters read from files, sent the way heatclient sends them.

The server never reads the client's disk, so everything a template names
travels in the request:

- the template goes parsed, as an object;
- a file it names with ``get_file: path``, or as a resource ``type:`` ending in
  ``.yaml`` or ``.template``, is read and put in ``files`` under its absolute
  URL (``file:///abs/path``), and the template's reference is rewritten to
  that URL. A named file that is itself a template is processed the same
  way and sent as JSON text;
- each ``-e`` environment is merged, in order, into ``environment``, and is
  also sent in ``files`` under its URL, listed in ``environment_files``;
  provider templates its ``resource_registry`` names go into ``files`` too.

Local paths and ``file://`` URLs are read here; ``http(s)://`` URLs are
fetched.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

import yaml

from hotplate.cli.remote.errors import CommandError

VERSION_KEYS = ("heat_template_version", "HeatTemplateFormatVersion", "AWSTemplateFormatVersion")
ENVIRONMENT_SECTIONS = ("parameter_defaults", "parameters", "resource_registry",
                        "encrypted_param_names", "event_sinks", "parameter_merge_strategies")
TEMPLATE_SUFFIXES = (".yaml", ".template")
_REGISTRY_SKIPPED = ("base_url", "hooks", "restricted_actions")
HOOK_TYPES = ("pre-create", "pre-update", "pre-delete")

_Loader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _TextDates(_Loader):  # type: ignore[misc]
    """YAML that keeps ``2021-04-16`` a string: template versions are dates in disguise."""


_TextDates.add_constructor("tag:yaml.org,2002:timestamp",
                           lambda loader, node: loader.construct_scalar(node))


def load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=_TextDates)


# -- reading --------------------------------------------------------------------------
def to_url(path: str) -> str:
    """A URL for ``path``: URLs as they are, local paths as absolute ``file://`` URLs."""
    if urlsplit(path).scheme in ("file", "http", "https"):
        return path
    return Path(path).expanduser().resolve().as_uri()


def base_of(url: str) -> str:
    """The directory ``url`` is in, which relative references start from."""
    return url.rsplit("/", 1)[0] + "/"


def read_url(url: str) -> str:
    """The text at ``url``; content that is not UTF-8 comes back base64-encoded."""
    parts = urlsplit(url)
    if parts.scheme == "file":
        try:
            raw = Path(unquote(parts.path)).read_bytes()
        except OSError as exc:
            raise CommandError(f"Could not fetch contents for {url}: {exc.strerror}")
    else:
        raw = _download(url)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return base64.encodebytes(raw).decode("ascii")


def _download(url: str) -> bytes:
    import httpx

    try:
        resp = httpx.get(url, follow_redirects=True, timeout=60)
        resp.raise_for_status()
    except httpx.HTTPError as exc:
        raise CommandError(f"Could not fetch contents for {url}: {exc}")
    return resp.content


# -- parsing --------------------------------------------------------------------------
def parse_template(text: str, source: str) -> dict[str, Any]:
    """A template (JSON or YAML) that names its format version."""
    try:
        data = json.loads(text) if text.strip().startswith("{") else load_yaml(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise CommandError(f"Error parsing template {source} {exc}")
    data = {} if data is None else data
    if not isinstance(data, dict) or not any(k in data for k in VERSION_KEYS):
        raise CommandError(f"Error parsing template {source} Template format version not "
                           "found.")
    return data


def is_template(text: str) -> bool:
    try:
        parse_template(text, "")
    except CommandError:
        return False
    return True


def parse_environment(text: str, source: str) -> dict[str, Any]:
    """An environment: a YAML mapping of Heat's environment sections only."""
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        raise CommandError(f"Error parsing environment {source} {exc}")
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise CommandError(f"Error parsing environment {source}: The environment is not a "
                           "valid YAML mapping data type.")
    for section in data:
        if section not in ENVIRONMENT_SECTIONS:
            raise CommandError(f"Error parsing environment {source}: environment has wrong "
                               f'section "{section}"')
    return data


# -- files a template or environment names --------------------------------------------
def _fetch_into(files: dict[str, str], url: str) -> None:
    """Read ``url`` into ``files``; a template is processed first and stored as JSON."""
    if url in files:
        return
    files[url] = ""  # claimed first, so templates that name each other end
    content = read_url(url)
    if is_template(content):
        child = parse_template(content, url)
        collect_template_files(child, files, base_of(url))
        content = json.dumps(child)
    files[url] = content


def collect_template_files(node: Any, files: dict[str, str], base: str) -> None:
    """Put every file ``node`` names into ``files``; rewrite the names to absolute URLs."""
    if isinstance(node, list):
        for item in node:
            collect_template_files(item, files, base)
        return
    if not isinstance(node, dict):
        return
    for key, value in list(node.items()):
        collect_template_files(value, files, base)
        if not isinstance(value, str):
            continue
        if key == "get_file" or (key == "type" and value.endswith(TEMPLATE_SUFFIXES)):
            url = urljoin(base, value)
            _fetch_into(files, url)
            node[key] = url


def _collect_registry(registry: dict[str, Any], files: dict[str, str], base: str) -> None:
    for key, value in list(registry.items()):
        if key in _REGISTRY_SKIPPED or not isinstance(value, str) or "::" in value:
            continue
        url = urljoin(base, value)
        _fetch_into(files, url)
        registry[key] = url


def collect_registry_files(registry: Any, files: dict[str, str], base: str) -> None:
    """Provider templates a ``resource_registry`` names, global and per resource."""
    if not isinstance(registry, dict):
        return
    base = str(registry.get("base_url") or base)
    _collect_registry(registry, files, base)
    for entry in (registry.get("resources") or {}).values():
        if isinstance(entry, dict):
            _collect_registry(entry, files, str(entry.get("base_url") or base))


# -- what the commands call -----------------------------------------------------------
def load_template(path: str) -> tuple[dict[str, str], dict[str, Any]]:
    """``(files, template)`` for the template at ``path``."""
    url = to_url(path)
    template = parse_template(read_url(url), url)
    files: dict[str, str] = {}
    collect_template_files(template, files, base_of(url))
    return files, template


def load_environments(paths: Iterable[str]
                      ) -> tuple[dict[str, str], dict[str, Any], list[str]]:
    """``(files, merged environment, environment_files)`` for ``-e`` files, in order."""
    files: dict[str, str] = {}
    merged: dict[str, Any] = {}
    urls: list[str] = []
    for path in paths:
        url = to_url(path)
        env = parse_environment(read_url(url), url)
        collect_registry_files(env.get("resource_registry"), files, base_of(url))
        files[url] = json.dumps(env)
        merged = deep_update(merged, env)
        urls.append(url)
    return files, merged, urls


def deep_update(old: dict[str, Any] | None, new: Mapping[str, Any]) -> dict[str, Any]:
    """``new`` merged into ``old`` key by key; a null never erases a mapping."""
    result = dict(old or {})
    for key, value in new.items():
        if isinstance(value, Mapping):
            current = result.get(key)
            result[key] = deep_update(current if isinstance(current, dict) else {}, value)
        elif value is None and isinstance(result.get(key), dict):
            continue
        else:
            result[key] = value
    return result


def parse_parameters(pairs: Iterable[str] | None, *, split_semicolons: bool = True
                     ) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; a key given twice becomes a list.

    As in heatclient, one single ``--parameter`` may hold several pairs
    separated by ``;``.
    """
    given = list(pairs or ())
    if split_semicolons and len(given) == 1:
        given = given[0].split(";")
    params: dict[str, Any] = {}
    for pair in given:
        key, sep, value = pair.partition("=")
        if not sep:
            raise CommandError(f"Malformed parameter({pair}). Use the key=value format.")
        if key not in params:
            params[key] = value
        elif isinstance(params[key], list):
            params[key].append(value)
        else:
            params[key] = [params[key], value]
    return params


def parameter_files(pairs: Iterable[str] | None, template_path: str | None
                    ) -> dict[str, str]:
    """``KEY=FILE`` pairs: each value is the file's content, relative to the template."""
    named = parse_parameters(pairs, split_semicolons=False)
    base = base_of(to_url(template_path)) if template_path else Path.cwd().as_uri() + "/"
    return {key: read_url(urljoin(base, str(value))) for key, value in named.items()}


def add_hooks(env: dict[str, Any], resources: Iterable[str], hook: str) -> None:
    """Breakpoints on resources (``nested/child`` paths, wildcards) in the environment."""
    registry = env.setdefault("resource_registry", {})
    for declaration in resources:
        entry = registry.setdefault("resources", {})
        for part in (p for p in declaration.split("/") if p):
            entry = entry.setdefault(part, {})
        entry["hooks"] = hook
