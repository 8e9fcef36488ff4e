"""A real Heat 27.0.1's database holding stacks of every shape, on MariaDB and on
PostgreSQL, for the tests of importing a Heat database into hotplate.

Each backend's source is made once a session: its virtualenv is built once per machine
(the build time is printed), Heat runs while the shapes are made and is stopped before the
tests run, since an import refuses a Heat that is running. A test may start it again
(``heat_source.source.start()``) to change a stack, and must stop it before importing.
The database and the broker's virtual host go at the end of the session.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from tests.heat_import import heat_source as heat
from tests.heat_import.shapes import ShapedSource, create_shapes
from tests.heat_venv import HEAT_VERSION, BuildFailed
from tests.real_services import MYSQL, POSTGRES, RABBIT, url_or_skip

SERVERS = {"mysql": MYSQL, "postgresql": POSTGRES}


@pytest.fixture(scope="session", params=sorted(SERVERS))
def heat_source(request: pytest.FixtureRequest,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShapedSource]:
    """A stopped Heat whose database holds every shape (``shapes.py``)."""
    backend = request.param
    server = url_or_skip(SERVERS[backend])
    broker = url_or_skip(RABBIT)
    report = _reporter(request)
    try:
        venv = heat.ensure_venv(report)
    except BuildFailed as exc:
        pytest.skip(f"Heat {HEAT_VERSION}'s virtualenv could not be built: {exc}")
    workdir = tmp_path_factory.mktemp(f"heat-source-{backend}")
    with heat.HeatSource(backend, server, broker, workdir, venv) as source:
        shaped = create_shapes(source)
        source.stop()
        report(f"Heat source on {backend} (logs in {workdir}): " + ", ".join(
            f"{step} {secs:.1f} s" for step, secs in source.timings))
        yield shaped


def _reporter(request: pytest.FixtureRequest) -> heat.Report:
    """Lines for the terminal, around pytest's capture (a fixture's output is captured)."""
    plugins = request.config.pluginmanager
    terminal = plugins.get_plugin("terminalreporter")
    capture = plugins.get_plugin("capturemanager")

    def report(line: str) -> None:
        if terminal is None or capture is None:
            print(line, file=sys.stderr)
            return
        with capture.global_and_fixture_disabled():
            terminal.write_line(line)

    return report
