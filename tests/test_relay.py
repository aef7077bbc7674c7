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


def test_the_prep_model_path_relayed_on_the_holdout_is_what_the_docs_show() -> None:
    result = CliRunner().invoke(cli, [
        "prep", "eval", str(ROOT / "tests/data/prep_eval/holdout"), "--path", "lexical",
        "--path", "llm", "--params", str(PREP_RELAY / "params.yaml")])
    assert result.exit_code == 0, result.output  # every answer is committed: nothing waits
    docs = (ROOT / "docs/PREP.md").read_text(encoding="utf-8")
    for line in result.output.splitlines():
        if line.startswith("| "):
            assert line in docs, line


def test_the_prep_model_path_relayed_on_every_part_is_what_the_docs_show() -> None:
    result = CliRunner().invoke(cli, [
        "prep", "eval", str(ROOT / "tests/data/prep_eval"), "--path", "llm",
        "--params", str(PREP_RELAY / "params.yaml")])
    assert result.exit_code == 0, result.output  # every answer is committed: nothing waits
    docs = (ROOT / "docs/PREP.md").read_text(encoding="utf-8")
    rows = [line for line in result.output.splitlines() if line.startswith("| llm |")]
    assert len(rows) == 17
    for line in rows:
        assert line in docs, line


def test_the_second_reader_of_the_fourteenth_part_is_what_the_docs_show() -> None:
    """The second reader's row and its gold-against-verdict table, and the lexical row beside
    them (the model path's row there was taken with the prompts before prompt round 1)."""
    result = CliRunner().invoke(cli, [
        "prep", "eval", str(ROOT / "tests/data/prep_eval/tune15"),
        "--second", str(ROOT / "tests/data/prep_second_reader/fourteenth_part.verdicts.jsonl")])
    assert result.exit_code == 0, result.output
    docs = (ROOT / "docs/PREP.md").read_text(encoding="utf-8")
    shown = [line for line in result.output.splitlines() if line.startswith("| ")]
    assert any(line.startswith("| second reader | tune15 | 80/80 |") for line in shown)
    for line in shown:
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


def test_round_16_relayed_on_the_holdout_is_what_the_docs_show() -> None:
    """docs/AGENT.md, round 16: the layer with the relayed fallback on h17- and h18-, replayed
    from the committed answers (nothing waits: exit 0 would otherwise be AwaitingAnswers)."""
    from interviewsim.agent.language_eval import fallback_report, load_corpus

    corpus = [i for i in load_corpus(ROOT / "tests/data/agent_language_corpus.jsonl")
              if i.id.startswith(("h17-", "h18-"))]
    shown = fallback_report(corpus, str(AGENT_RELAY / "params.yaml"),
                            str(AGENT_RELAY / "agent.yaml"), ("holdout",))
    assert "Fallback outputs that never parsed: 0" in shown
    assert shown.strip() in (ROOT / "docs/AGENT.md").read_text(encoding="utf-8")
    rows = re.findall(r"\| (?:interviewer turns|candidate replies) \| (\w+) \| \d+ \| "
                      r"([\d.]+) \S+ \S+ \| ([\d.]+) ", shown)
    bar = [(label, p, r) for label, p, r in rows
           if label not in ("question", "not_question", "normal")]
    assert len(bar) == 13 and all(float(p) >= 0.9 and float(r) >= 0.8 for _, p, r in bar)
