"""os-collect-config as an operator runs it: its configuration and its process."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from tests.agents.agents_venv import tool
from tests.agents.netns import Network


def collector_conf(attribute: dict[str, Any], command: str, workdir: Path, *,
                   interval: float = 1, metadata_url: str | None = None) -> Path:
    """/etc/os-collect-config.conf as an operator writes it from ``os_collect_config``
    (polling every ``interval`` seconds; ``metadata_url`` in place of the attribute's)."""
    cfn = attribute["cfn"]
    (workdir / "local-data").mkdir(mode=0o700, exist_ok=True)
    conf = workdir / "os-collect-config.conf"
    collectors = "".join(f"collectors = {c}\n" for c in attribute["collectors"])
    conf.write_text(
        "[DEFAULT]\n"
        f"command = {command}\n"
        f"{collectors}"
        f"cachedir = {workdir / 'occ-cache'}\n"
        f"backup_cachedir = {workdir / 'occ-backup'}\n"
        f"polling_interval = {interval}\n"
        f"min_polling_interval = {interval}\n"
        "[cfn]\n"
        f"metadata_url = {metadata_url or cfn['metadata_url']}\n"
        f"stack_name = {cfn['stack_name']}\n"
        f"access_key_id = {cfn['access_key_id']}\n"
        f"secret_access_key = {cfn['secret_access_key']}\n"
        f"path = {cfn['path']}\n"
        "[local]\n"
        f"path = {workdir / 'local-data'}\n")
    return conf


def start_agent(agents: Path, network: Network, conf: Path, log: Path,
                *, nice: int = 0, idle: bool = False) -> subprocess.Popen[bytes]:
    """os-collect-config on ``conf``; ``nice``: its CPU priority lowered by so much;
    ``idle``: scheduled only when a core is otherwise idle (SCHED_IDLE, inherited by the
    hooks it runs). A benchmark's agents stand for other machines, whose CPU is not
    the server's.

    An agent runs in a session of its own, unless its priority is lowered: where the
    kernel groups tasks by session for scheduling (autogroup), each session's group
    weighs as much as the server's however low its tasks' priority, and fifty agents
    took fifty shares of the cores to the server's one. Lowered, they stay in the
    caller's session and group, where their priority counts."""
    # The local source saves and restores the locale, and Python 3.11 names C.UTF-8
    # (this machine's) en_US.UTF-8, which is not installed: restoring it fails. LC_ALL=C
    # is restored as it was (and Python still runs in UTF-8 mode under it).
    env = {**os.environ, "LC_ALL": "C"}
    with log.open("ab") as sink:
        return subprocess.Popen(
            [*(("chrt", "--idle", "0") if idle else ()),
             *(("nice", "-n", str(nice)) if nice else ()), *network.prefix,
             str(tool(agents, "os-collect-config")), "--config-file", str(conf)],
            stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=env, start_new_session=not (idle or nice))


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
