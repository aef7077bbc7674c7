"""Fit the encoder matcher: ``python -m interviewsim.prep.encoder_train PAIRS... --set SET``.

Needs PyTorch (see :mod:`interviewsim.text.encoder_train`, which fine-tunes and stores); prep runs
the result in numpy (:mod:`interviewsim.prep.encoder_match`).

Training pairs are (requirement, evidence item) with two targets, ``full`` (the item shows the
requirement: gold FULL) and ``related`` (gold FULL or PARTIAL), from two sources:

- PAIRS: JSON Lines files of single pairs written for this (``tests/data/prep_pairs/``: one
  requirement, one piece of evidence in the candidate's words, a verdict and its kind), by
  helper sessions from the verdict definitions alone, never from this code;
- the tuning parts of the labelled SET (every part but ``holdout``, which is never read): each
  posting's requirements as the lexical extractor gives them, each gold requirement found by its
  key phrase, paired with the items its label cites (with the label's verdict: for a GAP these
  are the items a careless reader would take as proof) and with :data:`NEGATIVES` other items
  of the same file drawn by a seeded generator (neither full nor related).

In order: (1) fit once without the parts in :data:`HELD_PARTS` (the newest blind tuning parts);
(2) run the matcher on those parts with every pair of thresholds of :data:`GRID` and keep the
pair with the fewest errors among those whose false-proof rate is at most
:data:`FALSE_PROOF_CEILING` (if none is, the lowest false-proof rate), fewer false gaps breaking
ties; (3) save the weights with those thresholds to
:data:`~interviewsim.prep.encoder_match.MATCHER_WEIGHTS`. The held parts calibrate and are never
fitted, so the thresholds are set on postings and candidates the encoder never read.
:data:`EPOCHS` epochs; about 55 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from interviewsim.prep import evaluation
from interviewsim.prep.encoder_match import (
    MATCHER_WEIGHTS,
    MAX_TOKENS,
    OUTPUTS,
    EncoderMatcher,
    match_encoder,
)
from interviewsim.prep.extraction import extract_lexical
from interviewsim.prep.matching import matched_text
from interviewsim.prep.models import PrepSettings, normalize
from interviewsim.text import encoder_train
from interviewsim.text.encoder import AdaptedEncoder, base_files

HELD_PARTS = ("tune13", "tune14")
NEGATIVES = 2
EPOCHS = 2
SEED = 0
FALSE_PROOF_CEILING = 0.05
GRID = tuple(round(0.05 * i, 2) for i in range(4, 20))
"""0.20 to 0.95, for each threshold."""

Pair = tuple[str, str, float, float]
"""(requirement, item text, full, related)."""


def written_pairs(path: Path) -> list[Pair]:
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            verdict = row["verdict"]
            pairs.append((row["requirement"], row["evidence"], float(verdict == "FULL"),
                          float(verdict in ("FULL", "PARTIAL"))))
        except (json.JSONDecodeError, KeyError) as exc:
            sys.exit(f"{path}: line {number}: not a pair ({exc})")
    return pairs


def part_pairs(cases: Sequence[evaluation.Case], seed: int = SEED) -> list[Pair]:
    rng = np.random.default_rng(seed)
    pairs: list[Pair] = []
    for case in cases:
        requirements = extract_lexical(case.posting)
        texts = [(r.text, normalize(r.text)) for r in requirements]
        items = {item.id: item for item in case.evidence}
        for label in case.labels:
            phrase = normalize(label.key_phrase)
            text = next((raw for raw, norm in texts if phrase in norm), label.requirement)
            full = float(label.verdict == "FULL")
            related = float(label.verdict in ("FULL", "PARTIAL"))
            cited = [i for i in label.evidence if i in items]
            pairs += [(text, matched_text(items[i]), full, related) for i in cited]
            others = sorted(set(items) - set(cited))
            for i in rng.permutation(len(others))[:NEGATIVES]:
                pairs.append((text, matched_text(items[others[i]]), 0.0, 0.0))
    return pairs


def fit(pairs: Sequence[Pair], epochs: int) -> dict[str, np.ndarray]:
    _, vocab = base_files()
    coded = [vocab.pair(r, e, MAX_TOKENS) for r, e, _, _ in pairs]
    gold = np.array([[f, rel] for _, _, f, rel in pairs], dtype=np.float32)
    tuned = encoder_train.fine_tune(coded, gold, np.ones_like(gold), epochs)
    return encoder_train.compress(tuned, positions=MAX_TOKENS)


def choose(reader: EncoderMatcher, cases: Sequence[evaluation.Case]) -> tuple[float, float]:
    """The thresholds (see the module's step 1), each pair scored on ``cases``."""
    ranked = []
    for full in GRID:
        for related in GRID:
            matcher = reader.with_thresholds(full, related)
            tally = evaluation.evaluate(cases, lambda posting, evidence, m=matcher: _run(
                m, posting, evidence))
            false_proof = tally.rate("false_proof").value or 0.0
            errors = sum(g != s for g, s in tally.pairs)
            false_gap = tally.rate("false_gap").value or 0.0
            ranked.append((max(false_proof, FALSE_PROOF_CEILING), errors, false_gap,
                           full, related))
    best = min(ranked)
    print(f"thresholds full {best[3]:.2f}, related {best[4]:.2f}: false proof "
          f"{'within' if best[0] <= FALSE_PROOF_CEILING else 'above'} "
          f"{FALSE_PROOF_CEILING:.0%}, {best[1]} errors, false gap {best[2]:.2f}")
    return best[3], best[4]


def _run(reader: EncoderMatcher, posting: str, evidence):
    requirements = extract_lexical(posting)
    return requirements, match_encoder(requirements, evidence, PrepSettings(), reader)


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m interviewsim.prep.encoder_train",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", type=Path, nargs="+", help="JSON Lines files of written pairs")
    parser.add_argument("--set", dest="set_dir", type=Path, required=True,
                        help="the labelled set (its holdout part is never read)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--out", type=Path, default=MATCHER_WEIGHTS)
    parser.add_argument("--limit", type=int, default=None,
                        help="use the first N pairs of each source only (a smoke test)")
    args = parser.parse_args(argv)
    encoder_train.torch_module().set_num_threads(args.threads)
    written = [p for path in args.pairs for p in written_pairs(path)][:args.limit]
    parts = {name: evaluation.load_part(folder)
             for name, folder in evaluation.parts(args.set_dir).items() if name != "holdout"}
    tuning = [c for name, cases in parts.items() if name not in HELD_PARTS for c in cases]
    held = [c for name, cases in parts.items() if name in HELD_PARTS for c in cases]
    print(f"fit without {', '.join(HELD_PARTS)}: {len(written)} written pairs and "
          f"{len(part_pairs(tuning))} from {len(tuning)} postings", flush=True)
    stored = fit(written + part_pairs(tuning)[:args.limit], args.epochs)
    reader = EncoderMatcher(AdaptedEncoder.from_arrays(stored, MAX_TOKENS), 0.5, 0.5)
    full, related = choose(reader, held)
    encoder_train.save(args.out, {**stored, "outputs": np.array(OUTPUTS),
                                  "thresholds": np.array([full, related])})
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main(sys.argv[1:])
