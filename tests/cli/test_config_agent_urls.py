"""The URLs handed to in-instance agents: Heat's options, else the listening addresses."""

from __future__ import annotations

from pathlib import Path

import pytest

from hotplate.config import load
from hotplate.config.loading import ConfigError


def _load(tmp_path: Path, text: str, **overrides: object) -> object:
    path = tmp_path / "hotplate.conf"
    path.write_text(text)
    return load([str(path)], environ={}, search=(),
                overrides={tuple(k.split("__")): v for k, v in overrides.items()})


def test_unset_urls_follow_the_cfn_and_api_addresses(tmp_path: Path) -> None:
    conf = _load(tmp_path, "[heat_api]\nbind_host = 0.0.0.0\nbind_port = 9004\n"
                           "[heat_api_cfn]\nbind_host = 192.0.2.7\nbind_port = 9000\n")
    engine = conf.engine  # type: ignore[attr-defined]
    assert engine.heat_metadata_server_url == "http://192.0.2.7:9000/v1/"
    assert engine.heat_waitcondition_server_url == "http://192.0.2.7:9000/v1/waitcondition"
    assert engine.heat_url == "http://127.0.0.1:9004/v1/%(tenant_id)s"
    assert conf.cfn.bind_port == 9000  # type: ignore[attr-defined]


def test_the_cfn_port_flag_and_heats_options_win(tmp_path: Path) -> None:
    conf = _load(tmp_path, "[DEFAULT]\nheat_metadata_server_url = http://agents.example:8000\n"
                           "[clients_heat]\nurl = http://api.example/v1/%(tenant_id)s\n",
                 heat_api_cfn__bind_port=8123)
    engine = conf.engine  # type: ignore[attr-defined]
    assert engine.heat_metadata_server_url == "http://agents.example:8000/v1/"
    assert engine.heat_waitcondition_server_url == (
        "http://agents.example:8000/v1/waitcondition")
    assert engine.heat_url == "http://api.example/v1/%(tenant_id)s"
    assert conf.cfn.bind_port == 8123  # type: ignore[attr-defined]


def test_a_transport_heat_does_not_know_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="default_software_config_transport"):
        _load(tmp_path, "[DEFAULT]\ndefault_software_config_transport = CARRIER_PIGEON\n")
