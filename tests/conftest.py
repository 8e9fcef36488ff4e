"""Session-wide reporting: which real-service suites ran, on what, and why others skipped."""

from __future__ import annotations

import pytest

from tests.real_services import summary_lines


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    lines = summary_lines()
    if lines:
        terminalreporter.section(
            "real services (PostgreSQL, MariaDB, RabbitMQ, the OpenStack cloud)")
        for line in lines:
            terminalreporter.line(line)
