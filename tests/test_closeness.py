"""How close to the person? (issue [fidelity]) through the real stages: prepare →
select-context → generate → controls → fidelity → fact-summary → judge → aggregate, with
scripted generators and judges whose truth is known.

- chronological answers half the questions with the person's nearest past answer (from its
  own context) and half with another personality's: normalized CS ≈ 0.5, interval covering it;
- a judge that scores only exact copies cannot tell the retest from the impostor: "not
  normalizable" against the retest, normalizable against the oracle;
- short-profile answers every question with the same generic sentence: attribution at chance;
- no-context emits the person's held-out answer word for word: flagged as memorization (the
  prompts never held it: the script rebuilds it from this module's data);
- a judge that scores length: a positive length slope.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from interviewsim.judges.prompts import CS_SYSTEM, FACT_SUMMARY_SYSTEM, FC_SYSTEM, PS_SYSTEM
from interviewsim.llm.types import ChatRequest
from tests.stage_runner import invoke, make_workspace
from tests.test_validity import _overlap, _tag, _words

VOCABULARY = {
    "P01": "kiln glaze clay porcelain firing slip wheel bisque stoneware raku",
    "P02": "harbour sail rope tide mooring keel anchor hull rigging buoy",
    "P03": "violin bow rosin string concert tuning bridge scroll sonata etude",
    "P04": "orchard apple pruning cider ladder graft blossom bramley picking press",
    "P05": "chess opening endgame rook tournament bishop gambit castling pawns clock",
    "P06": "bakery sourdough oven flour crust proving starter baguette crumb loaves",
    "P07": "glacier crampon ridge summit rope belay crevasse moraine ice axe",
    "P08": "loom weft warp shuttle heddle tapestry yarn bobbin selvedge twill",
    "P09": "beehive queen honey comb smoker frames swarm nectar drone apiary",
    "P10": "printing press ink type letterpress platen galley proof serif lino",
    "P11": "telescope nebula eyepiece mount comet aperture planet meteor orbit lens",
    "P12": "bicycle spoke derailleur chain saddle tyre cassette crank hub pedal",
}
BASE = ["what did you work on during the {} season", "what went wrong in the {} season",
        "who helped you through the {} season", "what would you change after the {} season"]
ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth"]
GENERIC = "That is a good question and I would rather not say much about it today."


def _hash(*parts: object) -> int:
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:8], 16)


def question(i: int, j: int) -> str:
    return BASE[j].format(ORDINALS[i]).capitalize() + "?"


def answer(pid: str, i: int, j: int) -> str:
    """25 to 40 tokens in the person's own vocabulary (6 of their 10 words, by hash; the
    length varies with short words that no judge here counts)."""
    words = VOCABULARY[pid].split()
    chosen = sorted(words, key=lambda w: _hash(pid, i, j, w))[:6]
    padding = " and so on" * (_hash(pid, i, j, "length") % 5)
    return (f"So in the {ORDINALS[i]} one it was {chosen[0]} and {chosen[1]} for me, then "
            f"{chosen[2]} and {chosen[3]}{padding}, and by the end it was {chosen[4]} with "
            f"{chosen[5]} all the way.")


def person(pid: str) -> dict:
    interviews = [{"interview_id": f"{pid}-I{i}", "sequence": i, "qa_pairs": [
        {"qa_id": f"{pid}-Q{i}-{j}", "question": question(i, j), "response": answer(pid, i, j),
         "tags": []} for j in range(len(BASE))]} for i in range(len(ORDINALS))]
    return {"schema_version": "1.0", "personality_id": pid,
            "personality": {"profile": f"{pid} has a trade.", "long_profile": f"{pid} works."},
            "interviews": interviews}


def _which(q: str) -> tuple[int, int]:
    """(interview, base question) of a question text."""
    for i in range(len(ORDINALS)):
        for j in range(len(BASE)):
            if q == question(i, j):
                return i, j
    raise AssertionError(f"unknown question {q!r}")


def generator(request: ChatRequest) -> str:
    user = request.messages[-1].content
    pid = re.search(r"^Personality ID: (\S+)$", user, re.MULTILINE).group(1)
    i, j = _which(re.search(r"^New question: (.+)$", user, re.MULTILINE).group(1))
    if "<context>" not in user:  # no-context: the held-out answer, word for word
        return answer(pid, i, j)
    if "Profile:" in user:  # short-profile: one generic sentence for everything
        return GENERIC
    if j < 2:  # chronological: the nearest past answer in its context ...
        for block in user.split("<context>", 1)[1].split("\n\n"):
            found = re.search(r"Question: (.+)\nResponse: (.+)", block)
            if found and _which(found.group(1))[1] == j:
                return found.group(2)
        raise AssertionError(f"no earlier answer to base question {j} in the context")
    others = sorted(VOCABULARY)  # ... or another personality's real answer
    return answer(others[(others.index(pid) + 1) % len(others)], i, j)


def _others(request: ChatRequest) -> str:
    """FC and PS as an honest reader would answer them (not under test here)."""
    system, user = request.messages[0].content, request.messages[-1].content
    if system == FACT_SUMMARY_SYSTEM:
        return json.dumps({"summary": " ".join(sorted(_words(user))), "explanation": "words"})
    if system == FC_SYSTEM:
        said = _words(_tag(user, "answer"))
        entailed = len(said & _words(_tag(user, "fact_summary"))) > 0.75 * len(said)
        return json.dumps({"label": "Entailment" if entailed else "Contradiction",
                           "explanation": "checked"})
    if system == PS_SYSTEM:
        trait = re.search(r"^Trait: (\w+)$", user, re.MULTILINE).group(1)
        level = ("Low", "Neutral", "High")[_hash(sorted(_words(user)), trait) % 3]
        return f"<rate>{level}</rate> <justification>read it</justification>"
    raise AssertionError(f"unexpected prompt: {system[:60]}")


def _cs(request: ChatRequest, score) -> str:
    user = request.messages[-1].content
    if request.messages[0].content != CS_SYSTEM:
        return _others(request)
    value = score(_tag(user, "reference"), _tag(user, "candidate"), request.sample_index)
    return json.dumps({"score": max(1, min(5, value)), "explanation": "compared"})


def noisy_judge(request: ChatRequest) -> str:
    """Word overlap on the 1–5 scale plus a hashed −1/0/+1 of noise."""
    return _cs(request, lambda ref, cand, k: 1 + round(4 * _overlap(ref, cand))
               + _hash(ref, cand, k) % 3 - 1)


def exact_judge(request: ChatRequest) -> str:
    """5 for the reference itself, 1 for anything else: blind to the person's other answers."""
    return _cs(request, lambda ref, cand, k: 5 if ref == cand else 1)


def length_judge(request: ChatRequest) -> str:
    """Longer is better, whoever it is (plus a hashed −1/0/+1 of noise)."""
    return _cs(request, lambda ref, cand, k: (len(cand.split()) - 18) // 4
               + _hash(ref, cand, k) % 3 - 1)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("closeness")
    scripted = {"kind": "scripted"}
    here = "tests.test_closeness"
    make_workspace(
        root, [person(pid) for pid in VOCABULARY], f"{here}:generator",
        strategies=["no-context", "short-profile", "chronological"],
        controls=["oracle", "impostor", "retest"],
        context={"chronological_pairs": 4, "random_pairs": 3, "retrieval_pairs": 3,
                 "hybrid_retrieved": 2, "hybrid_recent": 2},
        providers={name: {**scripted, "script": f"{here}:{name}_judge"}
                   for name in ("noisy", "exact", "length")}
        | {"script": {**scripted, "script": f"{here}:generator"}},
        models={"generator": {"provider": "script", "model": "g"},
                "judges": [{"name": name, "provider": name, "model": name}
                           for name in ("noisy", "exact", "length")],
                "mcq_builder": {"provider": "script", "model": "g"},
                "mcq_answerers": [{"name": "a1", "provider": "script", "model": "g"}]},
    )
    for stage in ("prepare", "select-context", "generate", "controls", "fidelity",
                  "fact-summary", "judge"):
        result = invoke(root, stage)
        assert result.exit_code == 0, (stage, result.output)
    (root / "no_mcq.jsonl").write_text("")
    result = invoke(root, "aggregate", "--judged",
                    "data/artifacts/judged/personality_metrics.jsonl", "--mcq", "no_mcq.jsonl",
                    "--no-mlflow")
    assert result.exit_code == 0, result.output
    return root


def _metrics(root: Path) -> dict:
    return json.loads((root / "reports/metrics.json").read_text())


def _section(root: Path, title: str) -> str:
    report = (root / "reports/report.md").read_text()
    return report.split(f"### {title}", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]


def test_the_retest_is_the_persons_own_earlier_answer(workspace):
    rows = [json.loads(line) for line in
            (workspace / "data/artifacts/controls/answers.jsonl").read_text().splitlines()]
    retests = [r for r in rows if r["control"] == "retest"]
    heldout = {f"{pid}-Q{i}-{j}" for pid in VOCABULARY for i in (4, 5) for j in range(4)}
    assert {r["qa_id"] for r in retests} == heldout
    for r in retests:
        assert r["source_personality_id"] == r["personality_id"]
        assert r["source_qa_id"] not in heldout  # always a training answer
        i, j = _which(r["question"])
        assert r["source_qa_id"].endswith(f"-{j}")  # the same question of an earlier season


def test_half_the_persons_past_and_half_a_stranger_closes_half_the_distance(workspace):
    metrics = _metrics(workspace)
    key = "closeness.norm_to_retest.noisy.content_similarity.chronological"
    assert metrics[f"{key}.normalizable"] == 1
    assert abs(metrics[f"{key}.value"] - 0.5) < 0.15, metrics[f"{key}.value"]
    low, high = metrics[f"{key}.ci_low"], metrics[f"{key}.ci_high"]  # printed at 12 × 8
    assert low < 0.5 < high and high - low < 1, (low, high)
    assert "| chronological | 0." in _section(workspace, "Normalized fidelity")


def test_a_judge_blind_to_the_persons_other_answers_is_not_normalizable(workspace):
    metrics = _metrics(workspace)
    for strategy in ("no-context", "short-profile", "chronological"):
        assert metrics[f"closeness.norm_to_retest.exact.content_similarity.{strategy}"
                       ".normalizable"] == 0
        assert metrics[f"closeness.norm_to_oracle.exact.content_similarity.{strategy}"
                       ".normalizable"] == 1
    # the verbatim no-context answers are the oracle itself under this judge
    assert metrics["closeness.norm_to_oracle.exact.content_similarity.no-context.value"] == 1
    assert metrics["closeness.retest_vs_impostor.exact.content_similarity.verdict"] != 1
    assert metrics["closeness.retest_vs_impostor.noisy.content_similarity.verdict"] == 1
    assert "not normalizable" in _section(workspace, "Normalized fidelity")


def test_a_constant_generic_answer_is_attributed_at_chance(workspace):
    metrics = _metrics(workspace)
    scorer = "embedder-tfidf"
    chance = metrics[f"closeness.chance.{scorer}.short-profile"]
    assert chance == pytest.approx(1 / 12, abs=1e-6)
    assert metrics[f"closeness.attribution.{scorer}.short-profile"] == pytest.approx(chance, abs=1e-6)
    assert abs(metrics[f"closeness.individuation.{scorer}.short-profile"]) < 1e-6
    # the person's own words are attributed to them, by the real answers and by the oracle
    assert metrics[f"closeness.attribution.{scorer}.real_answers"] > 5 * chance
    assert metrics[f"closeness.attribution.{scorer}.oracle"] == 1
    assert metrics[f"closeness.attribution.{scorer}.impostor"] == 0


def test_a_verbatim_held_out_answer_is_flagged_as_memorization(workspace):
    metrics = _metrics(workspace)
    scorer = "embedder-tfidf"
    assert metrics[f"closeness.memorized.{scorer}.no-context"] == 12 * 8
    assert metrics[f"closeness.window_share.{scorer}.no-context"] == 1
    assert metrics[f"closeness.memorized.{scorer}.short-profile"] == 0
    # chronological copies half its answers from its own context (and the shared phrasing
    # of everyone's answers a little more)
    assert 0.5 <= metrics[f"closeness.context_copy_share.{scorer}.chronological"] < 0.6
    assert metrics[f"closeness.context_copy_share.{scorer}.short-profile"] == 0
    text = _section(workspace, "Memorization and copying")
    assert "Likely pretraining memorization: 96 no-context answer(s)" in text


def test_a_longer_is_better_judge_has_a_positive_length_slope(workspace):
    metrics = _metrics(workspace)
    slope = metrics["closeness.length_slope.length.content_similarity"]
    assert slope > 1, slope
    assert metrics["closeness.length_slope.length.content_similarity.ci_low"] > 0
    # the overlap judge does not care how long an answer is, once the strategy is fixed
    low = metrics["closeness.length_slope.noisy.content_similarity.ci_low"]
    assert low < 0 < metrics["closeness.length_slope.noisy.content_similarity.ci_high"]
    text = _section(workspace, "Length bias")
    assert re.search(r"- length: slope \+\d\.\d+, 95% CI \[\d", text), text


def test_the_report_names_best_and_worst_personalities_and_plots_them(workspace):
    text = _section(workspace, "Heterogeneity")
    assert "| content_similarity | noisy | chronological | P" in text
    plots = workspace / "reports/plots"
    assert (plots / "personalities_content_similarity.png").stat().st_size > 1000
    rows = json.loads((plots / "personalities_content_similarity.json").read_text())
    assert {r["personality_id"] for r in rows} == set(VOCABULARY)
