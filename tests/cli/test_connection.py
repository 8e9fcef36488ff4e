"""Where the commands connect and with which token: flags, environment, the file
``hotplate login`` writes; and what they say when the token or the server is wrong."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from hotplate.api import EngineRpc, create_app
from hotplate.api.background import BackgroundServer, free_port
from hotplate.app import embedded
from hotplate.cli.remote.errors import CommandError
from hotplate.cli.remote.settings import (
    Connection,
    config_path,
    endpoint_for,
    read_config,
    resolve,
    write_config,
)
from hotplate.db.auth_store import AuthStore
from hotplate.db.engine import make_engine
from tests.cli.conftest import Cli, Server


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Token auth: ``admin`` (project admin), ``a`` (a member of project A)."""
    url = f"sqlite:///{Path(tmp_path_factory.mktemp('cli-auth')) / 'hotplate.sqlite'}"
    engine, transport = embedded(url, workers=2)
    db = make_engine(url, pool_size=2)
    store = AuthStore(db)
    tokens = {"admin": store.create_token("admin", "admin"),
              "a": store.create_token("A", "member")}
    app = create_app(EngineRpc(transport, host=engine.deps.host), auth=store)
    try:
        with BackgroundServer(app) as base:
            yield Server(base, tokens)
    finally:
        engine.stop()
        transport.stop()
        db.dispose()


@pytest.fixture
def bare(tmp_path: Path) -> Cli:
    """The command with no settings at all in its environment."""
    home = tmp_path / "home"
    home.mkdir()
    return Cli(home, {})


# -- against a server -----------------------------------------------------------------
def test_login_saves_the_url_and_token_for_later_commands(bare: Cli,
                                                          auth_server: Server) -> None:
    done = bare("login", "--url", auth_server.endpoint("A"), "--token", auth_server.tokens["a"])
    assert done.code == 0, done.err
    saved = bare.home / "config" / "hotplate" / "config.json"
    assert done.out == (f"Saved the API URL {auth_server.endpoint('A')} and its token in "
                        f"{saved}\n")
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert json.loads(saved.read_text()) == {"url": auth_server.endpoint("A"),
                                             "token": auth_server.tokens["a"]}
    listed = bare("stack", "list", "-f", "json")
    assert (listed.code, listed.out) == (0, "[]\n")


def test_login_with_a_bad_token_saves_nothing(bare: Cli, auth_server: Server) -> None:
    done = bare("login", "--url", auth_server.endpoint("A"), "--token", "not-a-token")
    assert done.code == 1
    assert done.err == ("ERROR: The request you have made requires authentication. Check the "
                        "token: --token, HOTPLATE_TOKEN or `hotplate login`. Nothing was saved "
                        "(--no-verify saves anyway).\n")
    assert not (bare.home / "config" / "hotplate" / "config.json").exists()


def test_a_bad_token_says_to_check_it(bare: Cli, auth_server: Server) -> None:
    done = bare("stack", "list", env={"HOTPLATE_URL": auth_server.endpoint("A"),
                                      "HOTPLATE_TOKEN": "not-a-token"})
    assert (done.code, done.out) == (1, "")
    assert done.err == ("ERROR: The request you have made requires authentication. Check the "
                        "token: --token, HOTPLATE_TOKEN or `hotplate login`.\n")


def test_another_projects_url_is_forbidden(bare: Cli, auth_server: Server) -> None:
    done = bare("stack", "list", "--url", auth_server.endpoint("B"), "--token",
                auth_server.tokens["a"])
    assert done.code == 1
    assert done.err == ("ERROR: Project B is not the project of the token. Check the token "
                        "and the project in the URL (--url, --project).\n")


def test_flags_win_over_the_environment(bare: Cli, auth_server: Server) -> None:
    wrong = {"HOTPLATE_URL": "http://127.0.0.1:9/v1/A", "HOTPLATE_TOKEN": "not-a-token"}
    done = bare("stack", "list", "-f", "json", "--url", auth_server.base, "--project", "A",
                "--token", auth_server.tokens["a"], env=wrong)
    assert (done.code, done.out) == (0, "[]\n"), done.err


def test_an_unreachable_server_names_the_url(bare: Cli) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1/admin"
    done = bare("stack", "list", "--url", url)
    assert done.code == 1
    assert done.err.startswith(f"ERROR: cannot connect to the hotplate API at {url} (")
    assert "Connection refused" in done.err
    assert "Start one with `hotplate serve`" in done.err


# -- the settings themselves ----------------------------------------------------------
@pytest.mark.parametrize(("url", "project", "endpoint"), [
    ("http://h:8004/v1/admin", None, "http://h:8004/v1/admin"),
    ("http://h:8004/v1/admin/", "B", "http://h:8004/v1/B"),
    ("http://h:8004", None, "http://h:8004/v1/admin"),
    ("http://h:8004/", "B", "http://h:8004/v1/B"),
    ("https://h/v1", "B", "https://h/v1/B"),
    ("http://proxy/heat", "B", "http://proxy/heat/v1/B"),
])
def test_endpoints(url: str, project: str | None, endpoint: str) -> None:
    assert endpoint_for(url, project) == endpoint


def test_a_url_without_a_scheme_is_refused() -> None:
    with pytest.raises(CommandError, match="invalid API URL 'localhost:8004'"):
        endpoint_for("localhost:8004")


def test_the_file_comes_last_and_its_token_goes_only_to_its_server(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    write_config(config_path(env), {"url": "http://saved:8004/v1/P", "token": "saved-token"})
    assert resolve(environ=env) == Connection("http://saved:8004/v1/P", "saved-token")
    env_url = {**env, "HOTPLATE_URL": "http://other:8004/v1/P"}
    assert resolve(environ=env_url) == Connection("http://other:8004/v1/P", None)
    assert resolve(environ={**env_url, "HOTPLATE_TOKEN": "env-token"}).token == "env-token"
    assert resolve("http://saved:8004", environ={**env, "HOTPLATE_PROJECT": "P"}) == \
        Connection("http://saved:8004/v1/P", "saved-token")
    assert resolve(token="flag", environ={**env, "HOTPLATE_TOKEN": "env-token"}).token == "flag"


def test_without_any_setting_the_local_server_is_used(tmp_path: Path) -> None:
    assert resolve(environ={"HOME": str(tmp_path)}) == Connection(
        "http://127.0.0.1:8004/v1/admin", None)


def test_the_settings_file_is_private_and_readable(tmp_path: Path) -> None:
    path = tmp_path / "hotplate" / "config.json"
    path.parent.mkdir()
    path.write_text("{}")
    path.chmod(0o644)
    write_config(path, {"url": "http://h/v1/p"})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_config(path) == {"url": "http://h/v1/p"}
    assert read_config(tmp_path / "absent.json") == {}
    path.write_text("[1]")
    with pytest.raises(CommandError, match="not a JSON object"):
        read_config(path)
