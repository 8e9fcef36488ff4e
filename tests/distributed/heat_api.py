"""Heat 27.0.1's own heat-api, in a virtualenv of its own, built once per machine.

The virtualenv holds heat-api and only what it imports
(``heat_api_requirements.txt``, installed with ``--no-deps``), under
``$HOTPLATE_HEAT_API_VENV`` or ``${XDG_CACHE_HOME:-~/.cache}/hotplate/heat-api-27.0.1``.
``tests/heat_venv.py`` builds it, as it builds the full Heat's.

``start`` runs heat-api as an operator would, from Heat's own
``heat-wsgi-api`` script with a generated heat.conf: the noauth paste
flavor, Heat's policy defaults of before 2023 (noauth makes every caller
``admin`` of project ``admin`` and grants no ``reader`` or ``member`` role,
which the new defaults ask for), and the broker the engines listen on.
One rule has no default of before 2023, ``software_deployments:metadata``
(a project's reader or its stack user): a policy file lets ``admin`` read
it too, as Keystone's implied roles do (admin implies member implies reader).

``python -m tests.distributed.heat_api`` builds it ahead of a test run and
prints where it is and how long the build took.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests import heat_venv
from tests.heat_venv import HEAT_VERSION, BuildFailed

__all__ = ["HEAT_VERSION", "POLICY", "REQUIREMENTS", "BuildFailed", "HeatApi", "ensure_venv",
           "heat_conf", "heat_python", "start", "venv_dir"]

REQUIREMENTS = Path(__file__).with_name("heat_api_requirements.txt")
VENV = heat_venv.HeatVenv(f"heat-api-{HEAT_VERSION}", "HOTPLATE_HEAT_API_VENV", REQUIREMENTS,
                          "import heat.api.openstack.wsgi")


def venv_dir() -> Path:
    """Where the virtualenv lives: per user, outside any work tree."""
    return VENV.directory()


def ensure_venv(report: Callable[[str], None] = print) -> Path:
    """The virtualenv, built first if it is missing or incomplete; ``report`` hears how
    long a build took (nothing when it is reused)."""
    return VENV.ensure(report)


POLICY = (
    '"software_deployments:metadata": "((role:reader or role:admin) and '
    'project_id:%(project_id)s) or (role:heat_stack_user and project_id:%(project_id)s)"\n'
)
"""heat-api's policy file: the one rule noauth's lone ``admin`` role cannot pass."""


def heat_conf(venv: Path, transport_url: str, policy_file: Path, *,
              host: str = "heat-api") -> str:
    """A heat.conf for heat-api alone: noauth, pre-2023 policy defaults, our broker."""
    return (
        "[DEFAULT]\n"
        f"transport_url = {transport_url}\n"
        f"host = {host}\n"
        "debug = False\n"
        "[paste_deploy]\n"
        "flavor = noauth\n"
        f"api_paste_config = {venv / 'etc' / 'heat' / 'api-paste.ini'}\n"
        "[oslo_policy]\n"
        "enforce_new_defaults = False\n"
        "enforce_scope = False\n"
        f"policy_file = {policy_file}\n"
    )


@dataclass
class HeatApi:
    """A running heat-api: its process, its endpoint and where it logs."""

    process: subprocess.Popen[bytes]
    endpoint: str
    log: Path

    def stop(self) -> None:
        """End the process this helper started (SIGTERM, then SIGKILL)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def start(venv: Path, transport_url: str, port: int, workdir: Path) -> HeatApi:
    """Start heat-api on 127.0.0.1:``port``; it answers once ``/`` does (see wait)."""
    policy = workdir / "policy.yaml"
    policy.write_text(POLICY)
    conf = workdir / "heat.conf"
    conf.write_text(heat_conf(venv, transport_url, policy))
    log = workdir / "heat-api.log"
    with log.open("wb") as sink:  # the child keeps its own copy of the descriptor
        process = subprocess.Popen(
            [str(venv / "bin" / "heat-wsgi-api"), "--host", "127.0.0.1", "--port", str(port),
             "--", "--config-file", str(conf)],
            stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=workdir)
    return HeatApi(process, f"http://127.0.0.1:{port}/v1/admin", log)


heat_python = heat_venv.python


if __name__ == "__main__":
    print(ensure_venv())
