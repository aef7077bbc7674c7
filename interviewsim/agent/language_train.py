"""Fit the language layer's encoder: ``python -m interviewsim.agent.language_train CORPUS``.

Needs PyTorch (see :mod:`interviewsim.text.encoder_train`, which fine-tunes and stores); the
interview stage and the evaluation run the result in numpy (:mod:`interviewsim.text.encoder`).

What it does, in order:

1. **One fit, several writers left out.** The encoder is fine-tuned once on ``train`` + ``dev``
   without the writing passes :data:`CALIBRATION_WRITERS` (blind writers now in ``train``), and
   stored as low-rank differences from the base encoder (``encoder_train.compress``).
2. **Out-of-writer scores.** The stored weights score the left-out writers' items through the
   same numpy path an interview uses. A writer the model never read is what the holdout is, so
   the decision is set on text like the one it will meet; and one writer is not enough (the
   thresholds one writer chose lost up to 15 points of precision on the next, round 11).
3. **Threshold and gate.** The layer gives a label when the model's probability reaches the
   label's threshold, or when the rules find it and the probability reaches its gate (0: the
   rules stand alone; the threshold: the model decides alone). For each label, of the pairs on
   :data:`CANDIDATE_THRESHOLDS` (gate at most the threshold) whose decision is at least
   :data:`PRECISION_FLOOR` precise on **each** left-out writer separately (at least
   :data:`MIN_FIRED` items given the label on each), the one with the highest recall on the
   writer it finds least of, ties to the higher threshold then the higher gate; a label no pair
   keeps that precise takes the pair of the best worst-writer precision (then recall, then the
   higher pair). The labels the state machine runs on
   (:data:`~interviewsim.agent.language_model.CODE_OWNED`) keep gate 0, and a closer is set on
   the replies to a turn the rules call an invitation, the only replies whose closer counts
   (:data:`~interviewsim.agent.language_model.AFTER_INVITATION`; the rules alone, so no decision
   depends on the weights before it). The weights, head, thresholds and gates go to
   :data:`~interviewsim.agent.language_model.ENCODER_WEIGHTS`.

Fine-tuning (:func:`interviewsim.text.encoder_train.fine_tune`): :data:`EPOCHS` epochs, binary
cross-entropy over the outputs of the item's kind (a turn's guardrails, invitation and question;
a reply's signals); a reply is read with the turn it answers. The same corpus on the same
machine gives the same weights; another CPU or PyTorch build may differ in the last bits, which
the thresholds and :data:`~interviewsim.text.encoder.DIGITS` absorb. The ``holdout`` split is
never read. About 35 minutes on 2 cores (one fit); ``--thresholds-only`` keeps the committed
encoder and sets thresholds and gates again (a minute); ``--out-of-writer`` scores it on the
writers it never read (:data:`UNREAD_WRITERS`) and prints, per class and writer, the committed
decision beside the one chosen on the other writers (a few minutes). Rerun after changing the
corpus or the rules, then ``python -m interviewsim.agent.language_eval`` and ``make lock``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from interviewsim.agent.guardrails import rule_matches
from interviewsim.agent.invitations import invitation_rule
from interviewsim.agent.language_eval import CorpusItem, load_corpus
from interviewsim.agent.language_model import (
    AFTER_INVITATION,
    CODE_OWNED,
    ENCODER_WEIGHTS,
    OUTPUTS,
    REFIT,
    EncoderClassifier,
    item_pair,
)
from interviewsim.agent.signals import rule_signals
from interviewsim.text import encoder_train
from interviewsim.text.encoder import base_files, read_weights

FIT_SPLITS = ("train", "dev")
CALIBRATION_WRITERS = ("h11-", "h12-")
"""Id prefixes of the writing passes left out of the fit and scored for the thresholds."""
UNREAD_WRITERS = ("h11-", "h12-", "h13-", "h14-", "h15-")
"""The blind writers the committed weights never read: the fit (round 11) left out the
calibration writers, and ``h13-`` to ``h15-`` were written after it (``--out-of-writer``)."""
EPOCHS = 3
PRECISION_FLOOR = 0.92
CANDIDATE_THRESHOLDS = (*(round(0.05 * i, 2) for i in range(2, 20)), 0.96, 0.97, 0.98, 0.99)
"""0.10 to 0.95 by 0.05, then 0.96 to 0.99."""
MIN_FIRED = 5


def writer(item: CorpusItem) -> str:
    """The calibration writer of ``item`` (its id prefix), or "" for any other item."""
    return next((w for w in CALIBRATION_WRITERS if item.id.startswith(w)), "")


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

def _fires(probs: np.ndarray, by_rules: np.ndarray, threshold: float,
           gate: float) -> np.ndarray:
    """The layer's decision: the model alone at ``threshold``, a rule's finding at ``gate``."""
    return (probs >= threshold) | (by_rules & (probs >= gate))


def choose(label: str, probs: np.ndarray, rules: list[set[str]], gold: list[set[str]],
           writers: Sequence[str], min_fired: int = MIN_FIRED,
           overrule: bool = True) -> tuple[float, float]:
    """(threshold, gate) for one output on out-of-writer items (see the module's step 3);
    without ``overrule`` the gate is 0 (the rules' finding always stands)."""
    truth = np.array([label in g for g in gold], dtype=bool)
    by_rules = np.array([label in r for r in rules], dtype=bool)
    groups = [np.array([w == name for w in writers]) for name in sorted(set(writers))]
    best: tuple[tuple[float, float, float], float, float] | None = None
    fallback: tuple[tuple[float, float, float, float], float, float] | None = None
    for threshold in CANDIDATE_THRESHOLDS:
        for gate in (0.0, *(g for g in CANDIDATE_THRESHOLDS if overrule and g <= threshold)):
            fired = _fires(probs, by_rules, threshold, gate)
            counts = [int(fired[g].sum()) for g in groups]
            if not counts or min(counts) < min_fired:
                continue
            precision = min(float(truth[g & fired].mean()) for g in groups)
            recall = min(float((truth & fired)[g].sum()) / max(int(truth[g].sum()), 1)
                         for g in groups)
            if precision >= PRECISION_FLOOR and (best is None
                                                 or (recall, threshold, gate) > best[0]):
                best = ((recall, threshold, gate), threshold, gate)
            if fallback is None or (precision, recall, threshold, gate) > fallback[0]:
                fallback = ((precision, recall, threshold, gate), threshold, gate)
    if best is not None:
        return best[1], best[2]
    if fallback is not None:
        return fallback[1], fallback[2]
    return CANDIDATE_THRESHOLDS[-1], CANDIDATE_THRESHOLDS[-1]


def _column(label: str, scored: Sequence[CorpusItem], probs: np.ndarray, k: int) -> np.ndarray:
    """The model's probabilities for output ``k`` on ``scored``, 0 where its label can never
    count (a closer answering a turn the rules do not call an invitation)."""
    if label not in AFTER_INVITATION:
        return probs[:, k]
    return np.where([invitation_rule(i.after or "") for i in scored], probs[:, k], 0.0)


def gold_labels(item: CorpusItem) -> set[str]:
    """The item's labels, as output names (``turn:praise``)."""
    return {f"{item.kind}:{g}" for g in item.gold()}


def thresholds(scored: Sequence[CorpusItem], probs: np.ndarray,
               by: Callable[[CorpusItem], str] = writer,
               rules: Sequence[set[str]] | None = None) -> list[tuple[float, float]]:
    """(threshold, gate) of every output, each judged on the scored items of its kind, writer
    by writer (``by`` names an item's writer; ``rules``, each item's :func:`rule_labels`, is
    read once here when not given)."""
    rules = [rule_labels(i) for i in scored] if rules is None else rules
    chosen = []
    for k, label in enumerate(OUTPUTS):
        mine = [n for n, i in enumerate(scored) if label.startswith(i.kind + ":")]
        items = [scored[n] for n in mine]
        chosen.append(choose(label, _column(label, items, probs[mine], k),
                             [rules[n] for n in mine], [gold_labels(i) for i in items],
                             [by(i) for i in items], overrule=label not in CODE_OWNED))
    return chosen


def _cells(items: Sequence[CorpusItem], probs: np.ndarray, rules: Sequence[set[str]],
           label: str, pair: tuple[float, float]) -> tuple[int, int, int]:
    """(found, false alarms, positives) of ``label`` on ``items`` decided by ``pair``."""
    mine = [n for n, i in enumerate(items) if label.startswith(i.kind + ":")]
    kept = [items[n] for n in mine]
    column = _column(label, kept, probs[mine], OUTPUTS.index(label))
    truth = np.array([label in gold_labels(i) for i in kept], dtype=bool)
    fired = _fires(column, np.array([label in rules[n] for n in mine], dtype=bool), *pair)
    return int((fired & truth).sum()), int((fired & ~truth).sum()), int(truth.sum())


def out_of_writer_report(items: Sequence[CorpusItem], probs: np.ndarray,
                         committed: Sequence[tuple[float, float]],
                         writers: Sequence[str] = UNREAD_WRITERS) -> str:
    """Per class and writer, precision / recall of the committed thresholds and gates, and of
    those the committed procedure chooses on the other writers (leave one writer out): whether
    choosing the decision on more writers would carry to a writer it never saw."""
    def of(item: CorpusItem) -> str:
        return next(w for w in writers if item.id.startswith(w))
    rules = [rule_labels(i) for i in items]
    rows_of = {w: [n for n, i in enumerate(items) if of(i) == w] for w in writers}
    others = {w: [n for n, i in enumerate(items) if of(i) != w] for w in writers}
    left_out = {w: thresholds([items[n] for n in others[w]], probs[others[w]], of,
                              [rules[n] for n in others[w]]) for w in writers}
    rows = ["| class | " + " | ".join(f"`{w}` committed / others'" for w in writers) + " |",
            "|---|" + "---|" * len(writers)]
    at_bar = [0, 0]
    for k, label in enumerate(OUTPUTS):
        if label == "turn:question":
            continue
        row = []
        for w in writers:
            mine = rows_of[w]
            shown = []
            for side, pair in enumerate((committed[k], left_out[w][k])):
                found, false, positives = _cells([items[n] for n in mine], probs[mine],
                                                 [rules[n] for n in mine], label, pair)
                precision = found / (found + false) if found + false else 0.0
                recall = found / positives if positives else 0.0
                at_bar[side] += precision >= 0.90 and recall >= 0.80
                shown.append(f"{precision:.2f}/{recall:.2f}")
            row.append(" → ".join(shown))
        rows.append(f"| {label} | " + " | ".join(row) + " |")
    cells = (len(OUTPUTS) - 1) * len(writers)
    rows.append(f"\nAt the bar (precision 0.90, recall 0.80): committed {at_bar[0]} of {cells} "
                f"(class, writer) cells; chosen on the other writers {at_bar[1]} of {cells}.")
    return "\n".join(rows)


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m interviewsim.agent.language_train",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--threads", type=int, default=2, help="PyTorch threads (default 2)")
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--out", type=Path, default=ENCODER_WEIGHTS)
    parser.add_argument("--thresholds-only", action="store_true",
                        help="keep the encoder in --out and set its thresholds and gates again")
    parser.add_argument("--out-of-writer", action="store_true",
                        help="score the committed encoder on the writers it never read and "
                        "print each class's precision/recall per writer, committed and chosen "
                        "on the other writers (no fit, no PyTorch; a few minutes)")
    parser.add_argument("--limit", type=int, default=None,
                        help="fit on the first N items only (a smoke test of the command)")
    args = parser.parse_args(argv)
    if args.out_of_writer:
        unread = [i for i in load_corpus(args.corpus) if i.id.startswith(UNREAD_WRITERS)]
        classifier = EncoderClassifier.load(args.out)
        committed = [(classifier.thresholds[o], classifier.gates[o]) for o in OUTPUTS]
        print(out_of_writer_report(unread, classifier.scores([item_pair(i) for i in unread]),
                                   committed))
        return
    items = [i for i in load_corpus(args.corpus) if i.split in FIT_SPLITS]
    held = [i for i in items if writer(i)]
    fit = [i for i in items if not writer(i)]
    if args.limit:  # half from the calibration writers (as many from each), half from the rest
        share = args.limit // (2 * len(CALIBRATION_WRITERS))
        held = [i for w in CALIBRATION_WRITERS
                for i in [h for h in held if writer(h) == w][:share]]
        fit = fit[:args.limit // 2]
    if args.thresholds_only:
        stored = {k: v for k, v in read_weights(args.out, REFIT).items()
                  if k.split(":")[0] in ("up", "down", "delta", "head.weight", "head.bias")}
        print(f"thresholds for the encoder in {args.out} on {len(held)} items of "
              f"{', '.join(CALIBRATION_WRITERS)}")
    else:
        encoder_train.torch_module().set_num_threads(args.threads)
        print(f"fit on {len(fit)} items without {', '.join(CALIBRATION_WRITERS)} "
              f"({len(held)} items)")
        stored = encoder_train.compress(fine_tune(fit, epochs=args.epochs))
    classifier = EncoderClassifier.from_arrays(stored, np.full(len(OUTPUTS), 0.5),
                                               np.zeros(len(OUTPUTS)))
    probs = classifier.scores([item_pair(i) for i in held])
    chosen = thresholds(held, probs)
    for label, (t, g) in zip(OUTPUTS, chosen, strict=True):
        print(f"{label}: threshold {t:.2f}, gate {g:.2f}")
    encoder_train.save(args.out, {**stored, "outputs": np.array(OUTPUTS),
                                  "thresholds": np.array([t for t, _ in chosen]),
                                  "gates": np.array([g for _, g in chosen])})
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main(sys.argv[1:])
