"""Stacks of many shapes, made in a real Heat through python-heatclient: what an import
of a Heat database meets.

``create_shapes`` starts the source's Heat and makes, side by side within each phase:

- with the legacy engine, parameters and properties stored encrypted
  (``convergence_engine = false``, ``encrypt_parameters_and_properties = true``):
  ``legacy`` (as ``plain``) and ``legacy_updated`` (as ``updated``);
- then with the convergence engine, nothing encrypted: ``plain``, ``updated`` (a property
  changed in place, a resource replaced, one added, one removed), ``nested`` (a provider
  template aliased in the environment, a ResourceGroup, a ResourceChain, an
  AutoScalingGroup), ``failed`` (CREATE_FAILED, no rollback), ``suspended``,
  ``snapshotted`` (one COMPLETE snapshot), ``software`` (SoftwareConfig, CloudConfig,
  MultipartMime) and ``deleted`` (created, then deleted); and, outside any stack, a
  software config and a deployment of it to a server Heat never heard of.

The legacy phase comes first so that Heat is left running as it starts by default (the
convergence engine), ready for a test to change a stack before it stops Heat.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tests.heat_import import shape_templates as t
from tests.heat_import.heat_source import HeatSource

WAIT_SECS = 120.0
"""How long one phase's stacks may take to settle (they take seconds on an idle machine)."""

POLL_SECS = 0.2


@dataclass(frozen=True)
class Shape:
    """How to create one stack."""

    template: str
    parameters: Mapping[str, str] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)
    environment: Mapping[str, Any] = field(default_factory=dict)
    tags: str | None = None
    disable_rollback: bool = True

    def create(self, hc: Any, name: str) -> str:
        """Ask Heat to create it; its id (the create goes on in the engine)."""
        answer = hc.stacks.create(
            stack_name=name, template=self.template, parameters=dict(self.parameters),
            files=dict(self.files), environment=dict(self.environment),
            disable_rollback=self.disable_rollback, timeout_mins=30,
            **({"tags": self.tags} if self.tags else {}))
        return str(answer["stack"]["id"])


PLAIN = Shape(t.PLAIN, {"greeting": "hi", "secret": "given-in-secret"}, tags="imported,plain")
UPDATED = Shape(t.UPDATED_BEFORE, {"secret": "first-secret"}, tags="imported,updated")
SHAPES: dict[str, Shape] = {
    "plain": PLAIN,
    "updated": UPDATED,
    "nested": Shape(t.NESTED, files=t.NESTED_FILES, environment=t.NESTED_ENVIRONMENT),
    "failed": Shape(t.FAILED),
    "suspended": Shape(t.SUSPENDABLE),
    "snapshotted": Shape(t.SUSPENDABLE),
    "software": Shape(t.SOFTWARE),
    "deleted": Shape(t.SUSPENDABLE),
}
LEGACY_SHAPES = {"legacy": PLAIN, "legacy_updated": UPDATED}

EXPECTED = {
    "plain": "CREATE_COMPLETE", "updated": "UPDATE_COMPLETE", "nested": "CREATE_COMPLETE",
    "failed": "CREATE_FAILED", "suspended": "SUSPEND_COMPLETE",
    "snapshotted": "SNAPSHOT_COMPLETE", "software": "CREATE_COMPLETE",
    "deleted": "DELETE_COMPLETE", "legacy": "CREATE_COMPLETE",
    "legacy_updated": "UPDATE_COMPLETE",
}
"""Each shape's status once made."""


@dataclass(frozen=True)
class ShapedSource:
    """A Heat source and what ``create_shapes`` made in it: ids by shape name, and what
    lives outside stacks."""

    source: HeatSource
    stacks: dict[str, str]
    software: dict[str, str]
    """``config`` and ``deployment``: made through the API, outside any stack."""
    snapshot: str
    """The id of ``snapshotted``'s snapshot."""


def create_shapes(source: HeatSource) -> ShapedSource:
    """Start Heat (stopped until now) and make every shape; Heat is left running with the
    convergence engine. Raises with the ends of Heat's logs if a shape goes wrong."""
    source.start(convergence=False, encrypt=True)
    hc = source.client()
    with source.timed("legacy shapes"):
        stacks, _ = _make(source, hc, LEGACY_SHAPES, {"legacy_updated": _update(hc)})
    source.restart_engine(convergence=True, encrypt=False)
    with source.timed("convergence shapes"):
        made, done = _make(source, hc, SHAPES, {
            "updated": _update(hc),
            "suspended": hc.actions.suspend,
            "deleted": hc.stacks.delete,
            "snapshotted": lambda sid: hc.stacks.snapshot(sid, "before-import")["id"],
        }, meanwhile=lambda: _software_outside_stacks(hc))
        snapshot = str(done["snapshotted"])
        _await_snapshot(source, hc, made["snapshotted"], snapshot)
    return ShapedSource(source, stacks | made, done[None], snapshot)


def _update(hc: Any) -> Callable[[str], Any]:
    def update(stack_id: str) -> Any:
        return hc.stacks.update(stack_id, template=t.UPDATED_AFTER,
                                parameters=t.UPDATED_PARAMETERS, tags="imported,updated",
                                disable_rollback=True)
    return update


def _make(source: HeatSource, hc: Any, shapes: Mapping[str, Shape],
          then: Mapping[str, Callable[[str], Any]],
          meanwhile: Callable[[], Any] = lambda: None,
          ) -> tuple[dict[str, str], dict[str | None, Any]]:
    """Create ``shapes`` side by side (calling ``meanwhile`` as they are made), then start
    ``then``'s action on each stack it names; return once every stack is as ``EXPECTED``,
    with the ids and what each call answered (``meanwhile``'s under ``None``)."""
    stacks = {name: shape.create(hc, name) for name, shape in shapes.items()}
    answers: dict[str | None, Any] = {None: meanwhile()}
    created = {name: "CREATE_FAILED" if name == "failed" else "CREATE_COMPLETE"
               for name in stacks}
    await_statuses(source, hc, stacks, created)
    for name, action in then.items():
        answers[name] = action(stacks[name])
    await_statuses(source, hc, stacks, {name: EXPECTED[name] for name in stacks})
    return stacks, answers


def await_statuses(source: HeatSource, hc: Any, stacks: Mapping[str, str],
                   expected: Mapping[str, str], timeout: float = WAIT_SECS) -> None:
    """Poll until each stack has left IN_PROGRESS and holds the status ``expected`` of it.

    A stack's status is read after the action was asked for, so a stack that has not
    started its action yet still shows the previous one: those are waited for too.
    """
    from heatclient import exc as heat_exc

    waiting = dict(expected)
    deadline = time.monotonic() + timeout
    while waiting:
        for name, status in list(waiting.items()):
            try:
                found = hc.stacks.get(stacks[name], resolve_outputs=False)
                now, reason = found.stack_status, found.stack_status_reason
            except heat_exc.HTTPNotFound:
                now, reason = "DELETE_COMPLETE", "gone"
            if now == status:
                del waiting[name]
            elif not now.endswith("_IN_PROGRESS") and now.split("_")[0] == status.split("_")[0]:
                raise RuntimeError(f"stack {name} is {now} ({reason}), not {status}\n"
                                   f"{source.log_tails()}")
        if waiting and time.monotonic() > deadline:
            raise RuntimeError(f"still waiting after {timeout} s for {waiting}\n"
                               f"{source.log_tails()}")
        if waiting:
            time.sleep(POLL_SECS)


def _software_outside_stacks(hc: Any) -> dict[str, str]:
    config = hc.software_configs.create(**t.API_CONFIG)
    deployment = hc.software_deployments.create(
        config_id=config.id, server_id=str(uuid.uuid4()), action="CREATE",
        status="COMPLETE", status_reason="made through the API", input_values={"a": "2"})
    return {"config": config.id, "deployment": deployment.id}


def _await_snapshot(source: HeatSource, hc: Any, stack_id: str, snapshot_id: str) -> None:
    deadline = time.monotonic() + WAIT_SECS
    while True:
        found = hc.stacks.snapshot_show(stack_id, snapshot_id)["snapshot"]
        if found["status"] == "COMPLETE":
            return
        if found["status"] != "IN_PROGRESS" or time.monotonic() > deadline:
            raise RuntimeError(f"snapshot {found['status']}: {found['status_reason']}\n"
                               f"{source.log_tails()}")
        time.sleep(POLL_SECS)
