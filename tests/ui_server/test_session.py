"""Logging in to the web view of a real ``hotplate serve`` (hotplate's tokens): the
cookie, its end, csrf, and Heat's roles through ``/v1`` with the cookie."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from hotplate.ui.session import COOKIE, Session
from tests.ui_server.conftest import Served, codec, wait_templates

pytestmark = pytest.mark.timeout(120)


def log_in(served: Served, token: str) -> tuple[httpx.Client, dict[str, Any], httpx.Response]:
    client = served.client()
    answer = client.post("/ui/session", json={"token": token})
    assert answer.status_code == 200, answer.text
    return client, answer.json(), answer


def test_a_token_logs_in_and_the_cookie_is_sealed_httponly_strict(token_server: Served) -> None:
    token = token_server.token("alpha", "member")
    client, body, answer = log_in(token_server, token)
    assert body["user"] == "alpha" and body["project_id"] == "alpha"
    assert body["auth"] == "token" and body["can_apply"] is True
    assert set(body["roles"]) == {"member", "reader"}
    assert body["csrf_token"] and body["expires_at"]
    cookie = answer.headers["set-cookie"]
    attributes = [part.strip() for part in cookie.split(";")]
    assert attributes[0].startswith(f"{COOKIE}=")
    assert {"HttpOnly", "SameSite=Strict", "Path=/"} <= set(attributes)
    assert "Secure" not in attributes  # plain http here
    max_age = int(next(a for a in attributes if a.startswith("Max-Age="))[8:])
    assert 43000 < max_age <= 43200  # no expiry on the token: [ui] session_lifetime
    value = attributes[0].split("=", 1)[1]
    assert token not in value and "alpha" not in value
    opened = codec().open(value)
    assert opened is not None and opened.token == token and opened.csrf == body["csrf_token"]

    again = client.get("/ui/session")
    assert again.status_code == 200 and again.json() == body


def test_the_cookie_ends_when_the_token_does(token_server: Served) -> None:
    expiry = datetime.now(UTC) + timedelta(seconds=90)
    token = token_server.token("alpha", "member", expires_at=expiry)
    client, body, answer = log_in(token_server, token)
    max_age = int(answer.headers["set-cookie"].split("Max-Age=")[1].split(";")[0])
    assert 80 <= max_age <= 90
    assert datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00")) <= expiry

    token_server.revoke(token)
    assert client.get("/ui/session").status_code == 401
    assert client.get("/v1/alpha/stacks").status_code == 401


def test_refused_logins(token_server: Served) -> None:
    client = token_server.client()
    refused = client.post("/ui/session", json={"token": "not-a-token"})
    assert refused.status_code == 401 and "refused" in refused.json()["error"]
    assert "set-cookie" not in refused.headers
    assert client.post("/ui/session", content=b"token=x",
                       headers={"Content-Type": "application/x-www-form-urlencoded"}
                       ).status_code == 415
    assert client.post("/ui/session", content=b"{not json",
                       headers={"Content-Type": "application/json"}).status_code == 400
    assert client.post("/ui/session", json=["a"]).status_code == 400
    assert client.post("/ui/session", json={"password": "x"}).status_code == 400
    token = token_server.token("alpha", "member")
    crossed = client.post("/ui/session", json={"token": token},
                          headers={"Origin": "https://evil.example"})
    assert crossed.status_code == 403 and "set-cookie" not in crossed.headers
    same = client.post("/ui/session", json={"token": token},
                       headers={"Origin": token_server.base})
    assert same.status_code == 200
    assert token_server.client().get("/ui/session").status_code == 401  # no cookie


def test_without_a_session_the_refusal_names_the_token_login(token_server: Served) -> None:
    """The login page reads the server's way in from this 401, before anyone signs in."""
    answer = token_server.client().get("/ui/session")
    assert answer.status_code == 401 and "set-cookie" not in answer.headers
    assert answer.json()["auth"] == "token"
    token = token_server.token("alpha", "member")
    client, _, _ = log_in(token_server, token)
    token_server.revoke(token)
    ended = client.get("/ui/session")  # a session whose token ended: the same answer
    assert ended.status_code == 401 and ended.json()["auth"] == "token"


def test_a_tampered_or_foreign_or_expired_cookie_is_401(token_server: Served) -> None:
    token = token_server.token("alpha", "member")
    client, _, _ = log_in(token_server, token)
    value = client.cookies[COOKIE]
    flipped = value[:40] + ("A" if value[40] != "A" else "B") + value[41:]
    expired = codec().seal(Session(token=token, expires_at=time.time() - 1, csrf="c"))
    from hotplate.ui.session import SessionCodec, derive_key

    foreign = SessionCodec(derive_key("another key")).seal(
        Session(token=token, expires_at=time.time() + 600, csrf="c"))
    for bad in (flipped, expired, foreign, "garbage"):
        other = token_server.client()
        other.cookies.set(COOKIE, bad)
        assert other.get("/ui/session").status_code == 401, bad
        assert other.get("/v1/alpha/stacks").status_code == 401, bad
    good = token_server.client()
    good.cookies.set(COOKIE, codec().seal(Session(token=token, expires_at=time.time() + 600,
                                                  csrf="c")))
    assert good.get("/v1/alpha/stacks").status_code == 200  # the same key, another seal


def test_v1_by_cookie_needs_the_csrf_token_to_change_anything(token_server: Served) -> None:
    token = token_server.token("beta", "member")
    client, body, _ = log_in(token_server, token)
    listed = client.get("/v1/beta/stacks")
    assert listed.status_code == 200 and listed.json() == {"stacks": []}
    create = {"stack_name": "by-cookie", "template": wait_templates(1, 0)}
    refused = client.post("/v1/beta/stacks", json=create)
    assert refused.status_code == 403
    assert refused.json()["error"]["message"] == "CSRF token missing or wrong"
    wrong = client.post("/v1/beta/stacks", json=create, headers={"X-CSRF-Token": "guess"})
    assert wrong.status_code == 403
    made = client.post("/v1/beta/stacks", json=create,
                       headers={"X-CSRF-Token": body["csrf_token"]})
    assert made.status_code == 201, made.text
    assert client.get("/v1/other/stacks").status_code == 403  # not the token's project
    # A token in the header wins: no cookie, no csrf check.
    header = httpx.post(f"{token_server.base}/v1/beta/stacks", timeout=30,
                        headers={"X-Auth-Token": token},
                        json={"stack_name": "by-header", "template": wait_templates(1, 0)})
    assert header.status_code == 201, header.text


def test_a_reader_reads_but_may_not_apply(token_server: Served) -> None:
    member = token_server.token("gamma", "member")
    made = httpx.post(f"{token_server.base}/v1/gamma/stacks", timeout=30,
                      headers={"X-Auth-Token": member},
                      json={"stack_name": "read-me", "template": wait_templates(1, 0)})
    assert made.status_code == 201, made.text
    stack_id = made.json()["stack"]["id"]
    client, body, _ = log_in(token_server, token_server.token("gamma", "reader"))
    assert body["roles"] == ["reader"] and body["can_apply"] is False
    csrf = {"X-CSRF-Token": body["csrf_token"]}
    url = f"/v1/gamma/stacks/read-me/{stack_id}"
    assert client.get(url).status_code == 200
    assert client.get(f"{url}/events").status_code == 200
    update = client.put(url, json={"template": wait_templates(2, 0)}, headers=csrf)
    assert update.status_code == 403
    assert "stacks:update" in update.json()["error"]["message"]
    assert client.delete(url, headers=csrf).status_code == 403
    assert client.get(url).status_code == 200


def test_logout_needs_the_csrf_token_and_clears_the_cookie(token_server: Served) -> None:
    client, body, _ = log_in(token_server, token_server.token("alpha", "member"))
    assert client.delete("/ui/session").status_code == 403
    assert client.get("/ui/session").status_code == 200
    out = client.delete("/ui/session", headers={"X-CSRF-Token": body["csrf_token"]})
    assert out.status_code == 204
    cleared = out.headers["set-cookie"]
    assert cleared.startswith(f"{COOKIE}=;") and "Max-Age=0" in cleared
    assert client.get("/ui/session").status_code == 401


def test_the_stream_is_the_sessions_alone(token_server: Served) -> None:
    member = token_server.token("delta", "member")
    made = httpx.post(f"{token_server.base}/v1/delta/stacks", timeout=30,
                      headers={"X-Auth-Token": member},
                      json={"stack_name": "watched", "template": wait_templates(1, 0)})
    assert made.status_code == 201, made.text
    stack_id = made.json()["stack"]["id"]
    url = f"/ui/stream/delta/stacks/{stack_id}"
    bare = token_server.client()
    assert bare.get(url).status_code == 401
    assert bare.get(url, headers={"X-Auth-Token": member}).status_code == 401  # cookie only
    stranger, _, _ = log_in(token_server, token_server.token("epsilon", "member"))
    assert stranger.get(url).status_code == 403
    assert stranger.get(f"/ui/stream/epsilon/stacks/{stack_id}").status_code == 404
    reader, _, _ = log_in(token_server, token_server.token("delta", "reader"))
    with reader.stream("GET", url) as answer:
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/event-stream")
        lines = answer.iter_lines()
        assert next(lines).startswith("retry:")
        assert next(lines) == ""
        assert next(lines) == "event: stack"


def test_the_cookie_is_secure_over_https(token_server: Served) -> None:
    token = token_server.token("alpha", "member")
    # uvicorn takes the scheme from a proxy on loopback (X-Forwarded-Proto).
    answer = token_server.client().post("/ui/session", json={"token": token},
                                        headers={"X-Forwarded-Proto": "https"})
    assert answer.status_code == 200
    assert "Secure" in [part.strip() for part in answer.headers["set-cookie"].split(";")]
