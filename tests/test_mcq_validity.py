"""Validity of the MCQ numbers: position bias, rotated option orders and the MCQ controls.

Units first (rotation, letter statistics, the params bound), then the real ``mcq-answer``
stage with scripted answerers: ``always_a`` answers A to everything, ``knows_answer`` reads the
correct option off the item (the builder's correct text is "The kiln ran N hours"), and
``reads_context`` picks the option whose hours its context states (else the negation). Items
are built by ``tests.test_mcq_build.respond``: 4 per personality, 2 held-out interviews each.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from interviewsim.config.params import parse_params
from interviewsim.data.jsonio import read_jsonl
from interviewsim.data.records import ControlMetric, PersonalityMetric
from interviewsim.errors import ConfigError
from interviewsim.llm.client import ModelClient
from interviewsim.llm.types import ChatRequest
from interviewsim.mcq.controls import control_context
from interviewsim.mcq.models import McqItem, McqOption
from interviewsim.mcq.position import ItemAnswer, letter_stats, position_bias
from interviewsim.mcq.rotation import condition_metrics, robust_items, rotate_item
from stages.cli import cli
from tests.factories import make_doc, write_doc
from tests.test_mcq_build import respond

STRATEGIES = ["no-context", "chronological"]
PLAIN = ("mcq_accuracy", "mcq_reward")
ROBUST = ("mcq_accuracy_robust", "mcq_reward_robust")
ANSWERS = Path("data/artifacts/mcq_answers")
CORRECT_TEXT = re.compile(r"^The kiln ran \d+ hours$")


# --- scripted answerers (referenced from params.yaml as tests.test_mcq_validity:<name>) ---

def _options(user: str) -> list[dict[str, str]]:
    """Each question's options, label -> text, from a grouped answering prompt."""
    blocks = re.split(r"\n\n(?=Q\d+: )", user.split("Questions:\n\n", 1)[1])
    return [dict(re.findall(r"^([A-D])\. (.*)$", block, re.MULTILINE)) for block in blocks]


def _answering(pick):
    """A script: item building goes to the shared builder script, answering to ``pick``."""
    def script(request: ChatRequest) -> str:
        user = request.messages[-1].content
        if "<transcript>" in user or "<item>" in user:
            return respond(request)
        return "\n".join(f"Q{n}: {pick(options, user)}"
                         for n, options in enumerate(_options(user), start=1))
    return script


always_a = _answering(lambda options, user: "A")
knows_answer = _answering(lambda options, user: next(
    label for label, text in options.items() if CORRECT_TEXT.match(text)))


def _from_context(options: dict[str, str], user: str) -> str:
    context = re.search(r"<context>(.*?)</context>", user, re.S)
    hours = set(re.findall(r"ran (\d+) hours", context.group(1) if context else ""))
    stated = [label for label, text in options.items()
              if CORRECT_TEXT.match(text) and text.split()[3] in hours]
    return stated[0] if stated else next(lab for lab, t in options.items() if "never" in t)


reads_context = _answering(_from_context)


# --- units ---

def item(correct: str = "B") -> McqItem:
    roles = ["opposite_negation", "near_miss", "plausible_misconception"]
    order = {label: "correct" if label == correct else roles.pop(0) for label in "ABCD"}
    options = tuple(McqOption(label=label, role=role, text=f"{role} text")
                    for label, role in order.items())
    return McqItem(item_id="P/q", personality_id="P", qa_id="q", interview_id="I",
                   option_count=4, question="?", options=options, correct_label=correct)


def test_a_rotation_moves_every_option_down_and_the_correct_label_with_it():
    base = item("B")
    once = rotate_item(base, 1)
    assert [o.label for o in once.options] == ["A", "B", "C", "D"]
    assert [o.text for o in once.options] == [base.options[i].text for i in (3, 0, 1, 2)]
    assert once.correct_label == "C" and once.role_of("C") == "correct"
    assert rotate_item(base, 0) is base and rotate_item(base, 4) is base
    assert sorted(rotate_item(base, r).correct_label for r in range(4)) == list("ABCD")


def test_robust_scores_are_the_worst_over_rotations_and_equal_the_plain_ones_unrotated():
    def record(rotation: int, accuracy: int, reward: float, malformed: bool = False) -> dict:
        return {"interview_id": "I", "rotation": rotation, "items": [
            {"item_id": "P/q", "accuracy": accuracy, "reward": reward, "malformed": malformed}]}
    one = condition_metrics([record(0, 1, 1.0)])
    assert [v[1:] for v in one[:2]] == [v[1:] for v in one[2:]] == [(1.0, 1, 0), (1.0, 1, 0)]
    both = dict((m, tuple(v)) for m, *v in condition_metrics(
        [record(0, 1, 1.0), record(1, 0, -0.5, malformed=True)]))
    assert both["mcq_accuracy"] == (1.0, 1, 0) and both["mcq_reward"] == (1.0, 1, 0)
    assert both["mcq_accuracy_robust"] == (0.0, 1, 1) and both["mcq_reward_robust"] == (-0.5, 1, 1)


def test_letter_statistics_break_ties_by_label_and_count_malformed_as_wrong():
    def answer(selected: str | None, correct: str, accuracy: int) -> ItemAnswer:
        return ItemAnswer("m", "s", selected, correct, accuracy, 0)
    answers = [answer("B", "B", 1), answer("C", "A", 0), answer(None, "B", 0),
               answer("B", "C", 0), answer("C", "C", 1)]
    stats = letter_stats(answers, "ABCD")
    assert stats["letters"] == {"A": 0, "B": 2, "C": 2, "D": 0}
    assert (stats["answered"], stats["malformed"], stats["top_letter"]) == (5, 1, "B")
    assert stats["top_letter_share"] == 0.5
    # letter habit B 2/5, C 2/5, malformed 1/5 against keys B 2/5, C 2/5: 0.16 + 0.16
    assert stats["position_baseline_accuracy"] == 0.32
    assert (stats["accuracy"], stats["robust_accuracy"]) == (0.4, 0.0)
    empty = position_bias([], ["z", "m"], ["s"], 3, 1)
    assert list(empty["answerers"]) == ["m", "z"] and empty["chance"] == 0.333333
    assert position_bias([], ["m"], ["s"], 4, 2)["robust_chance"] == 0.0625
    assert empty["answerers"]["m"]["strategies"]["s"]["top_letter"] is None


@pytest.mark.parametrize("rotations, ok", [(1, True), (4, True), (0, False), (5, False)])
def test_rotations_run_from_one_to_the_option_count(rotations, ok):
    data = {"mcq": {"option_count": 4, "rotations": rotations}}
    if ok:
        assert parse_params(data).mcq.rotations == rotations
    else:
        with pytest.raises(ConfigError, match="mcq"):
            parse_params(data)
    assert parse_params({}).mcq.rotations == 1
    with pytest.raises(ConfigError, match="more than option_count 3"):
        parse_params({"mcq": {"option_count": 3, "rotations": 4}})


# --- the stage ---

def write_params(root: Path, answerers: dict[str, str], **overrides) -> None:
    providers = {"local": {"kind": "scripted", "script": "tests.test_mcq_build:respond"}}
    for name, script in answerers.items():
        providers[name] = {"kind": "scripted", "script": f"tests.test_mcq_validity:{script}"}
    data = {
        "data": {"personalities": "in", "test_fraction": 0.2},
        "strategies": STRATEGIES, "controls": [],
        "context": {"chronological_pairs": 3},
        "cache": {"path": "cache/responses.sqlite", "embeddings_dir": "cache/embeddings"},
        "providers": providers,
        "models": {"mcq_builder": {"provider": "local", "model": "builder"},
                   "mcq_answerers": [{"name": n, "provider": n, "model": n} for n in answerers]},
        **overrides,
    }
    (root / "params.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, [*args, "--params", "params.yaml"])


def ok(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result.output


@pytest.fixture
def built(tmp_path, monkeypatch) -> Path:
    """Prepared personalities P1, P2 with their MCQ items built."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("INTERVIEWSIM_PROGRESS", "0")
    for pid in ("P1", "P2"):
        write_doc(tmp_path / "in", make_doc(pid, interviews=10, pairs=5))
    write_params(tmp_path, {"always": "always_a"})
    ok("prepare")
    ok("mcq-build")
    return tmp_path


def answer(root: Path, answerers: dict[str, str], **overrides) -> dict:
    write_params(root, answerers, **overrides)
    ok("mcq-answer")
    out = root / ANSWERS
    return {"answers": list(read_jsonl(out / "answers.jsonl")),
            "metrics": list(read_jsonl(out / "personality_metrics.jsonl")),
            "position": json.loads((out / "position_bias.json").read_text()),
            "control_answers": list(read_jsonl(out / "control_answers.jsonl")),
            "control_metrics": list(read_jsonl(out / "control_metrics.jsonl"))}


def rows(metrics: list[dict], names: tuple[str, ...]) -> list[dict]:
    return [m for m in metrics if m["metric"] in names]


def items(root: Path) -> list[McqItem]:
    return [McqItem.model_validate(r)
            for r in read_jsonl(root / "data/artifacts/mcq_items/mcqs.jsonl")]


def test_always_a_scores_exactly_its_position_baseline(built):
    out = answer(built, {"always": "always_a"})
    kept = items(built)
    share = sum(i.correct_label == "A" for i in kept) / len(kept)
    assert 0 < share < 1  # the fixture has items with A correct and items without
    entry = out["position"]["answerers"]["always"]
    assert (out["position"]["option_count"], out["position"]["chance"]) == (4, 0.25)
    assert entry["answered"] == len(kept) * len(STRATEGIES) and entry["malformed"] == 0
    assert entry["letters"] == {"A": entry["answered"], "B": 0, "C": 0, "D": 0}
    assert (entry["top_letter"], entry["top_letter_share"]) == ("A", 1.0)
    assert entry["accuracy"] == entry["position_baseline_accuracy"] == round(share, 6)
    assert entry["robust_accuracy"] == entry["accuracy"]  # one rotation: nothing to be robust to
    assert entry["position_p"] == 1.0  # always A: every shuffle scores the same
    assert set(entry["strategies"]) == set(STRATEGIES)
    for strategy in entry["strategies"].values():
        assert strategy["accuracy"] == strategy["position_baseline_accuracy"] == round(share, 6)
    for row in rows(out["metrics"], ("mcq_accuracy",)):
        own = [i for i in kept if i.personality_id == row["personality_id"]]
        assert row["value"] == sum(i.correct_label == "A" for i in own) / len(own)


def test_rotating_through_every_position_leaves_always_a_no_robust_item(built):
    once = answer(built, {"always": "always_a"})
    every = answer(built, {"always": "always_a"}, mcq={"rotations": 4})
    assert rows(every["metrics"], PLAIN) == rows(once["metrics"], PLAIN)  # headline unchanged
    for row in rows(every["metrics"], ROBUST):
        worst = 0.0 if row["metric"] == "mcq_accuracy_robust" else -1.0  # A hits every role
        assert (row["value"], row["n"], row["invalid"]) == (worst, 4, 0)
    assert [r for r in every["answers"] if r["rotation"] == 0] == once["answers"]  # calls too
    assert len(every["answers"]) == 4 * len(once["answers"])
    keys = [(r["personality_id"], r["strategy"], r["answerer"], r["interview_id"], r["rotation"])
            for r in every["answers"]]
    assert keys == sorted(keys)
    roles: dict[tuple[str, str], list[str]] = {}
    for record in every["answers"]:
        for scored in record["items"]:
            roles.setdefault((record["strategy"], scored["item_id"]), []).append(
                scored["selected_role"])
    assert all(sorted(r) == ["correct", "near_miss", "opposite_negation",
                             "plausible_misconception"] for r in roles.values())
    entry = every["position"]["answerers"]["always"]
    assert entry["robust_accuracy"] == 0.0 and every["position"]["rotations"] == 4
    assert entry["accuracy"] == once["position"]["answerers"]["always"]["accuracy"]


def test_knowing_the_answer_is_robust_to_every_rotation(built):
    out = answer(built, {"knows": "knows_answer"}, mcq={"rotations": 4})
    assert {row["value"] for row in rows(out["metrics"], PLAIN + ROBUST)} == {1.0}
    assert out["position"]["answerers"]["knows"]["robust_accuracy"] == 1.0
    chosen: dict[str, set[str]] = {}
    for record in out["answers"]:
        for scored in record["items"]:
            chosen.setdefault(f"{record['strategy']}/{scored['item_id']}", set()).add(
                scored["selected_label"])
    assert all(labels == set("ABCD") for labels in chosen.values())  # the answer moved


GOLDEN_ANSWERS = "a01b7d53055b6d21f6f39596b23faef097bd3a7ac0729213374a7721988d80b5"
GOLDEN_METRICS = "f20efc8dde1f73ac8dc68d2a5c7669873a15eeddb632c2195b0603079010947a"
"""sha256 of answers.jsonl (records without ``rotation``) and of the mcq_accuracy/mcq_reward
lines of personality_metrics.jsonl, as the stage wrote them before rotations, controls and
position bias existed, for the fixture below. A change here means k=1 no longer reproduces the
unrotated experiment (or its cached responses); if a prompt or record format was changed on
purpose, recompute them."""


def test_one_rotation_reproduces_the_unrotated_stage_byte_for_byte(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("INTERVIEWSIM_PROGRESS", "0")
    for pid in ("P2", "P1"):
        write_doc(tmp_path / "in", make_doc(pid, interviews=10, pairs=5))
    params = {
        "data": {"personalities": "in", "test_fraction": 0.2}, "controls": [],
        "context": {"chronological_pairs": 3, "random_pairs": 3, "retrieval_pairs": 2,
                    "hybrid_retrieved": 2, "hybrid_recent": 2},
        "cache": {"path": "cache/responses.sqlite", "embeddings_dir": "cache/embeddings"},
        "providers": {"local": {"kind": "scripted", "script": "tests.test_mcq_build:respond"}},
        "models": {"mcq_builder": {"provider": "local", "model": "scripted"},
                   "mcq_answerers": [{"name": "first", "provider": "local", "model": "scripted"}]},
    }
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    for command in ("prepare", "mcq-build", "mcq-answer"):
        ok(command)
    records = list(read_jsonl(tmp_path / ANSWERS / "answers.jsonl"))
    assert {r.pop("rotation") for r in records} == {0}
    canonical = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)
    lines = (tmp_path / ANSWERS / "personality_metrics.jsonl").read_text().splitlines()
    plain = "".join(line + "\n" for line in lines if json.loads(line)["metric"] in PLAIN)
    assert len(records) == 28 and plain.count("\n") == 28
    assert hashlib.sha256(canonical.encode()).hexdigest() == GOLDEN_ANSWERS
    assert hashlib.sha256(plain.encode()).hexdigest() == GOLDEN_METRICS


# --- controls ---

def write_controls(root: Path, drop: str | None = None) -> None:
    """The controls stage's answers.jsonl: oracle = the person's own held-out response;
    impostor = the other personality's answer one interview earlier (other hours)."""
    prepared = root / "data/artifacts/prepared"
    pairs = {r["qa_id"]: r for name in ("train_pairs.jsonl", "heldout_pairs.jsonl")
             for r in read_jsonl(prepared / name)}
    heldout = list(read_jsonl(prepared / "heldout_pairs.jsonl"))
    records = []
    for pid in ("P1", "P2"):
        for control in ("impostor", "oracle"):
            for pair in (p for p in heldout if p["personality_id"] == pid):
                if pair["qa_id"] == drop:
                    continue
                _, i, j = re.fullmatch(r"(P\d)-Q(\d+)-(\d+)", pair["qa_id"]).groups()
                other = "P2" if pid == "P1" else "P1"
                source = (pair if control == "oracle"
                          else pairs[f"{other}-Q{int(i) - 1}-{j}"])
                records.append({
                    "personality_id": pid, "control": control, "qa_id": pair["qa_id"],
                    "interview_id": pair["interview_id"], "question": pair["question"],
                    "response": source["response"],
                    "source_personality_id": source["personality_id"],
                    "source_qa_id": source["qa_id"],
                    "similarity": None if control == "oracle" else 0.83})
    target = root / "data/artifacts/controls/answers.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_the_oracle_context_beats_the_impostor_and_stays_in_the_control_files(built):
    write_controls(built)
    out = answer(built, {"reader": "reads_context"}, controls=["oracle", "impostor"],
                 mcq={"rotations": 2})
    metrics = [ControlMetric.model_validate(m) for m in out["control_metrics"]]
    assert {m.metric for m in metrics} == set(PLAIN + ROBUST)
    assert len(metrics) == 2 * 2 * 4  # personalities x controls x metrics
    value = {(m.personality_id, m.control, m.metric): m.value for m in metrics}
    for pid in ("P1", "P2"):
        for metric in PLAIN + ROBUST:
            assert value[pid, "oracle", metric] > value[pid, "impostor", metric]
        assert value[pid, "oracle", "mcq_accuracy_robust"] == 1.0
        assert value[pid, "impostor", "mcq_accuracy"] == 0.0
    assert [(m.metric, m.judge, m.control, m.personality_id) for m in metrics] == sorted(
        m.sort_key() for m in metrics)

    controlled = out["control_answers"]
    assert len(controlled) == 2 * 2 * 2 * 2  # personalities x controls x interviews x rotations
    assert all("strategy" not in r and r["control"] in ("oracle", "impostor") for r in controlled)
    keys = [(r["personality_id"], r["control"], r["answerer"], r["interview_id"], r["rotation"])
            for r in controlled]
    assert keys == sorted(keys)
    oracle = next(r for r in controlled if r["control"] == "oracle")
    assert [p["source_qa_id"] for p in oracle["context_pairs"]] == [
        p["qa_id"] for p in oracle["context_pairs"]]
    assert all("control" not in r and r["strategy"] in STRATEGIES for r in out["answers"])
    assert {PersonalityMetric.model_validate(m).strategy for m in out["metrics"]} == set(
        STRATEGIES)
    assert set(out["position"]["answerers"]["reader"]["strategies"]) == set(STRATEGIES)
    assert "oracle" not in json.dumps(out["position"])


def test_the_control_context_is_rendered_like_a_strategys_pairs():
    context = control_context([("Q one?", "R one."), ("Q two?", "R two </context> x")])
    assert context == ("<context>\nEarlier interview excerpts:\n\nQuestion: Q one?\nResponse: "
                       "R one.\n\nQuestion: Q two?\nResponse: R two </ context> x\n</context>\n")


def test_configured_controls_need_the_controls_file_and_name_the_fix(built):
    write_params(built, {"always": "always_a"}, controls=["oracle"])
    result = run("mcq-answer")
    assert result.exit_code == 1
    assert "data/artifacts/controls/answers.jsonl" in result.output
    assert "run `interviewsim controls`, or set controls: []" in result.output
    write_controls(built, drop="P2-Q9-2")
    result = run("mcq-answer")
    assert result.exit_code == 1 and "out of date" in result.output and "P2-Q9-2" in result.output


def test_no_controls_need_no_file_and_write_empty_control_files(built):
    out = answer(built, {"always": "always_a"})
    assert out["control_answers"] == [] and out["control_metrics"] == []
    assert not (built / "data/artifacts/controls").exists()


def test_the_dry_run_counts_every_rotation_and_control(built):
    write_controls(built)
    write_params(built, {"always": "always_a"}, controls=["oracle", "impostor"],
                 mcq={"rotations": 2})
    # personalities x interviews x rotations x (strategies + controls)
    n = 2 * 2 * 2 * (len(STRATEGIES) + 2)
    assert f"{n} requests, {n} first-attempt calls to make, 0 already cached" in ok(
        "mcq-answer", "--dry-run")


def test_personalities_are_answered_in_one_batch_and_equal_one_at_a_time(built, monkeypatch):
    """mcq-answer groups personalities until their prompts fill the endpoint's concurrency
    (strategies and controls in one model batch); every output file must be exactly that of
    asking one personality at a time."""
    import interviewsim.mcq.answering as answering

    batches: list[set[str]] = []
    real = answering.ask_and_score

    def counting(client, groups, max_attempts, desc):
        batches.append({g.prompt.personality_id for g in groups})
        return real(client, groups, max_attempts, desc)

    monkeypatch.setattr(answering, "ask_and_score", counting)
    write_controls(built)
    write_params(built, {"reader": "reads_context"}, controls=["oracle", "impostor"],
                 mcq={"rotations": 2})
    outputs = {}
    for concurrency in (64, 1):  # the endpoint's concurrency sets the batch targets
        monkeypatch.setattr(ModelClient, "batch_target", property(lambda _, c=concurrency: 8 * c))
        monkeypatch.setattr(ModelClient, "first_batch_target", property(lambda _, c=concurrency: c))
        batches.clear()
        ok("mcq-answer")
        outputs[concurrency] = ({p.name: p.read_bytes() for p in (built / ANSWERS).iterdir()
                                 if p.name not in ("summary.json", "run_log.json")},
                                list(batches))
    together, alone = outputs[64][1], outputs[1][1]
    assert together == [{"P1", "P2"}]  # 2 x 2 x 2 x (2 + 2) = 32 prompts fit one batch
    assert alone == [{"P1"}, {"P2"}]  # a first batch of one wave (1 prompt) ends at P1
    assert outputs[64][0] == outputs[1][0]
    assert len(outputs[64][0]) == 5


def test_the_position_baseline_does_not_rise_with_knowledge():
    """A guesser and a half-knower with the same letter habit get the same baseline, and only
    the knower beats it by the permutation test."""
    keys = list("ABCDABCDABCDABCDABCD")
    guesser = [ItemAnswer("g", "s", "A", k, int(k == "A"), 0) for k in keys]
    knower = [ItemAnswer("k", "s", k if i % 2 else "A", k, int(i % 2 == 1 or k == "A"), 0)
              for i, k in enumerate(keys)]
    g, k = letter_stats(guesser, "ABCD"), letter_stats(knower, "ABCD")
    assert g["position_baseline_accuracy"] == 0.25
    assert g["position_p"] == 1.0 and k["position_p"] < 0.05


def test_an_item_missing_a_rotation_is_an_error():
    def record(rotation: int, item_ids: list[str]) -> dict:
        return {"interview_id": "I", "rotation": rotation, "items": [
            {"item_id": i, "accuracy": 1, "reward": 1.0, "malformed": False} for i in item_ids]}
    with pytest.raises(ValueError, match="miss a rotation"):
        robust_items([record(0, ["a", "b"]), record(1, ["a"])])
