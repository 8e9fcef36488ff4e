"""The real agents' virtualenv, for the tests that run them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents import agents_venv


@pytest.fixture(scope="session")
def agents(request: pytest.FixtureRequest) -> Path:
    """The virtualenv holding os-collect-config and cfn-signal (built on first use,
    about 30 s); the test skips, saying why, when it cannot be built."""
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")

    def report(line: str) -> None:
        if reporter is not None:
            reporter.write_line(line)

    try:
        return agents_venv.ensure_venv(report)
    except agents_venv.BuildFailed as exc:
        pytest.skip(f"the agents' virtualenv could not be built: {exc}")
