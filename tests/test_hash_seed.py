"""Lexical artifacts do not depend on the interpreter's hash seed: the claims and style stages,
run in two subprocesses with different ``PYTHONHASHSEED``, writes byte-identical files (set iteration
order changes with the seed; the scores are ``math.fsum`` over sorted terms, ties ordered by
corpus position)."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

from interviewsim.data.jsonio import read_jsonl, write_jsonl_atomic
from tests.stage_runner import invoke, make_workspace

WORDS = ("kiln glaze clay porcelain firing harbour sail rope tide orchard cider pruning "
         "ladder chess rook endgame bakery sourdough crust oven flour violin rosin bow "
         "c++ a/b sql/python node.js follow-up o'brien").split()


def _spoken(rng: random.Random, n: int) -> str:
    """A long spoken-style answer: many repeated and shared terms, so scores tie often."""
    sentences = []
    for _ in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(6, 14))]
        sentences.append("Well, " + " ".join(words) + rng.choice([".", "?", "!", " — you know."]))
    return " ".join(sentences)


def _doc(pid: str, rng: random.Random) -> dict:
    interviews = [{"interview_id": f"{pid}-I{i}", "sequence": i, "qa_pairs": [
        {"qa_id": f"{pid}-Q{i}-{j}", "question": f"What about {rng.choice(WORDS)}?",
         "response": _spoken(rng, rng.randint(8, 30)), "tags": []} for j in range(4)]}
        for i in range(5)]
    return {"schema_version": "1.0", "personality_id": pid,
            "personality": {"profile": "A person.", "long_profile": "A person with a trade."},
            "interviews": interviews}


LEXICAL = {"claims": "claims", "style": "style"}
"""The stages that score text without a model: stage -> its output folder."""


def _run(root: Path, seed: str) -> dict[str, bytes]:
    env = {**os.environ, "PYTHONHASHSEED": seed, "INTERVIEWSIM_PROGRESS": "0"}
    files = {}
    for stage, folder in LEXICAL.items():
        subprocess.run([sys.executable, "-m", "stages", stage], cwd=root, env=env, check=True,
                       capture_output=True)
        out = root / "data/artifacts" / folder
        files.update({f"{folder}/{p.name}": p.read_bytes() for p in sorted(out.iterdir())
                      if not p.name.startswith(".")})
    return files


def test_lexical_stages_are_byte_identical_under_two_hash_seeds(tmp_path: Path) -> None:
    rng = random.Random(5)
    root = make_workspace(tmp_path / "w", [_doc(f"P{i}", rng) for i in range(3)],
                          "tests.scripted_models:echo_answer")
    assert invoke(root, "prepare").exit_code == 0
    answers = [{"personality_id": r["personality_id"], "strategy": "no-context",
                "qa_id": r["qa_id"], "interview_id": r["interview_id"],
                "question": r["question"], "response": _spoken(rng, 12), "valid": True,
                "invalid_reason": None, "calls": []}
               for r in read_jsonl(root / "data/artifacts/prepared/heldout_pairs.jsonl")]
    write_jsonl_atomic(root / "data/artifacts/generated/answers.jsonl", answers)
    other = tmp_path / "other"
    shutil.copytree(root, other)
    first, second = _run(root, "1"), _run(other, "3")
    assert {"claims/claims.jsonl", "claims/personality_metrics.jsonl",
            "style/personality_metrics.jsonl"} <= first.keys()
    assert first == second
    links = list(read_jsonl(root / "data/artifacts/claims/claims.jsonl"))
    assert len(links) > 50 and any(len(link["cited_qa_ids"]) > 1 for link in links)


SCORES = """
import random, sys
sys.path.insert(0, {root!r})
from tests.test_hash_seed import WORDS, _spoken
from interviewsim.text.coverage import LexicalCorpus
rng = random.Random(9)
corpus = LexicalCorpus([(f"q{{i}}", _spoken(rng, 6)) for i in range(60)])
for _ in range(40):
    print([(s.item_id, repr(s.score)) for s in corpus.rank(_spoken(rng, 2))])
"""


def test_coverage_scores_do_not_depend_on_the_hash_seed() -> None:
    """Every bit of every score, and the order of tied items, under two seeds."""
    code = SCORES.format(root=str(Path(__file__).resolve().parents[1]))
    outputs = [subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                              text=True, env={**os.environ, "PYTHONHASHSEED": seed}).stdout
               for seed in ("1", "3")]
    assert outputs[0] and outputs[0] == outputs[1]
