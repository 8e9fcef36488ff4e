"""The configuration file: Heat's format and names, where it is found, and what wins.

Precedence, highest first: flags, HOTPLATE_<OPTION> variables, the file,
the defaults. A heat.conf as operators have it (sections and options
hotplate does not know, Heat's URL forms) is read as it is.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from hotplate.config import ConfigError, Settings, heat_database_url, load
from hotplate.config.options import GROUPS, env_name
from hotplate.db.engine import PoolLimits
from hotplate.engine.options import EngineOptions

HEAT_CONF = """\
[DEFAULT]
debug = True
host = engine-host-1
transport_url = rabbit://heat:s3cret@broker:5672/
num_engine_workers = 3
executor_thread_pool_size = 8
periodic_interval = 20
engine_life_check_timeout = 5
max_resources_per_stack = -1
enable_stack_abandon = true
heat_metadata_server_url = http://heat:8000
stack_domain_admin = heat_admin
loadbalancer_template = $unknown_interpolation

[database]
connection = mysql+pymysql://heat:s3cret@db/heat?charset=utf8
max_overflow = 64
max_pool_size = 10

[keystone_authtoken]
www_authenticate_uri = http://keystone:5000
auth_type = password

[oslo_messaging_notifications]
driver = messagingv2
driver = log
topics = notifications,audit

[oslo_messaging_rabbit]
rabbit_ha_queues = true

[heat_api]
bind_host = 10.0.0.5
workers = 4
"""


def write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def test_a_heat_conf_is_read_as_heat_engine_reads_it(tmp_path: Path) -> None:
    conf = load([write(tmp_path / "heat.conf", HEAT_CONF)], environ={}, search=())
    assert conf.host == "engine-host-1"
    assert conf.transport_url == "rabbit://heat:s3cret@broker:5672/"
    assert (conf.num_engine_workers, conf.executor_thread_pool_size) == (3, 8)
    assert conf.engine == EngineOptions(max_resources_per_stack=-1,
                                        enable_stack_abandon=True, periodic_interval=20,
                                        engine_life_check_timeout=5,
                                        heat_metadata_server_url="http://heat:8000/v1/",
                                        heat_waitcondition_server_url=(
                                            "http://heat:8000/v1/waitcondition"),
                                        heat_url="http://10.0.0.5:8004/v1/%(tenant_id)s")
    assert conf.database.connection == "mysql+pymysql://heat:s3cret@db/heat?charset=utf8"
    assert conf.database.pool == PoolLimits(max_pool_size=10, max_overflow=64)
    assert (conf.api.bind_host, conf.api.bind_port) == ("10.0.0.5", 8004)
    assert conf.notifications.drivers == ("messagingv2", "log")
    assert conf.notifications.topics == ("notifications", "audit")
    assert conf.notifications.enabled and conf.notifications.transport_url is None


def test_without_a_file_the_defaults_are_heats(tmp_path: Path) -> None:
    conf = load(environ={}, search=[str(tmp_path)])
    assert conf.engine == EngineOptions()
    assert conf.host is None and conf.transport_url is None
    assert conf.num_engine_workers >= 4
    assert conf.executor_thread_pool_size == 16
    assert conf.database.connection is None
    assert conf.database.pool == PoolLimits()
    assert (conf.api.bind_host, conf.api.bind_port) == ("127.0.0.1", 8004)
    assert not conf.notifications.enabled
    assert conf.sources.files == () and conf.sources.dirs == ()


def test_flags_beat_variables_beat_the_file_beats_the_default(tmp_path: Path) -> None:
    path = write(tmp_path / "h.conf", "[DEFAULT]\nperiodic_interval = 20\n"
                 "client_retry_limit = 5\nmax_template_size = 1000\n"
                 "[database]\nconnection = sqlite:///file.sqlite\n")
    environ = {"HOTPLATE_CLIENT_RETRY_LIMIT": "7", "HOTPLATE_MAX_TEMPLATE_SIZE": "2000",
               "HOTPLATE_DB_URL": "sqlite:///variable.sqlite"}
    conf = load([path], environ=environ, search=(), overrides={
        ("DEFAULT", "max_template_size"): 3000,
        ("DEFAULT", "num_engine_workers"): None,  # a flag not given
    })
    assert conf.engine.stalled_traversal_timeout == 60  # default
    assert conf.engine.periodic_interval == 20  # file
    assert conf.engine.client_retry_limit == 7  # variable over file
    assert conf.engine.max_template_size == 3000  # flag over variable
    assert conf.database.connection == "sqlite:///variable.sqlite"


def test_an_empty_variable_is_unset(tmp_path: Path) -> None:
    path = write(tmp_path / "h.conf", "[DEFAULT]\nperiodic_interval = 20\n")
    conf = load([path], environ={"HOTPLATE_PERIODIC_INTERVAL": ""}, search=())
    assert conf.engine.periodic_interval == 20


def test_every_option_has_a_variable_of_its_own() -> None:
    names = [env_name(group, opt.dest) for group, opts in GROUPS for opt in opts]
    assert len(names) == len(set(names))
    assert env_name("DEFAULT", "num_engine_workers") == "HOTPLATE_NUM_ENGINE_WORKERS"
    assert env_name("DEFAULT", "host") == "HOTPLATE_ENGINE_HOST"
    assert env_name("database", "max_overflow") == "HOTPLATE_DB_MAX_OVERFLOW"
    assert env_name("oslo_messaging_notifications", "driver") == \
        "HOTPLATE_NOTIFICATIONS_DRIVER"


def test_variables_of_sections_and_lists() -> None:
    conf = load(environ={"HOTPLATE_NOTIFICATIONS_DRIVER": "messagingv2, log",
                         "HOTPLATE_NOTIFICATIONS_TOPICS": "a,b",
                         "HOTPLATE_DB_MAX_POOL_SIZE": "3", "HOTPLATE_PORT": "9001",
                         "HOTPLATE_ENABLE_STACK_ADOPT": "yes"}, search=())
    assert conf.notifications.drivers == ("messagingv2", "log")
    assert conf.notifications.topics == ("a", "b")
    assert conf.database.pool.max_pool_size == 3
    assert conf.api.bind_port == 9001
    assert conf.engine.enable_stack_adopt


def test_the_first_file_found_is_read_users_before_the_systems(tmp_path: Path) -> None:
    user, system = tmp_path / "home" / ".hotplate", tmp_path / "etc" / "hotplate"
    write(system / "hotplate.conf", "[DEFAULT]\nperiodic_interval = 30\nhost = sys\n")
    search = [str(user), str(system)]
    assert load(environ={}, search=search).engine.periodic_interval == 30
    write(user / "hotplate.conf", "[DEFAULT]\nperiodic_interval = 40\n")
    conf = load(environ={}, search=search)
    assert conf.engine.periodic_interval == 40
    assert conf.host is None  # first found, not merged: oslo.config's rule
    assert conf.sources.files == (str(user / "hotplate.conf"),)


def test_a_home_file_is_found_by_default(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    write(tmp_path / ".hotplate" / "hotplate.conf", "[DEFAULT]\nclient_retry_limit = 9\n")
    assert load(environ={}).engine.client_retry_limit == 9


def test_given_files_replace_the_search_and_later_ones_win(tmp_path: Path) -> None:
    write(tmp_path / "search" / "hotplate.conf", "[DEFAULT]\nclient_retry_limit = 9\n")
    first = write(tmp_path / "a.conf", "[DEFAULT]\nclient_retry_limit = 3\n"
                  "periodic_interval = 11\n")
    second = write(tmp_path / "b.conf", "[DEFAULT]\nperiodic_interval = 12\n")
    conf = load([first, second], environ={}, search=[str(tmp_path / "search")])
    assert (conf.engine.client_retry_limit, conf.engine.periodic_interval) == (3, 12)


def test_a_config_dir_is_read_after_the_files_in_name_order(tmp_path: Path) -> None:
    main = write(tmp_path / "main.conf", "[DEFAULT]\nperiodic_interval = 11\n"
                 "client_retry_limit = 1\n")
    write(tmp_path / "conf.d" / "10-a.conf", "[DEFAULT]\nperiodic_interval = 21\n")
    write(tmp_path / "conf.d" / "20-b.conf", "[DEFAULT]\nperiodic_interval = 22\n")
    write(tmp_path / "conf.d" / "ignored.txt", "[DEFAULT]\nclient_retry_limit = 5\n")
    conf = load([main], [str(tmp_path / "conf.d")], environ={}, search=())
    assert (conf.engine.periodic_interval, conf.engine.client_retry_limit) == (22, 1)


def test_a_conf_d_beside_the_default_file_is_read(tmp_path: Path) -> None:
    write(tmp_path / "hotplate.conf.d" / "x.conf", "[DEFAULT]\nperiodic_interval = 33\n")
    assert load(environ={}, search=[str(tmp_path)]).engine.periodic_interval == 33


@pytest.mark.parametrize(("text", "message"), [
    ("[DEFAULT]\nperiodic_interval = soon\n",
     r"\[DEFAULT\]/periodic_interval in .*h\.conf: invalid literal for int\(\)"),
    ("[DEFAULT]\nperiodic_interval = 0\n",
     r"\[DEFAULT\]/periodic_interval in .*h\.conf: Should be greater than or equal to 1"),
    ("[database]\nmax_overflow = -1\n", r"\[database\]/max_overflow in .*h\.conf"),
    ("[DEFAULT\nhost = x\n", r"configuration: .*h\.conf"),
])
def test_a_bad_file_names_the_option_and_the_file(tmp_path: Path, text: str,
                                                  message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load([write(tmp_path / "h.conf", text)], environ={}, search=())


def test_a_bad_variable_is_named_and_a_secret_is_not_shown() -> None:
    with pytest.raises(ConfigError, match=r"\[DEFAULT\]/periodic_interval from "
                                          r"HOTPLATE_PERIODIC_INTERVAL \('x'\)"):
        load(environ={"HOTPLATE_PERIODIC_INTERVAL": "x"}, search=())
    with pytest.raises(ConfigError, match=r"from --num_engine_workers \(-1\)"):
        load(environ={}, search=(), overrides={("DEFAULT", "num_engine_workers"): -1})
    with pytest.raises(ConfigError, match=r"\[heat_api\]/bind_port from --bind_port"):
        load(environ={}, search=(), overrides={("heat_api", "bind_port"): 70000})
    with pytest.raises(ConfigError) as refused:
        load(environ={"HOTPLATE_TRANSPORT_URL": "rabbit://u:pw@h/"}, search=(),
             overrides={("DEFAULT", "num_engine_workers"): "many"})
    assert "pw" not in str(refused.value)


def test_missing_files_and_directories_are_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError,
                       match=re.escape(f"configuration file {tmp_path}/no.conf not found")):
        load([str(tmp_path / "no.conf")], environ={})
    with pytest.raises(ConfigError, match=r"configuration directory .* not found"):
        load([], [str(tmp_path / "nowhere")], environ={})


def test_num_engine_workers_zero_means_heats_default(tmp_path: Path) -> None:
    path = write(tmp_path / "h.conf", "[DEFAULT]\nnum_engine_workers = 0\n")
    assert load([path], environ={}, search=()).num_engine_workers >= 4


@pytest.mark.parametrize(("url", "expected"), [
    ("postgresql://heat:pw@db/heat", "postgresql+psycopg://heat:pw@db/heat"),
    ("mysql://heat:pw@db/heat?charset=utf8", "mysql+pymysql://heat:pw@db/heat?charset=utf8"),
    ("mysql+pymysql://heat:pw@db/heat", "mysql+pymysql://heat:pw@db/heat"),
    ("postgresql+psycopg2://h@db/h", "postgresql+psycopg2://h@db/h"),
    ("sqlite:///var/h.sqlite", "sqlite:///var/h.sqlite"),
    ("", None),
])
def test_heats_url_forms_get_hotplates_drivers(url: str, expected: str | None) -> None:
    assert heat_database_url(url) == expected


def test_the_command_line_reads_the_file_under_its_flags(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hotplate.cli.common import settings
    from hotplate.cli.main import build_parser

    for name in [n for n in os.environ if n.startswith("HOTPLATE_")]:
        monkeypatch.delenv(name)
    first = write(tmp_path / "a.conf", "[DEFAULT]\nexecutor_thread_pool_size = 5\n"
                  "num_engine_workers = 2\nhost = from-file\n")
    second = write(tmp_path / "b.conf", "[DEFAULT]\nnum_engine_workers = 6\n")
    args = build_parser().parse_args(["--config-file", first, "engine", "--config-file",
                                      second, "--threads", "3"])
    conf = settings(args)
    assert isinstance(conf, Settings)
    assert (conf.executor_thread_pool_size, conf.num_engine_workers, conf.host) == \
        (3, 6, "from-file")
    args = build_parser().parse_args(["engine", "--config-file", first, "--workers", "1",
                                      "--engine-host", "flagged"])
    assert (settings(args).num_engine_workers, settings(args).host) == (1, "flagged")


def test_a_stack_domain_without_its_admin_is_refused_as_heat_refuses_it(
        tmp_path: Path) -> None:
    conf = tmp_path / "heat.conf"
    conf.write_text("[DEFAULT]\nstack_user_domain_name = heat\n")
    with pytest.raises(ConfigError) as refused:
        load([str(conf)], environ={}, search=())
    assert str(refused.value) == (
        'heat.conf misconfigured, cannot specify "stack_user_domain_id" or '
        '"stack_user_domain_name" without "stack_domain_admin" and '
        '"stack_domain_admin_password"')
    conf.write_text("[DEFAULT]\nstack_user_domain_name = heat\nstack_domain_admin = a\n"
                    "stack_domain_admin_password = p\ntrusts_delegated_roles = member,x\n")
    cloud = load([str(conf)], environ={}, search=()).cloud
    assert cloud.stack_domain.configured and cloud.stack_domain.user_role == "heat_stack_user"
    assert cloud.deferred_auth.trusts and cloud.deferred_auth.delegated_roles == ("member", "x")


def test_ids_found_by_name_are_kept_only_with_heats_cache_on(tmp_path: Path) -> None:
    conf = tmp_path / "heat.conf"
    assert load(environ={}, search=[str(tmp_path)]).cloud.finder_cache_ttl is None
    conf.write_text("[cache]\nenabled = true\n")
    assert load([str(conf)], environ={}, search=()).cloud.finder_cache_ttl == 3600
    conf.write_text("[cache]\nenabled = true\n[resource_finder_cache]\nexpiration_time = 60\n")
    assert load([str(conf)], environ={}, search=()).cloud.finder_cache_ttl == 60
    conf.write_text("[cache]\nenabled = true\n[resource_finder_cache]\ncaching = false\n")
    assert load([str(conf)], environ={}, search=()).cloud.finder_cache_ttl is None
    conf.write_text("[resource_finder_cache]\ncaching = true\n")
    assert load([str(conf)], environ={}, search=()).cloud.finder_cache_ttl is None
