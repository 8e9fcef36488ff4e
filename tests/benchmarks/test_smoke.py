"""The benchmarks run: each script, tiny (one shape, ten resources), exits 0 and writes
the columns its tables promise."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
PY_SPY = shutil.which("py-spy") or (Path(sys.executable).parent / "py-spy").exists()


def run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), *args],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, \
        f"{script} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def test_converge_writes_its_columns(tmp_path: Path) -> None:
    out = tmp_path / "converge.json"
    run("converge.py", "--sizes", "10", "--shapes", "fanin", "--json", str(out))
    rows = json.loads(out.read_text())
    assert [(r["phase"], r["status"]) for r in rows] == [
        ("create", "CREATE_COMPLETE"), ("update", "UPDATE_COMPLETE"),
        ("delete", "DELETE_COMPLETE")]
    for row in rows:
        assert row["n"] == 10 and row["resources_per_second"] > 0
        assert row["cpu_ms_per_resource"] > 0 and row["commits_per_resource"] > 0


@pytest.mark.skipif(not PY_SPY, reason="py-spy is not installed (pip install -e '.[test]')")
def test_converge_profile_writes_a_flame_graph(tmp_path: Path) -> None:
    svg, out = tmp_path / "profile.svg", tmp_path / "converge.json"
    done = run("converge.py", "--sizes", "10", "--shapes", "wide", "--json", str(out),
               "--profile", str(svg))
    assert f"flame graph (py-spy, 200 samples/s): {svg}" in done.stdout
    assert svg.read_text().lstrip().startswith("<?xml") and "<svg" in svg.read_text()
    assert len(json.loads(out.read_text())) == 3


def test_converge_profile_without_py_spy_says_so(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks import converge

    monkeypatch.setattr(converge, "find_py_spy", lambda: None)
    assert converge.main(["--sizes", "10", "--profile", "out.svg"]) == 2
    assert "--profile needs py-spy: pip install py-spy" in capsys.readouterr().err


def test_api_overhead_writes_its_columns(tmp_path: Path) -> None:
    out = tmp_path / "api.json"
    done = run("api_overhead.py", "--sizes", "10", "--shapes", "chain", "--repeat", "3",
               "--json", str(out))
    assert "chain-10: server exited 0" in done.stdout
    found = json.loads(out.read_text())
    assert [(r["phase"], r["status"]) for r in found["phases"]] == [
        ("create", "CREATE_COMPLETE"), ("update", "UPDATE_COMPLETE"),
        ("delete", "DELETE_COMPLETE")]
    for row in found["phases"]:
        assert row["seconds"] > 0 and row["resources_per_second"] > 0
        assert row["request_answer_ms"] > 0 and row["polls"] >= 1
        assert row["server_cpu_ms_per_resource"] >= 0
    assert [r["request"] for r in found["requests"]] == [
        "stack show", "resource list", "event list (limit 100)", "versions"]
    for row in found["requests"]:
        assert row["repeat"] == 3 and 0 < row["median_ms"] <= row["p95_ms"] <= row["max_ms"]
        assert row["server_cpu_ms"] >= 0


@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(),
                    reason="no browser: /usr/bin/chromium is missing (apt-get install chromium)")
def test_ui_graph_writes_its_columns(tmp_path: Path) -> None:
    pytest.importorskip("hotplate.ui.session",
                        reason="this build's API does not serve the web view")
    out = tmp_path / "ui_graph.json"
    run("ui_graph.py", "--sizes", "10", "--shapes", "chain", "--repeat", "1", "--json", str(out))
    found = json.loads(out.read_text())
    (draw,) = found["draws"]
    assert draw["nodes"] == 10 and draw["graph_drawn_ms"] > 0
    (summary,) = found["summary"]
    assert summary["update_page_s"] > 0 and summary["update_api_s"] > 0
    assert summary["layouts_during_update"] == 0  # states only: nothing to lay out
    assert summary["shown_lag_max_ms"] >= summary["shown_lag_median_ms"]


@pytest.mark.parametrize("action", ["update", "create"])
def test_ui_watchers_counts_every_event_each_page_got(tmp_path: Path, action: str) -> None:
    out = tmp_path / "watchers.json"
    run("ui_watchers.py", "--n", "6", "--wait-secs", "0.2", "--pages", "2", "--workers", "8",
        "--rounds", "1", "--action", action, "--json", str(out))
    found = json.loads(out.read_text())
    alone, watched = found["runs"]
    assert found["action"] == action
    assert (alone["pages"], watched["pages"]) == (0, 2)
    assert {alone["status"], watched["status"]} == {f"{action.upper()}_COMPLETE"}
    assert watched["events_per_page_min"] == watched["events"] > 6
    assert watched["reloads"] >= 2  # each page reloaded its graph as the action ended
    assert watched["serving_cpu_s"] <= watched["server_cpu_s"]
    assert "percent_of_one_core" in found and "serving_percent_of_one_core" in found
