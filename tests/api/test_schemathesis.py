"""schemathesis over ``/openapi.json`` against a running ``hotplate serve``.

Every operation the document lists gets generated requests (coverage,
fuzzing and stateful phases); none may answer 5xx or break the response
schema it declares. The run's own summary says how many cases it tried.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hotplate.api.background import free_port
from tests.api.helpers import wait_until_serving

SCHEMATHESIS = shutil.which("schemathesis", path=str(Path(sys.executable).parent))
pytestmark = pytest.mark.skipif(SCHEMATHESIS is None, reason="schemathesis missing")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hotplate.cli.main", "serve", "--port", str(port),
         "--data-dir", str(tmp_path / "var"), "--noauth"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(f"{url}/openapi.json", proc)
        yield url
    finally:
        proc.terminate()
        proc.wait(20)
        if proc.stderr is not None:
            proc.stderr.close()


def test_no_5xx_and_no_response_off_its_schema(server: str, tmp_path: Path) -> None:
    assert SCHEMATHESIS is not None
    run = subprocess.run(
        [SCHEMATHESIS, "run", f"{server}/openapi.json",
         "--checks", "not_a_server_error,response_schema_conformance",
         "--max-examples", "10", "--seed", "20261130", "--no-color"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    summary = re.search(r"(\d+) generated, (\d+) passed", run.stdout)
    assert run.returncode == 0 and summary is not None, run.stdout[-4000:]
    generated, passed = map(int, summary.groups())
    print(f"schemathesis: {generated} cases, {passed} passed")
    assert generated == passed and generated >= 200
