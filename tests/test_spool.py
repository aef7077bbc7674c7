"""The on-disk record spool judge uses for PS runs and votes."""

from __future__ import annotations

from interviewsim.data.spool import Spool


def test_records_come_back_in_order_and_appending_continues_after_reading():
    spool = Spool()
    for i in range(3):
        spool.append({"i": i, "text": "é"})
    assert list(spool) == [{"i": 0, "text": "é"}, {"i": 1, "text": "é"}, {"i": 2, "text": "é"}]
    spool.append({"i": 3})
    assert len(spool) == 4 and [r["i"] for r in spool] == [0, 1, 2, 3]
    spool.close()
