"""Deterministic generator of a paper-scale synthetic corpus (fictional filler text).

Default: 1,000 personalities, 23 interviews each on average, about 670,000 QA pairs in total,
written as ``<out>/<personality_id>/prepared_input.json``. Used by the benchmarks only.

    python benchmarks/synthetic_corpus.py --out /tmp/paper_corpus --personalities 1000
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

WORDS = (
    "harbour kiln ledger orchard signal lantern copper meadow ferry workshop rehearsal "
    "notebook season archive bridge market garden studio winter summer river village "
    "engine recipe folder journal stage practice neighbour mentor apprentice routine "
    "budget deadline festival clinic library chessboard bakery tram quarry loom"
).split()


def sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    return (" ".join(words)).capitalize()


def personality(index: int, rng: random.Random, pairs_per_interview: int) -> dict:
    pid = f"SYN{index:05d}"
    interviews = []
    qa = 0
    for i in range(rng.randint(18, 28)):
        pairs = []
        for _ in range(max(1, pairs_per_interview + rng.randint(-6, 6))):
            qa += 1
            pairs.append({
                "qa_id": f"{pid}-QA{qa:05d}",
                "question": sentence(rng, 12) + "?",
                "response": ". ".join(sentence(rng, 14) for _ in range(3)) + ".",
                "tags": [rng.choice(WORDS)],
            })
        interviews.append({"interview_id": f"{pid}-INT{i:03d}", "sequence": i,
                           "qa_pairs": pairs})
    rng.shuffle(interviews)
    return {
        "schema_version": "1.0",
        "personality_id": pid,
        "personality": {"profile": sentence(rng, 15), "long_profile": sentence(rng, 60)},
        "interviews": interviews,
    }


def write_corpus(out: Path, personalities: int, pairs_per_interview: int = 29,
                 seed: int = 2026) -> int:
    """Write the corpus; returns the number of QA pairs."""
    total = 0
    for index in range(personalities):
        rng = random.Random(f"{seed}:{index}")
        doc = personality(index, rng, pairs_per_interview)
        folder = out / doc["personality_id"]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "prepared_input.json").write_text(json.dumps(doc), encoding="utf-8")
        total += sum(len(i["qa_pairs"]) for i in doc["interviews"])
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--personalities", type=int, default=1000)
    parser.add_argument("--pairs-per-interview", type=int, default=29)
    args = parser.parse_args()
    total = write_corpus(args.out, args.personalities, args.pairs_per_interview)
    print(f"wrote {args.personalities} personalities, {total} QA pairs to {args.out}")


if __name__ == "__main__":
    main()
