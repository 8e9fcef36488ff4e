"""A database URL whose driver is not installed: every command that takes one says, in
one line, which extra to install, and exits 2 (never a traceback).

The missing driver is simulated: in-process by a ``None`` in ``sys.modules``
(what ``import`` reports as not found), in a real process by a sitecustomize
that refuses the import, as on a machine without the extra.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hotplate.cli.main import main
from hotplate.db.engine import DatabaseUrlError, make_engine, require_driver
from hotplate.db.migrate import upgrade

POSTGRES = "postgresql+psycopg://hotplate:secret@127.0.0.1:1/hotplate"
MYSQL = "mysql+pymysql://root:secret@127.0.0.1:1/hotplate"
BROKER = ["--transport-url", "rabbit://guest:guest@127.0.0.1:1/"]
INSTALL = {POSTGRES: "install it with: pip install 'hotplate[postgres]'",
           MYSQL: "install it with: pip install 'hotplate[mysql]'"}
COMMANDS = {
    "db sync": ["db", "sync"],
    "run": ["run", "template.yaml"],
    "serve": ["serve", "--noauth"],
    "api": ["api", *BROKER],
    "engine": ["engine", *BROKER],
    "token create": ["token", "create", "--project", "p", "--role", "admin"],
}


@pytest.fixture
def no_drivers(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in ("psycopg", "pymysql"):
        monkeypatch.setitem(sys.modules, module, None)


@pytest.mark.usefixtures("no_drivers")
@pytest.mark.parametrize("url", [POSTGRES, MYSQL])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_names_the_extra(command: str, url: str, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        main(["--db-url", url, *COMMANDS[command]])
    assert stopped.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    driver = "psycopg" if url == POSTGRES else "pymysql"
    assert last.startswith(f"error: {url.split('://')[0]}:// needs the {driver} driver, "
                           "which is not installed (")
    assert last.endswith(INSTALL[url])
    assert "secret" not in last


@pytest.mark.usefixtures("no_drivers")
def test_the_library_raises_the_same_error_not_an_import_error() -> None:
    for build in (make_engine, upgrade):
        with pytest.raises(DatabaseUrlError, match=r"pip install 'hotplate\[postgres\]'"):
            build(POSTGRES)


def test_urls_that_name_no_usable_dialect(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(DatabaseUrlError, match="unusable database URL: Can't load plugin"):
        require_driver("cockroach://db/x")
    with pytest.raises(SystemExit) as stopped:
        main(["--db-url", "not a url", "db", "sync"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err == (
        "error: unusable database URL: Could not parse SQLAlchemy URL from given URL string\n")


def test_installed_drivers_pass() -> None:
    assert require_driver(POSTGRES).get_driver_name() == "psycopg"
    assert require_driver("sqlite://").get_backend_name() == "sqlite"


BLOCKER = """\
import sys


class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("psycopg", "pymysql"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NotInstalled())
"""


@pytest.mark.parametrize("command", ["serve", "engine", "db sync"])
def test_a_process_without_the_driver_prints_one_line(command: str, tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(BLOCKER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "HOTPLATE_DB_URL": POSTGRES}
    done = subprocess.run([sys.executable, "-m", "hotplate.cli.main", *COMMANDS[command]],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == (
        "error: postgresql+psycopg:// needs the psycopg driver, which is not installed "
        "(No module named 'psycopg'); install it with: pip install 'hotplate[postgres]'")
