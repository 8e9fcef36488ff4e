"""Differential test of template functions: Heat 27.0.1's own code against hotplate's.

Runs every case of ``tests/oracle/cases/`` (each function, each of its
errors, each template version) through Heat's template code in a virtualenv
of its own, and through hotplate in this process; then prints the cases
whose outcomes differ (the phase that fails, what it says, or the values)
and ``N cases, M match, K differ``. Exits 1 when any case differs.

The virtualenv is built on first use (``pip install openstack-heat==27.0.1``)
under ``$HEAT_ORACLE_VENV``, by default ``$TMPDIR/heat-oracle-venv``, and
reused afterwards. ``make heat-oracle`` runs this; it is not part of
``make test``.

Usage: heat_oracle.py [--only SUBSTRING] [--all] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.oracle.cases import load_cases  # noqa: E402
from tests.oracle.hotplate_side import run_case  # noqa: E402

HEAT_REQUIREMENT = "openstack-heat==27.0.1"
HEAT_SIDE = ROOT / "tests" / "oracle" / "heat_side.py"


def venv_dir() -> Path:
    default = Path(os.environ.get("TMPDIR") or tempfile.gettempdir()) / "heat-oracle-venv"
    return Path(os.environ.get("HEAT_ORACLE_VENV", str(default)))


def heat_python() -> Path:
    """The Heat virtualenv's interpreter, building the virtualenv if it has no Heat."""
    venv = venv_dir()
    python = venv / "bin" / "python"
    check = [str(python), "-c", "import heat.engine.template"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return python
    print(f"building {venv} with {HEAT_REQUIREMENT} (once)...", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    subprocess.run([*pip, HEAT_REQUIREMENT], check=True)
    return python


def heat_outcomes(cases: list[dict[str, Any]]) -> dict[str, Any]:
    done = subprocess.run(
        [str(heat_python()), str(HEAT_SIDE)], input=json.dumps(cases),
        capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        sys.exit(f"Heat's side failed:\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _describe(outcome: dict[str, Any]) -> str:
    if outcome["phase"] in ("parse", "validate"):
        return f"{outcome['phase']}: {outcome['error']}"
    values = json.dumps(outcome["values"], sort_keys=True)
    return f"{outcome['phase']}: {values}"


def _same(heat: dict[str, Any], ours: dict[str, Any], compare: str = "all") -> bool:
    if compare == "phase":  # the words can never match: where it fails must
        return (heat["phase"], _failed(heat["values"])) == (
            ours["phase"], _failed(ours["values"]))
    return (heat["phase"], heat["error"], heat["values"]) == (
        ours["phase"], ours["error"], ours["values"])


def _failed(values: dict[str, Any]) -> dict[str, Any]:
    """The values with every error's text left out (which ones failed stays)."""
    return {key: "error" if isinstance(value, dict) and set(value) == {"error"} else value
            for key, value in values.items()}


def _print_row(case_id: str, heat: dict[str, Any], ours: dict[str, Any]) -> None:
    print(case_id)
    for label, outcome in (("heat", heat), ("hotplate", ours)):
        text = textwrap.shorten(_describe(outcome), width=400, placeholder=" ...")
        print(textwrap.fill(text, width=110, initial_indent=f"  {label:>8} | ",
                            subsequent_indent="           | "))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--only", help="run the cases whose id contains this text")
    parser.add_argument("--all", action="store_true", help="print matching cases too")
    parser.add_argument("--json", type=Path, help="write every outcome to this file")
    args = parser.parse_args()
    cases = load_cases()
    if args.only:
        cases = [case for case in cases if args.only in case["id"]]
    heat = heat_outcomes(cases)
    differ = 0
    report: dict[str, Any] = {}
    for case in cases:
        ours = run_case(case)
        theirs = heat[case["id"]]
        same = _same(theirs, ours, case["compare"])
        differ += not same
        report[case["id"]] = {"heat": theirs, "hotplate": ours, "same": same}
        if not same or args.all:
            marker = "" if same else "  DIFFERS"
            if case["compare"] == "phase":
                marker += "  (phase only)"
            _print_row(case["id"] + marker, theirs, ours)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, sort_keys=True))
    print(f"{len(cases)} cases, {len(cases) - differ} match, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
