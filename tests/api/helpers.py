"""Templates and waits shared by the API tests."""

from __future__ import annotations

import time
from typing import Any

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
