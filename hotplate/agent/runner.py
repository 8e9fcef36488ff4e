"""``hotplate agent-hook``: one run over the current metadata's deployments.

A run, under the state directory's lock:

1. finishes what a killed run left: a hook that never finished is ended if
   it still runs and its deployment signalled FAILED (not run again);
2. sends the signals still in the outbox;
3. runs each deployment of the metadata that has not run as it is now, and
   signals its outcome.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hotplate.agent import hooks
from hotplate.agent.metadata import (
    MetadataError,
    config_files,
    deployments,
    inputs_of,
    normalise,
    read_merged,
)
from hotplate.agent.notify import Delivery, deliver, signal_request
from hotplate.agent.state import DEFAULT_STATE_DIR, StateDir, safe_name

__all__ = ["Options", "add_arguments", "main", "run", "run_from_args"]

LOG = logging.getLogger("hotplate.agent")

SILENT_GROUPS = ("os-apply-config", "Heat::Ungrouped")
"""Groups os-apply-config applies from the metadata itself: no hook, nothing logged."""

INTERRUPTED_STATUS = -1
"""deploy_status_code of a deployment whose hook was killed before it finished."""


@dataclass(frozen=True)
class Options:
    """What one run works on."""

    state_dir: Path
    metadata: tuple[str, ...] = ()
    hook_dirs: tuple[str, ...] = hooks.HOOK_DIRS
    signal_retries: int = 3
    signal_timeout: float = 30.0
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))


@dataclass
class _Run:
    options: Options
    state: StateDir
    pending: set[str] = field(default_factory=set)
    errors: int = 0

    def signal(self, deployment: Mapping[str, Any], signal_data: dict[str, Any]) -> None:
        """Queue the outcome's signal (kept until delivered); ``send`` sends it."""
        request = signal_request(deployment, signal_data)
        if request is not None:
            self.state.queue_signal(str(deployment["id"]), request)

    def send(self, only: str | None = None) -> None:
        """Deliver the outbox (or the one entry ``only``), keeping what may pass later."""
        for key, request in self.state.pending_signals():
            if only is not None and key != only:
                continue
            outcome = deliver(request, retries=self.options.signal_retries,
                              timeout=self.options.signal_timeout)
            if outcome is Delivery.RETRY:
                self.pending.add(key)
            else:
                self.pending.discard(key)
                self.state.signal_delivered(key)


def _recover(run: _Run) -> None:
    for marker in run.state.interrupted():
        deployment = marker.deployment
        deployment_id = str(deployment["id"])
        if run.state.already_deployed(deployment):  # killed after its outcome was kept
            run.state.clear_running(deployment_id)
            continue
        ended = hooks.end_leftovers(marker.run_token) if marker.run_token else 0
        LOG.error("deployment %s (%s) was interrupted while its hook ran%s; signalling "
                  "FAILED, not running it again", deployment.get("name"), deployment_id,
                  f" ({ended} process(es) it left ended)" if ended else "")
        data = {"deploy_stdout": "",
                "deploy_stderr": "hotplate agent-hook was stopped while this deployment's "
                                 "hook ran; the deployment was not run again",
                "deploy_status_code": INTERRUPTED_STATUS}
        run.signal(deployment, data)
        run.state.record_deployed(deployment, data)
        run.state.clear_running(deployment_id)


def _component(deployment: dict[str, Any]) -> bool:
    """Group ``component``: the config of the deploy action's tool; False if none."""
    action = inputs_of(deployment).get("deploy_action")
    config = deployment.get("config")
    for item in (config.get("configs") or []) if isinstance(config, dict) else []:
        if isinstance(item, dict) and action in (item.get("actions") or []):
            deployment["config"] = item.get("config")
            deployment["group"] = item.get("tool")
            return True
    LOG.warning("Skipping group component, no valid script is defined for deploy action %s",
                action)
    return False


def _deploy(run: _Run, deployment: dict[str, Any]) -> None:
    deployment_id = str(deployment["id"])
    name = deployment.get("name") or deployment_id
    group = str(deployment.get("group") or "Heat::Ungrouped")
    if group == "component" and not _component(deployment):
        return
    group = str(deployment.get("group") or "Heat::Ungrouped")
    if run.state.already_deployed(deployment):
        LOG.debug("deployment %s (%s) already deployed", name, deployment_id)
        return
    hook = None if group == "script" else hooks.find_hook(group, run.options.hook_dirs)
    if group != "script" and hook is None:
        if group not in SILENT_GROUPS:
            LOG.error("Skipping group %s with no hook script (deployment %s)", group, name)
        return

    run_token = uuid.uuid4().hex
    run.state.mark_running(deployment, run_token)
    LOG.info("deployment %s (%s): running group %s", name, deployment_id, group)
    if hook is None:
        data = hooks.run_script(deployment, run.state.scripts, run.state.outputs, run_token)
    else:
        data = hooks.run_executable_hook(hook, deployment, run_token)
    status = data.get("deploy_status_code")
    if status:
        LOG.error("deployment %s (%s): hook exited with status %s", name, deployment_id,
                  status)
    else:
        LOG.info("deployment %s (%s): completed", name, deployment_id)
    LOG.debug("deployment %s stdout:\n%s\nstderr:\n%s", name,
              data.get("deploy_stdout"), data.get("deploy_stderr"))
    run.signal(deployment, data)
    run.state.record_deployed(deployment, data)
    run.state.clear_running(deployment_id)
    run.send(only=safe_name(deployment_id))


def run(options: Options) -> int:
    """One run; 0 when all is done, 1 when something is left for the next run."""
    state = StateDir(options.state_dir)
    state.prepare()
    with state.lock():
        current = _Run(options, state)
        _recover(current)
        current.send()
        try:
            metadata = read_merged(config_files(options.metadata, options.environ))
        except MetadataError as exc:
            LOG.error("%s", exc)
            return 1
        for deployment in deployments(metadata):
            try:
                _deploy(current, normalise(deployment))
            except OSError as exc:  # the state directory itself failed us
                LOG.error("deployment %s: %s", deployment.get("name"), exc)
                current.errors += 1
        if current.pending:
            LOG.warning("%d signal(s) not delivered; they are sent again on the next run",
                        len(current.pending))
        return 1 if current.pending or current.errors else 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options (shared by ``hotplate agent-hook`` and ``python -m``)."""
    env = os.environ
    parser.add_argument("--state-dir", default=env.get("HOTPLATE_AGENT_STATE_DIR")
                        or DEFAULT_STATE_DIR,
                        help="what was deployed and what is left to signal (default: "
                             f"{DEFAULT_STATE_DIR}; HOTPLATE_AGENT_STATE_DIR)")
    parser.add_argument("--metadata", action="append", default=[], metavar="FILE",
                        help="a metadata JSON file, instead of OS_CONFIG_FILES (repeatable)")
    parser.add_argument("--hooks-dir", action="append", default=[], metavar="DIR",
                        help="a heat-config hooks directory searched first (repeatable; "
                             "also HEAT_CONFIG_HOOKS)")
    parser.add_argument("--signal-retries", type=int, default=3,
                        help="tries after a failed signal within one run (default 3)")
    parser.add_argument("--signal-timeout", type=float, default=30.0,
                        help="seconds for one signal request (default 30)")
    parser.add_argument("--debug", action="store_true", help="log hooks' output too")


def _logging(debug: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(
        "[%(asctime)s] (%(name)s) [%(levelname)s] %(message)s"))
    LOG.handlers[:] = [handler]
    LOG.propagate = False
    LOG.setLevel(logging.DEBUG if debug else logging.INFO)


def run_from_args(args: argparse.Namespace) -> int:
    """Run with parsed command-line options."""
    _logging(args.debug)
    environ = dict(os.environ)
    hook_dirs = (*args.hooks_dir, environ.get("HEAT_CONFIG_HOOKS", ""), *hooks.HOOK_DIRS)
    return run(Options(state_dir=Path(args.state_dir), metadata=tuple(args.metadata),
                       hook_dirs=tuple(d for d in hook_dirs if d),
                       signal_retries=max(0, args.signal_retries),
                       signal_timeout=args.signal_timeout, environ=environ))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m hotplate.agent``."""
    parser = argparse.ArgumentParser(prog="hotplate agent-hook",
                                     description="Run the deployments of the metadata "
                                                 "os-collect-config collected.")
    add_arguments(parser)
    return run_from_args(parser.parse_args(argv))
