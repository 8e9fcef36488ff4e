"""Where the cloud suites find the project's OpenStack cloud, or why they skip.

``OS_CLOUD`` names the cloud of the test user (a member of its project) in a
clouds.yaml (``OS_CLIENT_CONFIG_FILE``, else the usual locations) and
``OS_ADMIN_CLOUD`` an admin of the same cloud (default ``hotplate-admin``).
When ``OS_CLOUD`` is unset and the project's own cloud (``make cloud``) is up
— its clouds.yaml exists beside the marker its start writes — that cloud is
used as ``hotplate-demo``. ``OS_CLOUD`` set empty turns the cloud suites off.

A cloud is used only once Keystone has issued a token for both users; each
skip says why, and ``tests/conftest.py`` repeats it in pytest's summary.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.real_services import FOUND, SKIPPED

VARIABLE = "OS_CLOUD"
PROJECT_CLOUD_HOME = Path(os.environ.get("HOTPLATE_CLOUD_HOME")
                          or Path(os.environ.get("TMPDIR") or "/tmp") / "hotplate-cloud")


@dataclass(frozen=True)
class Cloud:
    """The cloud under test: a clouds.yaml and the names of two of its clouds."""

    config_file: str | None
    """The clouds.yaml (None: openstacksdk's usual locations)."""
    user: str
    admin: str
    auth_url: str
    region: str

    def connect(self, cloud: str | None = None) -> Any:
        """An openstacksdk connection as ``cloud`` (default: the test user)."""
        import openstack.config
        import openstack.connection

        files = [self.config_file] if self.config_file else None
        region = openstack.config.OpenStackConfig(config_files=files).get_one(
            cloud=cloud or self.user)
        return openstack.connection.Connection(config=region)

    def environ(self, cloud: str | None = None) -> dict[str, str]:
        """Variables that point the openstack CLI (or heatclient's shell) at ``cloud``."""
        env = {"OS_CLOUD": cloud or self.user}
        if self.config_file:
            env["OS_CLIENT_CONFIG_FILE"] = self.config_file
        return env


def _choose() -> tuple[Cloud | None, str]:
    name = os.environ.get(VARIABLE)
    config = os.environ.get("OS_CLIENT_CONFIG_FILE")
    if name is None:
        default = PROJECT_CLOUD_HOME / "etc" / "clouds.yaml"
        if not (PROJECT_CLOUD_HOME / "state" / "up").exists() or not default.exists():
            return None, (f"{VARIABLE} is not set and the project's cloud is not up "
                          f"({PROJECT_CLOUD_HOME}; start it with `make cloud`)")
        name, config = "hotplate-demo", str(default)
    elif not name:
        return None, f"{VARIABLE} is set empty, which turns the cloud suites off"
    admin = os.environ.get("OS_ADMIN_CLOUD") or "hotplate-admin"
    return _authenticated(config, name, admin)


def _authenticated(config: str | None, name: str, admin: str) -> tuple[Cloud | None, str]:
    import openstack.config  # the cloud suites alone pay for importing openstacksdk

    files = [config] if config else None
    try:
        loader = openstack.config.OpenStackConfig(config_files=files)
        for cloud in (name, admin):
            session = loader.get_one(cloud=cloud).get_session()
            session.get_token()
        region = loader.get_one(cloud=name)
    except Exception as exc:  # any failure to log in is a reason to skip, said plainly
        return None, f"cloud {name!r} (admin {admin!r}) does not answer: {exc}"
    found = Cloud(config_file=config, user=name, admin=admin,
                  auth_url=str(region.config["auth"]["auth_url"]),
                  region=str(region.get_region_name() or "RegionOne"))
    return found, f"cloud {name!r} (admin {admin!r}) from {config or 'clouds.yaml'}"


@functools.cache
def _located() -> tuple[Cloud | None, str]:
    return _choose()


def cloud_or_skip() -> Cloud:
    """The cloud under test, or skip the test saying why."""
    cloud, how = _located()
    if cloud is None:
        SKIPPED[VARIABLE] = how
        pytest.skip(how)
    FOUND[VARIABLE] = how
    return cloud
