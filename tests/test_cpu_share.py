"""The engine's thread count follows the cores other processes leave free."""

from __future__ import annotations

import pytest

from interviewsim.llm import cpu_share
from interviewsim.llm.cpu_share import CoreWatch


class FakeClock:
    def __init__(self) -> None:
        self.now, self.busy, self.own = 0.0, 0.0, 0.0

    def sample(self) -> tuple[float, float | None, float]:
        return self.now, self.busy, self.own

    def run(self, seconds: float, others: float, own: float) -> None:
        """``seconds`` pass; other processes use ``others`` cores, this one ``own``."""
        self.now += seconds
        self.busy += seconds * (others + own)
        self.own += seconds * own


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(CoreWatch, "_sample", lambda self: fake.sample())
    return fake


@pytest.mark.parametrize(("others", "expected"), [(0.0, 2), (0.3, 2), (0.6, 1), (1.0, 1),
                                                  (2.0, 1)])
def test_threads_are_the_cores_others_leave(clock: FakeClock, others: float,
                                            expected: int) -> None:
    watch = CoreWatch(configured=2, cores=2)
    clock.run(cpu_share.PERIOD_S, others=others, own=2.0)  # our own threads never count
    assert watch.update() == expected


def test_never_more_than_configured_and_rechecked_only_each_period(clock: FakeClock) -> None:
    watch = CoreWatch(configured=2, cores=8)
    clock.run(cpu_share.PERIOD_S, others=0.0, own=2.0)
    assert watch.update() == 2  # 8 free cores, 2 configured
    clock.run(cpu_share.PERIOD_S, others=7.5, own=0.5)
    clock.now -= cpu_share.PERIOD_S / 2  # only half a period since the last look
    assert watch.update() == 2
    clock.run(cpu_share.PERIOD_S, others=7.5, own=0.5)
    assert watch.update() == 1


def test_without_proc_stat_the_configured_count_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu_share, "_busy_seconds", lambda: None)
    watch = CoreWatch(configured=3, cores=4)
    watch._mark = (watch._mark[0] - 10, None, 0.0)
    assert watch.update() == 3


def test_busy_seconds_reads_proc_stat_when_there_is_one() -> None:
    value = cpu_share._busy_seconds()
    assert value is None or value > 0
