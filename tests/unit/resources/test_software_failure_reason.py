"""The reason a resource fails with when its deployment failed: Heat's text, then
the end of the script's stderr."""

from __future__ import annotations

import pytest

from hotplate.resources.software_outcome import STDERR_TAIL, failure_reason, stderr_tail


@pytest.mark.parametrize(("stderr", "tail"), [
    (None, ""),
    ("", ""),
    (" \n\t\n", ""),
    ("disk is full\n", "disk is full"),
    ("a\n" + "b" * 100 + "\n" + "c" * 150 + "\n" + "d" * 40 + "\n", "c" * 150 + "\n" + "d" * 40),
    ("z" * 500 + "end", ("z" * 500 + "end")[-STDERR_TAIL:]),
    ("first\n" + "y" * 300, "y" * STDERR_TAIL),
    (3, "3"),
])
def test_the_tail_keeps_whole_last_lines_within_the_limit(stderr: object, tail: str) -> None:
    assert stderr_tail(stderr) == tail
    assert len(stderr_tail(stderr)) <= STDERR_TAIL


def test_the_reason_starts_with_heats_text_and_adds_stderr_only_when_there_is_some() -> None:
    heats = "deploy_status_code : Deployment exited with non-zero status code: 3"
    assert failure_reason(heats, {"deploy_stderr": "oops\n"}) == (
        f"Deployment to server failed: {heats}; deploy_stderr: oops")
    assert failure_reason(heats, {"deploy_stderr": ""}) == f"Deployment to server failed: {heats}"
    assert failure_reason(heats, None) == f"Deployment to server failed: {heats}"
