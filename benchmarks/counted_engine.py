"""``hotplate engine`` whose engine processes tell how many SQL statements they sent.

Runs the ordinary command line (``python benchmarks/counted_engine.py engine ...``
takes the arguments ``hotplate engine`` takes). An engine process sent SIGUSR1
writes the statements it has sent so far (every store's counter, the hot path's
and SQLAlchemy's alike: see hotplate/db/engine.py) to ``<dir>/<pid>``, where
``<dir>`` is ``$HOTPLATE_BENCH_STATEMENTS_DIR``. ``benchmarks/scale_out.py`` uses
it to print SQL statements per resource for engines on PostgreSQL.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hotplate.db import engine as db_engine

DIR_VARIABLE = "HOTPLATE_BENCH_STATEMENTS_DIR"

_counters: list[db_engine.StatementStats] = []
_counters_lock = threading.Lock()
_plain_init = db_engine.StatementStats.__init__


def _counted_init(self: db_engine.StatementStats) -> None:
    _plain_init(self)
    with _counters_lock:
        _counters.append(self)


def _write_count(signum: int, frame: Any) -> None:
    with _counters_lock:
        count = sum(counter.statements for counter in _counters)
    out = Path(os.environ[DIR_VARIABLE]) / str(os.getpid())
    partial = out.with_suffix(".partial")
    partial.write_text(str(count))
    partial.replace(out)


def main() -> int:
    db_engine.StatementStats.__init__ = _counted_init  # type: ignore[method-assign]
    # Set before the launcher forks, so every engine process inherits it.
    signal.signal(signal.SIGUSR1, _write_count)
    from hotplate.cli.main import main as hotplate_main

    return int(hotplate_main(sys.argv[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main())
