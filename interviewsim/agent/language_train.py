"""Fit the language layer's encoder: ``python -m interviewsim.agent.language_train CORPUS``.

Needs PyTorch (see :mod:`interviewsim.text.encoder_train`, which fine-tunes and stores); the
interview stage and the evaluation run the result in numpy (:mod:`interviewsim.text.encoder`).

What it does, in order:

1. **One fit, one calibration writer.** The encoder is fine-tuned once on ``train`` + ``dev``
   without the writing pass :data:`CALIBRATION_WRITER` (the newest blind writer now in
   ``train``), and stored as low-rank differences from the base encoder
   (``encoder_train.compress``).
2. **Out-of-writer scores.** The stored weights score the calibration writer's items through the
   same numpy path an interview uses. A writer the model never read is what the holdout is, so
   thresholds set here are set on text like the one they will meet.
3. **Thresholds.** For each label, the lowest probability (of :data:`CANDIDATE_THRESHOLDS`) at
   which the layer's decision (the rules' finding or the model's, for a label whose rules are
   :data:`PRECISION_FLOOR` precise on that writer; the model's alone otherwise) is at least
   that precise on the writer's items of that kind; a label none keeps that precise takes the
   threshold of the highest precision, with at least ten items fired. The weights, head and
   thresholds go to :data:`~interviewsim.agent.language_model.ENCODER_WEIGHTS`.

Fine-tuning (:func:`interviewsim.text.encoder_train.fine_tune`): :data:`EPOCHS` epochs, binary
cross-entropy over the outputs of the item's kind (a turn's guardrails, invitation and question;
a reply's signals); a reply is read with the turn it answers. The same corpus on the same
machine gives the same weights; another CPU or PyTorch build may differ in the last bits, which
the thresholds and :data:`~interviewsim.text.encoder.DIGITS` absorb. The ``holdout`` split is
never read. About 35 minutes on 2 cores (one fit). Rerun after changing the
corpus or the rules, then ``python -m interviewsim.agent.language_eval`` and ``make lock``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from interviewsim.agent.guardrails import rule_matches
from interviewsim.agent.invitations import invitation_rule
from interviewsim.agent.language_eval import CorpusItem, load_corpus
from interviewsim.agent.language_model import (
    ENCODER_WEIGHTS,
    OUTPUTS,
    EncoderClassifier,
    item_pair,
)
from interviewsim.agent.signals import rule_signals
from interviewsim.text import encoder_train
from interviewsim.text.encoder import base_files

FIT_SPLITS = ("train", "dev")
CALIBRATION_WRITER = "h11-"
"""Id prefix of the writing pass left out of the fit and scored for the thresholds."""
EPOCHS = 3
PRECISION_FLOOR = 0.92
CANDIDATE_THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(2, 20))
"""0.10 to 0.95."""
MIN_FIRED = 10


def gold_vector(item: CorpusItem) -> np.ndarray:
    gold = item.gold()
    return np.array([label.split(":")[1] in gold and label.startswith(item.kind)
                     for label in OUTPUTS], dtype=np.float32)


def rule_labels(item: CorpusItem) -> set[str]:
    """What the rules alone say, as output names (``turn:praise``, ``reply:upset``); a reply's
    turn is an invitation by the rules alone too, so no fit depends on the weights before it."""
    if item.kind == "turn":
        found = {*(["invitation"] if invitation_rule(item.text) else []),
                 *(r.value for r in rule_matches(item.text))}
    else:
        found = {s.value for s in rule_signals(item.text, item.after,
                                                invitation_rule(item.after))}
    return {f"{item.kind}:{label}" for label in found}


def fine_tune(items: Sequence[CorpusItem], epochs: int = EPOCHS,
              log=print) -> dict[str, np.ndarray]:
    """The encoder fine-tuned on ``items`` (:func:`interviewsim.text.encoder_train.fine_tune`):
    a turn's outputs are its guardrails, invitation and question, a reply's its signals."""
    _, vocab = base_files()
    coded = [vocab.pair(*item_pair(i)) for i in items]
    gold = np.stack([gold_vector(i) for i in items])
    mask = np.stack([[o.startswith(i.kind) for o in OUTPUTS] for i in items]).astype(np.float32)
    return encoder_train.fine_tune(coded, gold, mask, epochs, log=log)


# ---- thresholds ------------------------------------------------------------------------------

def choose(label: str, probs: np.ndarray, rules: list[set[str]], gold: list[set[str]],
           min_fired: int = MIN_FIRED) -> tuple[float, str]:
    """(threshold, mode) for one output on out-of-writer items (see the module's step 2)."""
    truth = np.array([label in g for g in gold], dtype=bool)
    by_rules = np.array([label in r for r in rules], dtype=bool)
    rules_precise = not by_rules.any() or truth[by_rules].mean() >= PRECISION_FLOOR
    mode = "union" if rules_precise else "model"
    best: tuple[float, float] | None = None
    for t in CANDIDATE_THRESHOLDS:
        fired = probs >= t
        if mode == "union":
            fired = fired | by_rules
        if fired.sum() < min_fired:
            continue
        precision = truth[fired].mean()
        if precision >= PRECISION_FLOOR:
            return t, mode
        if best is None or precision > best[0]:
            best = (precision, t)
    return (best[1] if best else CANDIDATE_THRESHOLDS[-1]), mode


def thresholds(scored: Sequence[CorpusItem], probs: np.ndarray) -> list[tuple[float, str]]:
    """(threshold, mode) of every output, each judged on the scored items of its kind."""
    chosen = []
    for k, label in enumerate(OUTPUTS):
        mine = [n for n, i in enumerate(scored) if label.startswith(i.kind + ":")]
        chosen.append(choose(label, probs[mine, k], [rule_labels(scored[n]) for n in mine],
                             [{f"{scored[n].kind}:{g}" for g in scored[n].gold()}
                              for n in mine]))
    return chosen


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m interviewsim.agent.language_train",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--threads", type=int, default=2, help="PyTorch threads (default 2)")
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--out", type=Path, default=ENCODER_WEIGHTS)
    parser.add_argument("--limit", type=int, default=None,
                        help="fit on the first N items only (a smoke test of the command)")
    args = parser.parse_args(argv)
    encoder_train.torch_module().set_num_threads(args.threads)
    items = [i for i in load_corpus(args.corpus) if i.split in FIT_SPLITS]
    held = [i for i in items if i.id.startswith(CALIBRATION_WRITER)]
    fit = [i for i in items if not i.id.startswith(CALIBRATION_WRITER)]
    if args.limit:  # half from the calibration writer, half from the rest
        held, fit = held[:args.limit // 2], fit[:args.limit // 2]
    print(f"fit on {len(fit)} items without {CALIBRATION_WRITER} ({len(held)} items)")
    stored = encoder_train.compress(fine_tune(fit, epochs=args.epochs))
    classifier = EncoderClassifier.from_arrays(stored, np.full(len(OUTPUTS), 0.5),
                                               ["model"] * len(OUTPUTS))
    probs = classifier.scores([item_pair(i) for i in held])
    chosen = thresholds(held, probs)
    for label, (t, mode) in zip(OUTPUTS, chosen, strict=True):
        print(f"{label}: threshold {t:.2f} ({mode})")
    encoder_train.save(args.out, {**stored, "outputs": np.array(OUTPUTS),
                                  "thresholds": np.array([t for t, _ in chosen]),
                                  "modes": np.array([m for _, m in chosen])})
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main(sys.argv[1:])
