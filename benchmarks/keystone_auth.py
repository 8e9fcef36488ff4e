"""What Keystone mode costs: a wide stack through the API with Keystone tokens vs hotplate's.

Starts a real ``hotplate serve`` per mode on a free loopback port: ``--auth token``
(its first admin token) and ``--auth keystone`` (``[keystone_authtoken]`` for the
cloud's ``heat`` service user; a token of the clouds.yaml's user). In each, creates
a stack of N ``OS::Heat::None`` over HTTP, polls it (every 0.2 s) until
CREATE_COMPLETE, times 200 ``GET /stacks`` one after another, then deletes it and
polls until it is gone. Prints a table and optionally writes JSON::

    OS_CLIENT_CONFIG_FILE=/tmp/hotplate-cloud/etc/clouds.yaml \\
        python benchmarks/keystone_auth.py [--n 1000] [--repeat 3] [--json PATH]

Keystone mode needs a cloud (``--cloud``, default hotplate-demo; the service
user's password from ``--service-password``, default ``secret``, the project's
cloud's); without one, only token mode runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hotplate.api.background import free_port


def template(n: int) -> dict[str, Any]:
    return {"heat_template_version": "2021-04-16",
            "resources": {f"r{i}": {"type": "OS::Heat::None"} for i in range(n)}}


@contextmanager
def serve(tmp: Path, *extra: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hotplate.cli.main", "serve", "--port", str(port),
         "--cfn-port", "0", "--data-dir", str(tmp / "var"), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/", timeout=2)
                break
            except httpx.TransportError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"hotplate serve {' '.join(extra)} did not start")
                time.sleep(0.1)
        yield base, proc
    finally:
        proc.terminate()
        proc.wait(30)


def token_mode(tmp: Path) -> Iterator[tuple[str, str, str]]:
    with serve(tmp, "--auth", "token") as (base, proc):
        assert proc.stdout is not None
        token = ""
        while not token:
            line = proc.stdout.readline()
            if "--os-token" in line:
                token = line.split("--os-token", 1)[1].split()[0]
        yield base, token, "admin"


def keystone_mode(tmp: Path, cloud: str, password: str) -> Iterator[tuple[str, str, str]]:
    import openstack.config

    region = openstack.config.OpenStackConfig().get_one(cloud=cloud)
    session = region.get_session()
    token, project = session.get_token(), session.get_project_id()
    auth_url = region.config["auth"]["auth_url"]
    conf = tmp / "hotplate.conf"
    conf.write_text(
        f"[keystone_authtoken]\nwww_authenticate_uri = {auth_url}\nauth_url = {auth_url}\n"
        f"auth_type = password\nusername = heat\npassword = {password}\n"
        "project_name = service\nuser_domain_name = Default\nproject_domain_name = Default\n")
    with serve(tmp, "--auth", "keystone", "--config-file", str(conf)) as (base, _):
        yield base, token, project


def wait(http: httpx.Client, path: str, done: set[str]) -> None:
    while True:
        resp = http.get(path)
        if resp.status_code == 404 or resp.json()["stack"]["stack_status"] in done:
            if resp.status_code != 404 and not resp.json()["stack"]["stack_status"].endswith(
                    "COMPLETE"):
                raise SystemExit(resp.json()["stack"]["stack_status_reason"])
            return
        time.sleep(0.2)


def run_once(base: str, token: str, project: str, n: int) -> dict[str, float]:
    headers = {"X-Auth-Token": token}
    with httpx.Client(base_url=f"{base}/v1/{project}", headers=headers, timeout=120) as http:
        start = time.monotonic()
        created = http.post("/stacks", json={"stack_name": "wide", "template": template(n)})
        created.raise_for_status()
        path = f"/stacks/wide/{created.json()['stack']['id']}"
        wait(http, path, {"CREATE_COMPLETE", "CREATE_FAILED"})
        create_s = time.monotonic() - start
        times = []
        for _ in range(200):
            t0 = time.monotonic()
            http.get("/stacks").raise_for_status()
            times.append(time.monotonic() - t0)
        start = time.monotonic()
        http.delete(path).raise_for_status()
        wait(http, path, {"DELETE_COMPLETE", "DELETE_FAILED"})
        delete_s = time.monotonic() - start
    return {"create_s": create_s, "delete_s": delete_s,
            "list_p50_ms": statistics.median(times) * 1000,
            "list_p95_ms": sorted(times)[int(len(times) * 0.95)] * 1000}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cloud", default=os.environ.get("OS_CLOUD") or "hotplate-demo")
    parser.add_argument("--service-password", default="secret")
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args(argv)
    results: dict[str, dict[str, float]] = {}
    modes: list[tuple[str, Any]] = [("token", lambda tmp: token_mode(tmp))]
    if os.environ.get("OS_CLIENT_CONFIG_FILE") or Path("~/.config/openstack").expanduser(
            ).exists():
        modes.append(("keystone", lambda tmp: keystone_mode(tmp, args.cloud,
                                                            args.service_password)))
    for mode, start in modes:
        with tempfile.TemporaryDirectory() as tmp, \
                contextmanager(start)(Path(tmp)) as (base, token, project):
            runs = [run_once(base, token, project, args.n) for _ in range(args.repeat)]
        results[mode] = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    print(f"wide-{args.n} through the API, median of {args.repeat}")
    print(f"{'mode':<10}{'create s':>10}{'res/s':>9}{'delete s':>10}{'GET /stacks p50 ms':>20}"
          f"{'p95 ms':>9}")
    for mode, r in results.items():
        print(f"{mode:<10}{r['create_s']:>10.2f}{args.n / r['create_s']:>9.0f}"
              f"{r['delete_s']:>10.2f}{r['list_p50_ms']:>20.2f}{r['list_p95_ms']:>9.2f}")
    if "keystone" in results:
        ratio = results["keystone"]["create_s"] / results["token"]["create_s"]
        print(f"keystone / token, create: {ratio:.2f}")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps({"n": args.n, "repeat": args.repeat,
                                                    "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
