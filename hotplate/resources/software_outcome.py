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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["DEPLOY_OUTPUTS", "SignalOutcome", "signal_outcome"]

STATUS_CODE, STDOUT, STDERR = "deploy_status_code", "deploy_stdout", "deploy_stderr"
DEPLOY_OUTPUTS = (STATUS_CODE, STDOUT, STDERR)
COMPLETE, FAILED, IN_PROGRESS = "COMPLETE", "FAILED", "IN_PROGRESS"


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
