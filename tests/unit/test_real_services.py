"""How the real-service suites choose their servers (tests/real_services.py)."""

from __future__ import annotations

import socket

from tests.real_services import RealService, answers, choose


def _listening() -> tuple[socket.socket, int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock, int(sock.getsockname()[1])


def test_a_set_variable_wins_and_an_empty_one_turns_the_probe_off() -> None:
    sock, port = _listening()
    with sock:
        service = RealService("HOTPLATE_TEST_X_URL", port, "x://local")
        assert choose(service, {"HOTPLATE_TEST_X_URL": "x://given"}) == (
            "x://given", "HOTPLATE_TEST_X_URL is set")
        assert choose(service, {"HOTPLATE_TEST_X_URL": ""}) == (
            None, f"HOTPLATE_TEST_X_URL is set empty, which turns the probe of "
                  f"127.0.0.1:{port} off")


def test_an_unset_variable_uses_the_local_port_when_it_answers() -> None:
    answers.cache_clear()
    sock, port = _listening()
    with sock:
        url, how = choose(RealService("HOTPLATE_TEST_X_URL", port, "x://local"), {})
    assert url == "x://local"
    assert how == (f"HOTPLATE_TEST_X_URL is not set; 127.0.0.1:{port} answers: "
                   "using x://local")


def test_an_unset_variable_and_a_silent_port_skip_naming_both() -> None:
    answers.cache_clear()
    sock, port = _listening()
    sock.close()  # nothing listens there now
    assert choose(RealService("HOTPLATE_TEST_Y_URL", port, "y://local"), {}) == (
        None, f"HOTPLATE_TEST_Y_URL is not set and nothing answers on 127.0.0.1:{port}")
