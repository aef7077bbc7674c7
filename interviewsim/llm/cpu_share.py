"""How many cores other processes leave free: the embedded engine's thread count on a busy machine.

ggml's CPU threads meet at a barrier after every operation, so a step runs at the pace of its
slowest thread; a thread that shares its core with another busy process drags the others down
with it (benchmarks/README.md "Engine": with one busy process beside it on 2 cores, 2 threads
generate 0.2× of their idle speed, 1 thread 0.5×). So the engine watches the machine: every
``PERIOD_S`` it measures, from ``/proc/stat`` and its own CPU time, how much CPU everyone else
used since the last look, and runs on the cores they left (at least one, at most the configured
``n_threads``). Where ``/proc/stat`` is missing (macOS, Windows), it keeps ``n_threads``.
"""

from __future__ import annotations

import os
import time

PERIOD_S = 2.0
"""Seconds between two looks at the machine."""


def _busy_seconds() -> float | None:
    """CPU seconds all processes have used since boot (every core), or None without /proc."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            fields = handle.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def _own_seconds() -> float:
    times = os.times()
    return times.user + times.system


class CoreWatch:
    """Threads to use now: the cores other processes left free over the last period."""

    def __init__(self, configured: int, cores: int | None = None):
        self.configured = configured
        self.cores = cores or os.cpu_count() or 1
        self.threads = configured
        self._mark = self._sample()

    def _sample(self) -> tuple[float, float | None, float]:
        return time.monotonic(), _busy_seconds(), _own_seconds()

    def others_busy(self, since: tuple[float, float | None, float],
                    now: tuple[float, float | None, float]) -> float | None:
        """Cores' worth of CPU that other processes used between two samples."""
        wall = now[0] - since[0]
        if since[1] is None or now[1] is None or wall <= 0:
            return None
        return max(0.0, (now[1] - since[1]) - (now[2] - since[2])) / wall

    def update(self) -> int:
        """The thread count for the next steps (re-measured at most once per ``PERIOD_S``)."""
        now = self._sample()
        if now[0] - self._mark[0] < PERIOD_S:
            return self.threads
        busy = self.others_busy(self._mark, now)
        self._mark = now
        if busy is not None:
            free = int(self.cores - busy + 0.5)  # cores at least half free count as free
            self.threads = max(1, min(self.configured, free))
        return self.threads
