"""The relay provider (a model answering through files) and what was measured with it.

The unit tests drive the real hub and client with answers written by the tests; the last
tests replay the committed answers of the relayed measurements and keep docs/PREP.md and
docs/AGENT.md equal to what the commands print.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from interviewsim.config.params import parse_params
from interviewsim.errors import InputError
from interviewsim.llm import ModelHub
from interviewsim.llm.relay import AwaitingAnswers
from interviewsim.llm.types import ChatRequest, Message
from interviewsim.prep.fixture_model import respond as fixture_respond
from stages.cli import cli

ROOT = Path(__file__).resolve().parent.parent
PREP_RELAY = ROOT / "tests/data/prep_relay"
AGENT_RELAY = ROOT / "tests/data/agent_language_relay"


def _params(tmp_path: Path, answerer: str = "someone") -> dict:
    return {"cache": {"path": str(tmp_path / "cache.sqlite")},
            "providers": {"local": {"kind": "relay", "answerer": answerer,
                                    "requests": str(tmp_path / "requests.jsonl"),
                                    "answers": str(tmp_path / "answers.jsonl")}}}


def _request(text: str, max_tokens: int = 50) -> ChatRequest:
    return ChatRequest(messages=(Message(role="user", content=text),), max_tokens=max_tokens)


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_unanswered_requests_are_written_out_and_the_run_stops_naming_both_files(
        tmp_path: Path) -> None:
    params = parse_params(_params(tmp_path))
    with ModelHub(params.hub) as hub:
        client = hub.client(params.models.generator, label="t")
        with pytest.raises(AwaitingAnswers) as raised:
            client.complete_many([_request("one"), _request("two"), _request("one")])
    assert raised.value.exit_code == 2
    assert "2 requests wait for answers in" in str(raised.value)
    assert str(tmp_path / "answers.jsonl") in str(raised.value)
    rows = _rows(tmp_path / "requests.jsonl")
    assert sorted(r["messages"][0]["content"] for r in rows) == ["one", "two"]  # once each
    assert [r["key"] for r in rows] == sorted(r["key"] for r in rows)  # a stable file
    assert {r["max_tokens"] for r in rows} == {50}


def test_answers_are_replayed_and_only_the_new_requests_wait(tmp_path: Path) -> None:
    params = parse_params(_params(tmp_path))
    with ModelHub(params.hub) as hub:
        client = hub.client(params.models.generator, label="t")
        with pytest.raises(AwaitingAnswers):
            client.complete_many([_request("one"), _request("two")])
        rows = _rows(tmp_path / "requests.jsonl")
        (tmp_path / "answers.jsonl").write_text(
            "".join(json.dumps({"key": r["key"], "text": r["messages"][0]["content"].upper()})
                    + "\n" for r in rows), encoding="utf-8")
        assert [r.text for r in client.complete_many([_request("two"), _request("one")])] == [
            "TWO", "ONE"]
        with pytest.raises(AwaitingAnswers) as raised:
            client.complete_many([_request("one"), _request("three")])
    assert "1 requests wait" in str(raised.value)
    assert [r["messages"][0]["content"] for r in _rows(tmp_path / "requests.jsonl")] == ["three"]


def test_an_answer_longer_than_max_tokens_is_cut_as_an_endpoint_would(tmp_path: Path) -> None:
    params = parse_params(_params(tmp_path))
    with ModelHub(params.hub) as hub:
        client = hub.client(params.models.generator, label="t")
        with pytest.raises(AwaitingAnswers):
            client.complete(_request("long", max_tokens=2))
        key = _rows(tmp_path / "requests.jsonl")[0]["key"]
        (tmp_path / "answers.jsonl").write_text(
            json.dumps({"key": key, "text": "x" * 40}) + "\n", encoding="utf-8")
        result = client.complete(_request("long", max_tokens=2))
    assert (result.text, result.finish_reason) == ("x" * 8, "length")


def test_two_answerers_never_share_an_answer(tmp_path: Path) -> None:
    keys = []
    for answerer in ("first", "second"):
        params = parse_params(_params(tmp_path, answerer))
        with ModelHub(params.hub) as hub:
            keys.append(hub.client(params.models.generator, label="t").key(_request("same")))
    assert keys[0] != keys[1]


def test_an_answers_line_that_is_not_the_format_names_the_file_and_line(
        tmp_path: Path) -> None:
    (tmp_path / "answers.jsonl").write_text('{"key": "k", "text": "a"}\n{"key": "k2"}\n',
                                            encoding="utf-8")
    params = parse_params(_params(tmp_path))
    with ModelHub(params.hub) as hub, pytest.raises(InputError) as raised:
        hub.client(params.models.generator, label="t").complete(_request("x"))
    assert "answers.jsonl" in str(raised.value.problems[0])
    assert "line 2" in str(raised.value.problems[0])


def test_prep_eval_collects_every_postings_requests_per_round_and_scores_the_replay(
        tmp_path: Path) -> None:
    """The real graph through the relay, answered by the fixture model between rounds: each
    round queues one step of every posting, and the last run prints the table."""
    part = tmp_path / "part"
    part.mkdir()
    for name, skill in (("a", "Python"), ("b", "Kubernetes")):
        (part / f"{name}.posting.txt").write_text(
            f"Requirements\n- {skill} experience\n- SQL databases\n", encoding="utf-8")
        (part / f"{name}.evidence.yaml").write_text(
            f"evidence:\n  - id: EV-001\n    title: Work\n    summary: I use {skill} daily.\n",
            encoding="utf-8")
        (part / f"{name}.labels.jsonl").write_text("".join(json.dumps(
            {"posting": name, "key_phrase": phrase, "requirement": phrase,
             "importance": "must", "verdict": verdict, "evidence": [], "why": "-"}) + "\n"
            for phrase, verdict in ((f"{skill} experience", "FULL"),
                                    ("SQL databases", "GAP"))), encoding="utf-8")
    params_file = tmp_path / "params.json"
    params_file.write_text(json.dumps(_params(tmp_path)), encoding="utf-8")
    command = ["prep", "eval", str(part), "--path", "llm", "--params", str(params_file)]
    rounds = 0
    while (result := CliRunner().invoke(cli, command)).exit_code == 2:
        rounds += 1
        waiting = _rows(tmp_path / "requests.jsonl")
        assert len(waiting) == 2  # one request per posting each round
        with (tmp_path / "answers.jsonl").open("a", encoding="utf-8") as answers:
            for row in waiting:
                request = ChatRequest(
                    messages=tuple(Message(**m) for m in row["messages"]),
                    max_tokens=row["max_tokens"])
                answers.write(json.dumps({"key": row["key"],
                                          "text": fixture_respond(request)}) + "\n")
        assert rounds < 5
    assert result.exit_code == 0, result.output
    assert rounds == 2  # extraction, then matching
    assert "| llm | part | 4/4 |" in result.output


def test_the_prep_model_path_relayed_on_the_fourteenth_part_is_what_the_docs_show() -> None:
    result = CliRunner().invoke(cli, [
        "prep", "eval", str(ROOT / "tests/data/prep_eval/tune15"), "--path", "lexical",
        "--path", "llm", "--params", str(PREP_RELAY / "params.yaml"),
        "--second", str(ROOT / "tests/data/prep_second_reader/fourteenth_part.verdicts.jsonl")])
    assert result.exit_code == 0, result.output  # every answer is committed: nothing waits
    docs = (ROOT / "docs/PREP.md").read_text(encoding="utf-8")
    for line in result.output.splitlines():
        if line.startswith("| "):
            assert line in docs, line


def test_the_second_readers_agreement_on_h16_is_what_the_docs_show() -> None:
    from interviewsim.agent.language_eval import agreement_report, load_corpus

    corpus = load_corpus(ROOT / "tests/data/agent_language_corpus.jsonl")
    shown = agreement_report(corpus, ROOT / "tests/data/agent_language_second_reader_h16.jsonl")
    assert "| interviewer turns | question |" not in shown  # not asked, so not shown
    assert shown in (ROOT / "docs/AGENT.md").read_text(encoding="utf-8")


def test_a_prep_second_reader_line_that_is_not_the_format_is_one_clear_line(
        tmp_path: Path) -> None:
    bad = tmp_path / "reader.jsonl"
    bad.write_text('{"posting": "x", "key_phrase": "y", "verdict": "MAYBE", "evidence": [], '
                   '"why": ""}\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["prep", "eval", str(ROOT / "tests/data/prep_eval/holdout"),
                                      "--second", str(bad)])
    assert result.exit_code == 1
    assert re.search(r"reader\.jsonl.*line 1.*verdict", result.output), result.output


def _h16_fallback():
    from interviewsim.agent.config import load_agent_settings
    from interviewsim.agent.language_fallback import LanguageFallback
    from interviewsim.config.params import load_params

    params = load_params(AGENT_RELAY / "params.yaml")
    settings = load_agent_settings(AGENT_RELAY / "agent.yaml")
    return params, settings, LanguageFallback


def test_the_relayed_fallback_on_h16_is_what_the_docs_show() -> None:
    from interviewsim.agent.language_eval import fallback_report, load_corpus

    corpus = [i for i in load_corpus(ROOT / "tests/data/agent_language_corpus.jsonl")
              if i.id.startswith("h16-")]  # the holdout then, in train now
    shown = fallback_report(corpus, str(AGENT_RELAY / "params.yaml"),
                            str(AGENT_RELAY / "agent.yaml"), ("train",))
    assert "Fallback outputs that never parsed: 0" in shown
    assert shown.strip() in (ROOT / "docs/AGENT.md").read_text(encoding="utf-8")


def test_the_relayed_models_own_answers_on_h16_are_what_the_docs_say() -> None:
    """docs/AGENT.md: scored alone, the answers reach precision 0.91-1.00 and recall
    0.94-1.00 on every class the fallback is asked (the rules' findings are what pull the
    layer below the bar)."""
    from interviewsim.agent.language_eval import load_corpus
    from interviewsim.agent.signals import invites_questions

    params, settings, fallback_class = _h16_fallback()
    items = [i for i in load_corpus(ROOT / "tests/data/agent_language_corpus.jsonl")
             if i.id.startswith("h16-")]
    with ModelHub(params.hub) as hub:
        fallback = fallback_class(hub.client(settings.language_fallback, label="language"))
        asked = {i.id: (fallback.turn(i.text) if i.kind == "turn"
                        else fallback.reply(i.text, i.after, invites_questions(i.after)))
                 for i in items}
    counts: dict[str, list[int]] = {}
    for item in items:
        gold = item.gold()
        for label in {*gold, *asked[item.id]} - {"question", "not_question", "invitation",
                                                  "normal"}:
            row = counts.setdefault(f"{item.kind}:{label}", [0, 0, 0])
            row[0] += label in gold and label in asked[item.id]
            row[1] += label in asked[item.id] and label not in gold
            row[2] += label in gold and label not in asked[item.id]
    assert len(counts) == 12
    for label, (tp, fp, fn) in counts.items():
        assert tp / (tp + fp) >= 0.905 and tp / (tp + fn) >= 0.935, (label, tp, fp, fn)
