"""Templates and waits shared by the API tests."""

from __future__ import annotations

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
