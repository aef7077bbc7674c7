"""The one re-ask loop: a rejected output is asked again with a new sample index, sampled
(not greedy) when the call's temperature is 0, and every attempt is kept."""

from __future__ import annotations

from pathlib import Path

from interviewsim.errors import ParseError
from interviewsim.llm.asking import REASK_TEMPERATURE, Ask, AskTask, run_together
from interviewsim.llm.types import ChatRequest
from tests.test_prep_support import scripted_client


def _number(text: str) -> int:
    if not text.strip().isdigit():
        raise ParseError(f"not a number: {text!r}")
    return int(text)


def test_a_greedy_reask_is_sampled_and_every_attempt_is_kept(tmp_path: Path) -> None:
    seen: list[ChatRequest] = []

    def model(request: ChatRequest) -> str:
        seen.append(request)
        return "7" if request.sample_index >= 1 else "seven"

    with scripted_client(tmp_path, model) as client:
        assert client.settings.temperature == 0.0
        [[outcome]] = run_together(client, [(AskTask(parse=_number), [Ask([
            {"role": "user", "content": "a number"}])])], max_attempts=3, desc="")
    assert outcome.value == 7 and len(outcome.calls) == 2
    assert [(r.sample_index, r.temperature) for r in seen] == [(0, 0.0), (1, REASK_TEMPERATURE)]


def test_tasks_asked_together_share_one_batch_per_attempt_and_keep_their_own_parsers(
        tmp_path: Path) -> None:
    batches: list[int] = []

    with scripted_client(tmp_path, lambda r: r.messages[-1].content.split()[-1]) as client:
        original = client.complete_many

        def counting(requests, desc=""):
            batches.append(len(requests))
            return original(requests, desc=desc)

        client.complete_many = counting  # type: ignore[method-assign]
        upper = AskTask(parse=lambda text: text.upper())
        numbers = AskTask(parse=_number, temperature=0.5)
        words, digits = run_together(client, [
            (upper, [Ask([{"role": "user", "content": "say a"}])]),
            (numbers, [Ask([{"role": "user", "content": "say 4"}]),
                       Ask([{"role": "user", "content": "say x"}])]),
        ], max_attempts=2, desc="")
    assert [o.value for o in words] == ["A"]
    assert [o.value for o in digits] == [4, None] and "not a number" in (digits[1].error or "")
    assert batches == [3, 1]  # the first attempts together, then the one re-ask
