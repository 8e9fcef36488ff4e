"""Forking N worker processes and keeping N running, as oslo.service's launcher does
for heat-engine.

The parent only supervises: it forks before it has made a thread or a
connection (oslo.messaging and SQLAlchemy are not fork-safe), then waits.
Each child runs ``body`` and announces itself once with one line, sent up a
pipe; the parent prints it on stdout, so lines from several children never
interleave, and knows the child has started.

- A child that dies is replaced after a back-off: 0.5 s, doubled for each
  further death within ``STABLE_SECS`` of its start, to 30 s; a child that
  lived longer resets it, and so does one that fenced itself (exit status
  ``EXIT_FENCED``: its engine's lease ran out, engine/lease.py). A fence
  says the network failed, not the child, and a partition may fence the
  same slot several times: a back-off grown meanwhile would keep the slot
  empty long after the network came back. Exit status ``EXIT_CONFIG``
  before announcing is a configuration error every child would meet again:
  the parent stops the rest and exits with it.
- Children die with their parent: on Linux the kernel sends them SIGTERM
  when it dies, however it dies (``prctl(PR_SET_PDEATHSIG)``); elsewhere a
  thread in the child watches for it. SIGTERM makes a child stop gracefully.
- SIGTERM or SIGINT to the parent: SIGTERM to every child, up to
  ``stop_timeout`` seconds for them to exit, SIGKILL for the rest, exit 0.
  A second signal kills them at once. Children ignore SIGINT, so a ^C in a
  terminal (which reaches the whole process group) stops them the same
  graceful way, through the parent.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from hotplate.engine.lease import EXIT_FENCED

LOG = logging.getLogger(__name__)

EXIT_CONFIG = 2
"""A child's exit status for a configuration it cannot use."""
FIRST_BACKOFF = 0.5
MAX_BACKOFF = 30.0
STABLE_SECS = 10.0
"""A child that lived this long died of something other than its start."""
_PR_SET_PDEATHSIG = 1

Announce = Callable[[str], None]
Body = Callable[[Announce], int]
"""What a child runs: given a way to announce itself, it returns its exit status."""


@dataclass
class _Child:
    slot: int
    pid: int
    started: float
    reader: int
    announced: bool = False
    pending: bytes = b""


@dataclass
class _Slot:
    backoff: float = FIRST_BACKOFF
    due: float | None = 0.0
    """When to fork this slot's next child; None while one runs."""


class ProcessLauncher:
    """Runs ``count`` copies of ``body`` in child processes; see the module docstring.

    ``stop_timeout`` is how long children have to exit after SIGTERM (None:
    for ever); ``out`` is where their announcements are printed.
    """

    def __init__(self, count: int, body: Body, *, stop_timeout: float | None = 70.0,
                 out: TextIO | None = None) -> None:
        if count < 1:
            raise ValueError("at least one process")
        self.count = count
        self.body = body
        self.stop_timeout = stop_timeout
        self.out = out or sys.stdout
        self._children: dict[int, _Child] = {}
        self._slots = [_Slot() for _ in range(count)]
        self._signals: list[int] = []
        self._wake = (-1, -1)

    def run(self) -> int:
        """Fork, supervise until SIGTERM or SIGINT, stop the children; the exit status."""
        if threading.active_count() > 1:
            LOG.warning("forking with %d threads running", threading.active_count())
        self._wake = os.pipe()
        for fd in self._wake:
            os.set_blocking(fd, False)
        previous = {sig: signal.signal(sig, self._on_signal)
                    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGCHLD)}
        old_wakeup = signal.set_wakeup_fd(self._wake[1])
        try:
            status = self._supervise()
            self._stop_children()
            return status
        finally:
            signal.set_wakeup_fd(old_wakeup)
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            for fd in self._wake:
                os.close(fd)

    def _on_signal(self, signum: int, frame: Any) -> None:
        if signum != signal.SIGCHLD:
            self._signals.append(signum)

    # -- supervising -------------------------------------------------------------
    def _supervise(self) -> int:
        while not self._signals:
            fatal = self._reap()
            if fatal is not None:
                return fatal
            now = time.monotonic()
            for slot, state in enumerate(self._slots):
                if state.due is not None and state.due <= now and not self._signals:
                    self._fork(slot)
            dues = [s.due - now for s in self._slots if s.due is not None]
            timeout = max(0.0, min([1.0, *dues]))
            readers = [child.reader for child in self._children.values()]
            ready, _, _ = select.select([self._wake[0], *readers], [], [], timeout)
            with contextlib.suppress(BlockingIOError):
                os.read(self._wake[0], 512)
            for child in list(self._children.values()):
                if child.reader in ready:
                    self._read_announcement(child)
        return 0

    def _fork(self, slot: int) -> None:
        reader, writer = os.pipe()
        for stream in (sys.stdout, sys.stderr, self.out):
            stream.flush()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:
            os.close(reader)
            self._run_child(writer, parent)
        os.close(writer)
        self._children[pid] = _Child(slot, pid, time.monotonic(), reader)
        self._slots[slot].due = None

    def _read_announcement(self, child: _Child) -> None:
        try:
            data = os.read(child.reader, 4096)
        except OSError:
            data = b""
        if not data:
            return
        child.pending += data
        while b"\n" in child.pending:
            line, _, child.pending = child.pending.partition(b"\n")
            child.announced = True
            print(line.decode(errors="replace"), file=self.out, flush=True)

    def _reap(self) -> int | None:
        """Collect dead children and schedule their replacements; a fatal status or None."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return None
            if pid == 0:
                return None
            child = self._children.pop(pid, None)
            if child is None:
                continue
            self._read_announcement(child)
            os.close(child.reader)
            code = os.waitstatus_to_exitcode(status)
            if code == EXIT_CONFIG and not child.announced:
                LOG.error("engine process %d could not start (exit status %d)", pid, code)
                return code
            self._schedule(child, code)

    def _schedule(self, child: _Child, code: int) -> None:
        state = self._slots[child.slot]
        delay, state.backoff = restart_delay(state.backoff, time.monotonic() - child.started,
                                             code)
        how = f"killed by signal {-code}" if code < 0 else f"exited with status {code}"
        print(f"process {child.pid} {how}; starting another in {delay:g} s",
              file=sys.stderr, flush=True)
        state.due = time.monotonic() + delay

    # -- stopping ----------------------------------------------------------------
    def _stop_children(self) -> None:
        self._signal_all(signal.SIGTERM)
        signals_seen = len(self._signals)
        deadline = None if self.stop_timeout is None else time.monotonic() + self.stop_timeout
        while self._children:
            if deadline is not None and time.monotonic() >= deadline:
                break
            if len(self._signals) > signals_seen:
                break  # a second signal: no more waiting
            self._collect()
            if self._children:
                time.sleep(0.05)
        if self._children:
            self._signal_all(signal.SIGKILL)
            while self._children:
                self._collect(block=True)

    def _signal_all(self, signum: int) -> None:
        for pid in self._children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)

    def _collect(self, *, block: bool = False) -> None:
        for pid in list(self._children):
            try:
                done, _ = os.waitpid(pid, 0 if block else os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                os.close(self._children.pop(pid).reader)

    # -- in the child ------------------------------------------------------------
    def _run_child(self, writer: int, parent: int) -> None:
        """Become a worker: never returns (``os._exit``), so no parent code runs here."""
        status = 1
        try:
            signal.set_wakeup_fd(-1)
            for fd in (*self._wake, *(c.reader for c in self._children.values())):
                os.close(fd)
            self._children.clear()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            die_with_parent(parent)

            def announce(line: str) -> None:
                os.write(writer, line.replace("\n", " ").encode() + b"\n")

            status = self.body(announce)
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            LOG.exception("engine process failed")
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os._exit(status)


def restart_delay(backoff: float, lived: float, code: int) -> tuple[float, float]:
    """Seconds before a dead child's slot forks again, and the slot's next back-off.

    ``backoff`` is the slot's current one, ``lived`` how long the child ran,
    ``code`` its exit status (negative: the signal that killed it). A child
    that lived ``STABLE_SECS``, or that fenced itself, starts the series again.
    """
    if lived >= STABLE_SECS or code == EXIT_FENCED:
        backoff = FIRST_BACKOFF
    return backoff, min(MAX_BACKOFF, backoff * 2)


def die_with_parent(parent: int) -> None:
    """Have this process get SIGTERM when ``parent`` dies, however it dies.

    Linux does it in the kernel (PR_SET_PDEATHSIG, which fires when the
    thread that forked us ends: the parent's main thread, its only one);
    elsewhere a daemon thread polls for the parent's end. A parent that died
    before the request took effect is caught by comparing the parent's id.
    """
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    else:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                         name="hotplate-parent-watch").start()
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGTERM)
