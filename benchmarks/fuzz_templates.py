"""Fuzz the template layer for a time budget: only validation errors may come out.

Each input is a stack-create request (template, files, environments) taken
from the template corpus (``tests/unit/template/corpus``) or drawn from its
grammar of valid templates, then damaged (``corpus/fuzzing.py``: wrong
types, nonsense function arguments, deep nesting, huge numbers, unicode,
YAML anchors, tags and duplicate keys, cycles). The request is parsed,
its environments merged, its parameters, conditions, resources and
outputs resolved. Anything but ``StackValidationFailed`` escaping is a
crash. Prints a table and optionally writes JSON:

    python benchmarks/fuzz_templates.py [--seconds 300] [--engine hypothesis|random]
        [--seed 0] [--json PATH]

``hypothesis`` draws every choice through hypothesis (one long run with a
huge max_examples); ``random`` draws them from a seeded ``random.Random``,
which tries more inputs per second. The exit status is 1 if anything crashed.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import random
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st

from tests.unit.template.corpus.fuzzing import (
    Chooser,
    DrawChooser,
    RandomChooser,
    Seed,
    damaged,
    exercise,
    garbage,
    seeds,
)
from tests.unit.template.corpus.grammar import FILES, templates

SEEDS = seeds()
GENERATED = templates().map(lambda m: Seed("generated", m.template, dict(FILES),
                                           [{"parameters": m.user_params}]))


@dataclass
class Stats:
    tried: int = 0
    accepted: int = 0
    """Inputs a stack create would accept (damage does not always break a template)."""
    errors: collections.Counter[str] = field(default_factory=collections.Counter)
    crashes: list[dict[str, Any]] = field(default_factory=list)

    def record(self, request: Seed, attribute: Any) -> None:
        self.tried += 1
        try:
            found = exercise(request, attribute)
        except Exception as exc:  # a crash: what this run looks for
            self.crashes.append({
                "type": type(exc).__name__, "message": str(exc)[:500],
                "where": traceback.format_exc(limit=-3)[-2000:],
                "seed": request.name, "template": repr(request.template)[:2000],
                "environments": repr(request.environments)[:1000],
            })
            return
        if not found:
            self.accepted += 1
        self.errors.update(type(e).__name__ for e in found)


def one_input(chooser: Chooser, seed: Seed) -> tuple[Seed, Any]:
    return damaged(seed, chooser), garbage(chooser, 2)


class _TimeUp(Exception):
    """Ends the hypothesis run when the budget is spent."""


def run_hypothesis(stats: Stats, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    finished: list[bool] = []

    @settings(max_examples=10**9, deadline=None, database=None, phases=[Phase.generate],
              verbosity=Verbosity.quiet, suppress_health_check=list(HealthCheck))
    @given(st.one_of(st.sampled_from(SEEDS), GENERATED), st.data())
    def fuzz(seed: Seed, data: Any) -> None:
        request = one_input(DrawChooser(data.draw), seed)
        # Draw before deciding to stop: hypothesis replays the last input and
        # insists that it draws the same data.
        if finished:
            raise _TimeUp
        stats.record(*request)
        if time.monotonic() > deadline:
            finished.append(True)
            raise _TimeUp

    with contextlib.suppress(_TimeUp):
        fuzz()


def run_random(stats: Stats, seconds: float, seed: int) -> None:
    chooser = RandomChooser(random.Random(seed))
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        stats.record(*one_input(chooser, chooser.pick(SEEDS)))


def print_table(row: dict[str, Any]) -> None:
    headers = ["engine", "seconds", "inputs_tried", "inputs_per_second", "accepted",
               "distinct_error_types", "crashes"]
    widths = [max(len(h), len(str(row[h]))) for h in headers]
    print("  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True)))
    print("  ".join(str(row[h]).rjust(w) for h, w in zip(headers, widths, strict=True)))
    print()
    print("validation errors by type:")
    for name, count in row["error_types"].items():
        print(f"  {name:<32} {count:>9}")
    for crash in row["crash_samples"]:
        print(f"\nCRASH {crash['type']}: {crash['message']}\n{crash['where']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--engine", choices=("hypothesis", "random"), default="hypothesis")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    stats = Stats()
    start = time.perf_counter()
    if args.engine == "hypothesis":
        run_hypothesis(stats, args.seconds)
    else:
        run_random(stats, args.seconds, args.seed)
    seconds = time.perf_counter() - start
    crash_types = collections.Counter(c["type"] for c in stats.crashes)
    row = {
        "engine": args.engine, "seconds": round(seconds, 1), "inputs_tried": stats.tried,
        "inputs_per_second": round(stats.tried / seconds, 1) if seconds else None,
        "accepted": stats.accepted, "distinct_error_types": len(stats.errors),
        "crashes": len(stats.crashes), "seeds": len(SEEDS),
        "error_types": dict(stats.errors.most_common()),
        "crash_types": dict(crash_types),
        "crash_samples": stats.crashes[:20],
    }
    print_table(row)
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(row, indent=2, ensure_ascii=False))
    return 1 if stats.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
