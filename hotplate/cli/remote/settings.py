"""Where the API is and which token to send: flags, then environment, then a file.

The endpoint is the API base including the project, as Heat's clients take
it (``http://127.0.0.1:8004/v1/admin``). A server root (``http://host:8004``)
is accepted too; the project then comes from ``--project`` (default
``admin``, the project ``hotplate serve`` prints).

Each setting is looked up in order: the command-line flag, the environment
(``HOTPLATE_URL``, ``HOTPLATE_TOKEN``, ``HOTPLATE_PROJECT``), the file written
by ``hotplate login`` (``$XDG_CONFIG_HOME/hotplate/config.json``, by default
``~/.config/hotplate/config.json``, readable by its owner only). The saved
token is sent only to the server it was saved with, never to another URL.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from hotplate.cli.remote.errors import CommandError

ENV_URL = "HOTPLATE_URL"
ENV_TOKEN = "HOTPLATE_TOKEN"
ENV_PROJECT = "HOTPLATE_PROJECT"
DEFAULT_URL = "http://127.0.0.1:8004/v1/admin"
DEFAULT_PROJECT = "admin"
_VERSIONS = ("v1", "v1.0")


@dataclass(frozen=True)
class Connection:
    """A resolved endpoint (``.../v1/<project>``) and the token to send, if any."""

    endpoint: str
    token: str | None = None


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """The settings file: under ``$XDG_CONFIG_HOME``, else ``~/.config``."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "hotplate" / "config.json"


def read_config(path: Path) -> dict[str, Any]:
    """The saved settings; an absent file is no settings."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise CommandError(f"cannot read the settings in {path}: {exc}")
    if not isinstance(data, dict):
        raise CommandError(f"cannot read the settings in {path}: not a JSON object")
    return data


def write_config(path: Path, settings: Mapping[str, Any]) -> None:
    """Save settings readable by the owner only: the file holds a token."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        os.fchmod(out.fileno(), 0o600)  # an older file may have been wider
        json.dump(dict(settings), out, indent=2)
        out.write("\n")


def endpoint_for(url: str, project: str | None = None) -> str:
    """The API base for ``url``: kept when it names ``/v1/<project>``, completed otherwise.

    ``project``, when given, replaces the project the URL names.
    """
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise CommandError(f"invalid API URL {url!r}: expected http(s)://HOST[:PORT]/v1/PROJECT")
    segments = [s for s in parts.path.split("/") if s]
    if len(segments) >= 2 and segments[-2] in _VERSIONS:
        segments[-1] = project or segments[-1]
    elif segments and segments[-1] in _VERSIONS:
        segments.append(project or DEFAULT_PROJECT)
    else:
        segments += ["v1", project or DEFAULT_PROJECT]
    return urlunsplit((parts.scheme, parts.netloc, "/" + "/".join(segments), "", ""))


def resolve(url: str | None = None, token: str | None = None, project: str | None = None,
            environ: Mapping[str, str] | None = None) -> Connection:
    """The connection to use: each setting from the flag, the environment or the file."""
    env = os.environ if environ is None else environ
    saved = read_config(config_path(env))
    chosen_project = project or env.get(ENV_PROJECT) or None
    endpoint = endpoint_for(str(url or env.get(ENV_URL) or saved.get("url") or DEFAULT_URL),
                            chosen_project)
    chosen_token = token or env.get(ENV_TOKEN)
    # The saved token goes only to the server it was saved for.
    if (not chosen_token and saved.get("token") and saved.get("url")
            and endpoint_for(str(saved["url"]), chosen_project) == endpoint):
        chosen_token = str(saved["token"])
    return Connection(endpoint, chosen_token or None)
