"""Templates and waits shared by the API tests."""

from __future__ import annotations

import itertools
import subprocess
import time
from collections.abc import Callable
from typing import Any

import httpx

VERSION = "2021-04-16"


def value_template(default: str = "hello") -> dict[str, Any]:
    """A TestResource feeding an OS::Heat::Value, with an output of the value."""
    return {
        "heat_template_version": VERSION,
        "description": "api test stack",
        "parameters": {"greeting": {"type": "string", "default": default}},
        "resources": {
            "source": {"type": "OS::Heat::TestResource",
                       "properties": {"value": {"get_param": "greeting"}}},
            "message": {"type": "OS::Heat::Value",
                        "properties": {"value": {"str_replace": {
                            "template": "$g, world",
                            "params": {"$g": {"get_attr": ["source", "output"]}}}}}},
        },
        "outputs": {"message": {"description": "the greeting",
                                "value": {"get_attr": ["message", "value"]}}},
    }


def wait_status(hc: Any, stack: str, *, timeout: float = 30.0) -> Any:
    """Poll the stack until it leaves IN_PROGRESS; returns the stack."""
    deadline = time.monotonic() + timeout
    while True:
        found = hc.stacks.get(stack)
        if not found.stack_status.endswith("_IN_PROGRESS") or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


_NAMES = (f"stack{i}" for i in itertools.count())


def create_complete(hc: Any, template: Any, *, name: str | None = None,
                    timeout: float = 60.0, **fields: Any) -> str:
    """Create a stack (a fresh name unless given) and wait: it must end CREATE_COMPLETE.
    Returns the stack id."""
    created = hc.stacks.create(stack_name=name or next(_NAMES), template=template, **fields)
    stack_id: str = created["stack"]["id"]
    done = wait_status(hc, stack_id, timeout=timeout)
    assert done.stack_status == "CREATE_COMPLETE", done.stack_status_reason
    return stack_id


def update_complete(hc: Any, stack_id: str, template: Any, *, timeout: float = 60.0,
                    **fields: Any) -> Any:
    """Update a stack and wait: it must end UPDATE_COMPLETE. Returns the stack."""
    hc.stacks.update(stack_id, template=template, **fields)
    done = wait_status(hc, stack_id, timeout=timeout)
    assert done.stack_status == "UPDATE_COMPLETE", done.stack_status_reason
    return done


def output_values(stack: Any) -> dict[str, Any]:
    """A shown stack's outputs by key."""
    return {o["output_key"]: o.get("output_value") for o in stack.outputs}


def wait_until_serving(url: str, proc: subprocess.Popen[str], *, timeout: float = 20.0,
                       log: Callable[[], str] | None = None) -> None:
    """Poll ``url`` until the server process answers; if it dies first, fail with its log
    (``log``, else its stderr)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.TransportError:
            if proc.poll() is not None:
                text = log() if log else (proc.stderr.read() if proc.stderr else "")
                raise AssertionError(f"{proc.args} ended: {text}") from None
            assert time.monotonic() < deadline, f"{proc.args} did not start"
            time.sleep(0.05)
