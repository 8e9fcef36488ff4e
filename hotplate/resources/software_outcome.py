"""What a server's signal makes of a deployment: pure, Heat's rules and texts (SPEC.md 5.4).

The signal's details carry ``deploy_status_code``, ``deploy_stdout``,
``deploy_stderr`` and any of the config's outputs by name:

- a status code other than 0 (or "0"): FAILED, reason
  ``deploy_status_code : Deployment exited with non-zero status code: <n>``;
- an output declared ``error_output`` present in the details: FAILED, its
  value in the reason (``<name> : <value>``, the reasons joined by ``, ``);
- otherwise COMPLETE, ``Outputs received``.

The deployment's output values gain every declared output the signal
names, and the three ``deploy_*`` values (None when absent).

The deployment keeps Heat's reason; the resource that waited for it fails
with Heat's ``Deployment to server failed: <reason>`` followed by the end of
the script's stderr (``; deploy_stderr: <tail>``), so the stack's own
reason says why the script failed without a look at the deployment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["DEPLOY_OUTPUTS", "SignalOutcome", "failure_reason", "signal_outcome", "stderr_tail"]

STATUS_CODE, STDOUT, STDERR = "deploy_status_code", "deploy_stdout", "deploy_stderr"
DEPLOY_OUTPUTS = (STATUS_CODE, STDOUT, STDERR)
COMPLETE, FAILED, IN_PROGRESS = "COMPLETE", "FAILED", "IN_PROGRESS"
STDERR_TAIL = 200
"""At most this many characters of stderr end a failed resource's reason: enough for
the last error lines, short enough for an event list."""


@dataclass(frozen=True, slots=True)
class SignalOutcome:
    status: str
    status_reason: str
    output_values: dict[str, Any]
    event_reason: str
    """What the signal event says (``deployment <id> succeeded`` / ``failed (<code>)``)."""


def signal_outcome(deployment_id: str, details: Mapping[str, Any] | None,
                   outputs: Sequence[Mapping[str, Any]],
                   previous: Mapping[str, Any] | None) -> SignalOutcome:
    """The deployment's new status, reason and output values after ``details``."""
    details = details or {}
    values = dict(previous or {})
    failed = False
    reasons: dict[str, str] = {}
    code = details.get(STATUS_CODE)
    if code and str(code) != "0":
        failed = True
        reasons[STATUS_CODE] = f"Deployment exited with non-zero status code: {code}"
        event = f"deployment {deployment_id} failed ({code})"
    else:
        event = f"deployment {deployment_id} succeeded"
    for output in outputs:
        key = str(output.get("name"))
        if key in details:
            values[key] = details[key]
            if output.get("error_output", False):
                failed = True
                reasons[key] = str(details[key])
                event = f"deployment {deployment_id} failed"
    for key in DEPLOY_OUTPUTS:
        values[key] = details.get(key)
    if failed:
        reason = ", ".join(f"{key} : {text}" for key, text in reasons.items())
        return SignalOutcome(FAILED, reason, values, event)
    return SignalOutcome(COMPLETE, "Outputs received", values, event)


def stderr_tail(stderr: Any, limit: int = STDERR_TAIL) -> str:
    """The last lines of ``stderr`` that fit in ``limit`` characters, stripped.

    Whole lines are kept from the end; a last line longer than ``limit``
    keeps its end. '' when there is no stderr (or only blanks).
    """
    text = str(stderr).strip() if stderr is not None else ""
    if len(text) <= limit:
        return text
    kept: list[str] = []
    size = 0
    for line in reversed(text.splitlines()):
        size += len(line) + (1 if kept else 0)
        if size > limit:
            break
        kept.append(line)
    if not kept:
        return text[-limit:].strip()
    return "\n".join(reversed(kept)).strip()


def failure_reason(status_reason: str, output_values: Mapping[str, Any] | None) -> str:
    """Why the resource waiting for a FAILED deployment failed: Heat's text for the
    deployment's reason, then the tail of its stderr when it has one."""
    reason = f"Deployment to server failed: {status_reason}"
    tail = stderr_tail((output_values or {}).get(STDERR))
    return f"{reason}; {STDERR}: {tail}" if tail else reason
