"""The controls through the real stages (prepare → controls → fact-summary → judge), and what
they tell: a judge that reads the answers tells the person from an impostor, a judge that
answers at random is flagged; a control never reaches a generation prompt."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from interviewsim.analysis.control_items import read_control_items
from interviewsim.analysis.validity import discrimination
from interviewsim.config.params import EquivalenceMargins, parse_params
from interviewsim.data.jsonio import read_jsonl, write_jsonl_atomic
from interviewsim.data.records import ControlMetric
from interviewsim.errors import ConfigError
from interviewsim.judges.prompts import CS_SYSTEM, FACT_SUMMARY_SYSTEM, FC_SYSTEM, PS_SYSTEM
from interviewsim.llm.types import ChatRequest
from tests.stage_runner import invoke, make_workspace
from tests.test_dvc_deps import import_closure, stage_entry, stages

TOPICS = {
    "P1": "kiln glaze clay porcelain firing",
    "P2": "harbour sail rope tide mooring",
    "P3": "violin bow rosin string concert",
    "P4": "orchard apple pruning cider ladder",
    "P5": "chess opening endgame rook tournament",
    "P6": "bakery sourdough oven flour crust",
}
QUESTIONS = ["What did you work on this spring?", "What went wrong last time?",
             "What would you change next year?"]


def person(pid: str) -> dict:
    """Six interviews of three answers in the person's own vocabulary (the same questions for
    everyone, so the impostor answers the very question with someone else's life)."""
    words = TOPICS[pid].split()
    interviews = []
    for i in range(6):
        pairs = []
        for j, question in enumerate(QUESTIONS):
            chosen = " ".join(words[(i + j + k) % len(words)] for k in range(4))
            pairs.append({"qa_id": f"{pid}-Q{i}-{j}", "question": question,
                          "response": f"Mostly {chosen}, and the {words[j]} again in week {i}.",
                          "tags": []})
        interviews.append({"interview_id": f"{pid}-I{i}", "sequence": i, "qa_pairs": pairs})
    return {"schema_version": "1.0", "personality_id": pid,
            "personality": {"profile": f"{pid} has a trade.", "long_profile": f"{pid} works."},
            "interviews": interviews}


def _tag(text: str, tag: str) -> str:
    return text.split(f"<{tag}>\n", 1)[1].split(f"\n</{tag}>", 1)[0]


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 3}


def _overlap(a: str, b: str) -> float:
    x, y = _words(a), _words(b)
    return len(x & y) / len(x | y) if x | y else 0.0


def _noise(*parts: object) -> int:
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:8], 16)


def _judge(request: ChatRequest, honest: bool) -> str:
    system, user = request.messages[0].content, request.messages[-1].content
    if system == FACT_SUMMARY_SYSTEM:
        return json.dumps({"summary": " ".join(sorted(_words(user))), "explanation": "words"})
    if system == CS_SYSTEM:
        reference, candidate = _tag(user, "reference"), _tag(user, "candidate")
        score = (1 + round(4 * _overlap(reference, candidate)) if honest
                 else 1 + _noise(candidate, request.sample_index) % 5)
        return json.dumps({"score": score, "explanation": "compared"})
    if system == FC_SYSTEM:
        summary, answer = _tag(user, "fact_summary"), _tag(user, "answer")
        said = _words(answer)  # entailed when what the answer says is in the summary
        entailed = (len(said & _words(summary)) > 0.75 * len(said) if honest
                    else _noise(answer, request.sample_index) % 2 == 0)
        label = "Entailment" if entailed else "Contradiction"
        return json.dumps({"label": label, "explanation": "checked"})
    if system == PS_SYSTEM:
        trait = re.search(r"^Trait: (\w+)$", user, re.MULTILINE).group(1)
        chance = "" if honest else request.sample_index  # random: every run its own draw
        level = ("Low", "Neutral", "High")[_noise(sorted(_words(user)), trait, chance) % 3]
        return f"<rate>{level}</rate> <justification>read it</justification>"
    raise AssertionError(f"unexpected prompt: {system[:60]}")


def honest_judge(request: ChatRequest) -> str:
    return _judge(request, honest=True)


def random_judge(request: ChatRequest) -> str:
    return _judge(request, honest=False)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("validity")
    scripted = {"kind": "scripted"}
    make_workspace(
        root, [person(pid) for pid in TOPICS], "tests.scripted_models:echo_answer",
        strategies=["no-context"], controls=["oracle", "impostor"],
        providers={"honest": {**scripted, "script": "tests.test_validity:honest_judge"},
                   "random": {**scripted, "script": "tests.test_validity:random_judge"},
                   "script": {**scripted, "script": "tests.scripted_models:echo_answer"}},
        models={"generator": {"provider": "script", "model": "g"},
                "judges": [{"name": "honest", "provider": "honest", "model": "h"},
                           {"name": "random", "provider": "random", "model": "r"}],
                "mcq_builder": {"provider": "script", "model": "g"},
                "mcq_answerers": [{"name": "a1", "provider": "script", "model": "g"}]},
    )
    for stage in ("prepare", "controls", "fact-summary"):
        result = invoke(root, stage)
        assert result.exit_code == 0, result.output
    answers = [{"personality_id": r["personality_id"], "strategy": "no-context",
                "qa_id": r["qa_id"], "interview_id": r["interview_id"],
                "question": r["question"], "response": "I would rather not say.", "valid": True,
                "invalid_reason": None, "calls": []}
               for r in read_jsonl(root / "data/artifacts/prepared/heldout_pairs.jsonl")]
    write_jsonl_atomic(root / "data/artifacts/generated/answers.jsonl", answers)
    for stage in ("judge", "select-context", "fidelity"):
        result = invoke(root, stage)
        assert result.exit_code == 0, (stage, result.output)
    return root


def _verdicts(root: Path) -> dict[tuple[str, str], object]:
    rows = [ControlMetric(**r)
            for r in read_jsonl(root / "data/artifacts/judged/control_metrics.jsonl")]
    items = read_control_items(rows, root / "data/artifacts/judged", None)
    margins = EquivalenceMargins().model_dump()
    return {(d.judge, d.metric): d for d in discrimination(items, margins, 10_000, seed=1)}


def test_an_impostor_answers_the_same_question_with_another_life(workspace):
    controls = list(read_jsonl(workspace / "data/artifacts/controls/answers.jsonl"))
    impostors = [c for c in controls if c["control"] == "impostor"]
    oracles = [c for c in controls if c["control"] == "oracle"]
    assert len(impostors) == len(oracles) == 6 * 6  # 2 held-out interviews of 3
    assert all(c["source_personality_id"] != c["personality_id"] for c in impostors)
    assert all(c["source_qa_id"] == c["qa_id"] and c["source_personality_id"] == c["personality_id"]
               for c in oracles)


def test_a_judge_that_reads_the_answers_is_not_flagged_and_a_random_one_is(workspace):
    verdicts = _verdicts(workspace)
    honest_cs = verdicts[("honest", "content_similarity")]
    assert honest_cs.discriminates and honest_cs.difference > 1, honest_cs
    assert honest_cs.test.items == 36  # six judged answers of each of six personalities
    assert "**discriminates**" in honest_cs.verdict()
    assert verdicts[("honest", "contradiction_ratio")].discriminates
    random_cs = verdicts[("random", "content_similarity")]
    assert not random_cs.discriminates, random_cs
    assert random_cs.test.verdict.value in {"inconclusive", "equivalent"}
    assert not verdicts[("random", "contradiction_ratio")].discriminates
    assert verdicts[("honest", "personality_alignment")].discriminates
    assert not verdicts[("random", "personality_alignment")].discriminates


def test_controls_live_in_their_own_files_only(workspace):
    judged = workspace / "data/artifacts/judged"
    assert {r["strategy"] for r in read_jsonl(judged / "judgments.jsonl")} == {"no-context"}
    assert all("strategy" not in r for r in read_jsonl(judged / "control_judgments.jsonl"))
    assert {r["control"] for r in read_jsonl(judged / "control_ps_votes.jsonl")} == {
        "oracle", "impostor"}
    assert {r["strategy"] for r in read_jsonl(judged / "personality_metrics.jsonl")} == {
        "no-context"}


def test_the_oracle_profile_is_sampled_again_not_replayed(workspace):
    runs = list(read_jsonl(workspace / "data/artifacts/judged/control_ps_runs.jsonl"))
    reference = list(read_jsonl(workspace / "data/artifacts/judged/ps_runs.jsonl"))
    oracle_keys = {c["cache_key"] for r in runs if r["control"] == "oracle" for c in r["calls"]}
    reference_keys = {c["cache_key"] for r in reference if r["side"] == "reference"
                      for c in r["calls"]}
    assert oracle_keys and not oracle_keys & reference_keys


def test_a_control_can_never_reach_a_generation_prompt(tmp_path):
    # not a strategy: params reject it where strategies are listed
    with pytest.raises(ConfigError):
        parse_params({"strategies": ["oracle"]})
    # no stage that feeds generation reads the controls, directly or through its code
    dag = stages()
    for name in ("prepare", "select-context", "generate"):
        assert not any("controls" in str(dep) for dep in dag[name]["deps"]), name
        closure = {str(p) for p in import_closure(stage_entry(dag[name]["cmd"]))}
        assert not any(p.endswith("analysis/controls.py") for p in closure), name
    params = yaml.safe_load(Path("params.yaml").read_text())
    assert set(params["controls"]) == {"oracle", "impostor", "retest"}  # on by default


def test_an_impostor_for_a_single_personality_is_refused_with_the_fix(tmp_path):
    """With one personality nobody can impersonate it: the controls stage says so (exit 1)
    instead of writing no impostor records, which every later stage would read as stale."""
    make_workspace(tmp_path, [person("P1")], "tests.scripted_models:echo_answer",
                   strategies=["no-context"], controls=["oracle", "impostor"])
    assert invoke(tmp_path, "prepare").exit_code == 0
    result = subprocess.run([sys.executable, "-m", "stages", "controls"], cwd=tmp_path,
                            capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    assert result.returncode == 1, result.stderr
    assert "at least two personalities" in result.stderr
    assert "remove impostor from controls" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "data/artifacts/controls/answers.jsonl").exists()


def test_the_report_and_the_headline_carry_the_verdicts(workspace):
    (workspace / "no_mcq.jsonl").write_text("")
    result = invoke(workspace, "aggregate", "--judged",
                    "data/artifacts/judged/personality_metrics.jsonl", "--mcq", "no_mcq.jsonl",
                    "--no-mlflow")
    assert result.exit_code == 0, result.output
    report = (workspace / "reports/report.md").read_text()
    assert "- ✅ honest on content_similarity: **discriminates**" in report
    assert "impostor − oracle" in report.split("honest on contradiction_ratio", 1)[1][:80]
    assert "- ❔ random on content_similarity: **inconclusive**" in report
    assert "random profiles is 0.556" in report
    # no retest control here: normalized against the oracle only, and the report says so
    assert "No retest control (params.yaml `controls` lacks `retest`)" in report
    verdicts = json.loads((workspace / "reports/headline/validity_verdict.json").read_text())
    assert verdicts["cs_similarity"] == {"honest": 1, "random": 0}
    metrics = json.loads((workspace / "reports/metrics.json").read_text())
    assert metrics["validity.discrimination.honest.content_similarity.verdict"] == 1
    assert metrics["validity.discrimination.honest.content_similarity.items"] == 36
