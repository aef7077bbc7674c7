"""Precision and recall of the agent's language layer on a labelled corpus.

The corpus (JSON Lines) holds interviewer turns, labelled question or not, invitation or not
and with the guardrail rules they break, and candidate replies, labelled with their signals
(none: a normal answer), each reply with the interviewer turn it answers. Every class is scored
one-vs-rest: an item may carry several labels, and a reply without signals is the class
``normal``. Each rate comes with its 95% Wilson interval, since a class of 30 items moves a
rate by several points per item.

``python -m interviewsim.agent.language_eval CORPUS`` prints the tables docs/AGENT.md shows:
one per split, then a sample of errors per class (from ``dev``: the holdout is only counted).
``... CORPUS --second FILE`` prints how far a second annotator's labels of some items agree
with the corpus's (:func:`agreement_report`); ``--errors SPLIT`` lists every error on a split;
``--help`` says all of it.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from interviewsim.agent.config import SETTINGS_PATH, load_agent_settings
from interviewsim.agent.guardrails import GuardrailAuditor, Rule
from interviewsim.agent.language_fallback import LanguageFallback
from interviewsim.agent.language_model import item_pair, pair_of, prefetch
from interviewsim.agent.signals import Signal, detect_signals, invitation_reading
from interviewsim.config.params import load_params
from interviewsim.data.jsonio import read_jsonl
from interviewsim.errors import ConfigError, InputError, Problem
from interviewsim.llm import ModelHub
from interviewsim.llm.relay import AwaitingAnswers
from interviewsim.text.discourse import is_question

NORMAL = "normal"
SPLITS = ("train", "dev", "holdout")
TURN_CLASSES = ("question", "not_question", "invitation", *(r.value for r in Rule))
REPLY_CLASSES = (*(s.value for s in Signal), NORMAL)
RUBRIC_IDS = ("distributed_systems", "system_design")
"""Area ids the audit is given (the technical plan's multi-word ones)."""
ERRORS_SHOWN = 2
"""Misses and false alarms listed per class and kind of error."""


class CorpusItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    kind: Literal["turn", "reply"]
    text: str
    hard: bool
    """Written to defeat a phrase search (a quoted, reported, attributive or elliptical use)."""
    split: Literal["train", "dev", "holdout"] = "dev"
    """``train``: what a classifier learns from; ``dev``: what rules and thresholds are tuned
    on; ``holdout``: written by a separate pass from the class definitions only, never used
    to tune anything."""
    question: bool | None = None
    invitation: bool | None = None
    """A turn that hands the floor to the candidate's own questions."""
    guardrails: list[Rule] = []
    after: str | None = None
    """The interviewer turn a reply answers."""
    signals: list[Signal] = []

    def gold(self) -> set[str]:
        if self.kind == "turn":
            return {"question" if self.question else "not_question",
                    *(["invitation"] if self.invitation else []),
                    *(r.value for r in self.guardrails)}
        return {s.value for s in self.signals} or {NORMAL}


def load_corpus(path: str | Path) -> list[CorpusItem]:
    """The corpus's items; a reply's ``after`` must be the turn's text, not its id (an id
    would read as a turn that invites nothing, and every closer after it would be missed)."""
    items = []
    for line, row in enumerate(read_jsonl(Path(path)), 1):
        try:
            items.append(CorpusItem.model_validate(row))
        except ValidationError as exc:
            problem = exc.errors()[0]
            field = ".".join(str(part) for part in problem["loc"])
            raise ValueError(f"line {line}: field {field!r}: {problem['msg']} (the format: "
                             "docs/AGENT.md, 'Reading what was said')") from None
    ids = {i.id for i in items}
    wrong = [i.id for i in items if i.after in ids]
    if wrong:
        raise ValueError(f"field 'after' of {len(wrong)} replies ({wrong[0]}, ...) is a "
                         "turn id; write the interviewer turn's text there instead")
    return items


def predict(item: CorpusItem, auditor: GuardrailAuditor | None = None) -> set[str]:
    """The labels the language layer gives one item, in the corpus's vocabulary (with the
    auditor's fallback model, when it has one)."""
    auditor = auditor or GuardrailAuditor(RUBRIC_IDS)
    if item.kind == "turn":
        audit = auditor.audit(0, "", item.text)
        return {"question" if is_question(item.text) else "not_question",
                *(["invitation"] if invitation_reading(item.text, auditor.fallback) else []),
                *(v.rule.value for v in audit.violations)}
    return {s.value for s in detect_signals(item.text, item.after, auditor.fallback)} or {NORMAL}


def wilson(successes: int, total: int, z: float = 1.96) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion (sensible at 0 and at n, unlike p +- 2se)."""
    if not total:
        return None
    p = successes / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


class ClassScore(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    label: str
    support: int
    """Items carrying the label."""
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


Prediction = tuple[CorpusItem, set[str]]


def predictions(items: Iterable[CorpusItem],
                fallback: LanguageFallback | None = None) -> list[Prediction]:
    """Every item's labels; a fallback model is asked about all of them in one batch first."""
    items = list(items)
    if fallback is not None:  # turns first: a reply's prompt carries the model's reading
        fallback.prefetch([("turn", i.text if i.kind == "turn" else i.after, None, False)
                           for i in items if i.kind == "turn" or i.after])
        fallback.prefetch(("reply", i.text, i.after, invitation_reading(i.after, fallback))
                          for i in items if i.kind == "reply")
    # the encoder reads every text in batches first (turns, replies, the turns replies answer)
    prefetch([item_pair(i) for i in items] + [pair_of("turn", i.after) for i in items if i.after])
    auditor = GuardrailAuditor(RUBRIC_IDS, fallback)
    return [(item, predict(item, auditor)) for item in items]


def score_classes(items: Iterable[CorpusItem],
                  predicted: Sequence[Prediction] | None = None) -> list[ClassScore]:
    pairs = predictions(items) if predicted is None else predicted
    counts: dict[tuple[str, str], list[int]] = {
        **{("turn", c): [0, 0, 0] for c in TURN_CLASSES},
        **{("reply", c): [0, 0, 0] for c in REPLY_CLASSES}}
    for item, got in pairs:
        gold = item.gold()
        for (kind, label), row in counts.items():
            if kind != item.kind:
                continue
            row[0] += label in gold and label in got
            row[1] += label in got and label not in gold
            row[2] += label in gold and label not in got
    return [ClassScore(kind=kind, label=label, support=tp + fn, tp=tp, fp=fp, fn=fn)
            for (kind, label), (tp, fp, fn) in counts.items()]


def misclassified(items: Iterable[CorpusItem]) -> list[Prediction]:
    return [(item, got) for item, got in predictions(items) if got != item.gold()]


def _rate(hits: int, total: int) -> str:
    interval = wilson(hits, total)
    if interval is None:
        return "n/a"
    return f"{hits / total:.2f} [{interval[0]:.2f}, {interval[1]:.2f}]"


def render_table(scores: Sequence[ClassScore]) -> str:
    lines = ["| items | class | support | precision [95% CI] | recall [95% CI] |",
             "| --- | --- | --- | --- | --- |"]
    for s in scores:
        lines.append(f"| {'interviewer turns' if s.kind == 'turn' else 'candidate replies'} "
                     f"| {s.label} | {s.support} | {_rate(s.tp, s.tp + s.fp)} "
                     f"| {_rate(s.tp, s.tp + s.fn)} |")
    return "\n".join(lines)


def error_sample(predicted: Sequence[Prediction], shown: int = ERRORS_SHOWN) -> list[str]:
    """Per class, the first misses and false alarms (by id), one line each."""
    lines = []
    ordered = sorted(predicted, key=lambda p: p[0].id)
    for kind, classes in (("turn", TURN_CLASSES), ("reply", REPLY_CLASSES)):
        mine = [(i, g) for i, g in ordered if i.kind == kind]
        for label in classes:
            misses = [i for i, g in mine if label in i.gold() and label not in g]
            alarms = [i for i, g in mine if label in g and label not in i.gold()]
            for what, found in (("missed", misses), ("false alarm", alarms)):
                lines += [f"- {label}, {what}: `{i.id}` {i.text[:90]!r}" for i in found[:shown]]
    return lines


def report(items: Sequence[CorpusItem], fallback: LanguageFallback | None = None,
           splits: Sequence[str] = SPLITS) -> str:
    """The tables per split and the dev error sample, as docs/AGENT.md shows them (with a
    fallback model: the layer with it, and how many of its outputs never parsed; ``splits``
    narrows it, e.g. to the holdout, so a model is asked about those items only)."""
    out = []
    for split in splits:
        part = [i for i in items if i.split == split]
        turns = sum(i.kind == "turn" for i in part)
        scores = score_classes(part, predictions(part, fallback))
        out.append(f"`{split}`: {len(part)} items ({turns} turns, {len(part) - turns} replies, "
                   f"{sum(i.hard for i in part)} hard)\n\n{render_table(scores)}\n")
    if fallback is not None:
        out.append(f"Fallback outputs that never parsed: {fallback.invalid}\n")
    if "dev" in splits:
        dev = predictions((i for i in items if i.split == "dev"), fallback)
        out.append("Errors on `dev` (at most two misses and two false alarms per class):\n\n"
                   + "\n".join(error_sample(dev)))
    return "\n".join(out)


def second_labels(items: Sequence[CorpusItem], path: str | Path) -> list[Prediction]:
    """A second annotator's labels of corpus items (JSON Lines: ``id`` with ``question``,
    ``invitation`` and ``guardrails`` for a turn, ``signals`` for a reply), paired with the
    items they label, as predictions in the corpus's vocabulary."""
    by_id = {item.id: item for item in items}
    pairs = []
    for row in read_jsonl(Path(path)):
        item = by_id[row["id"]]
        labels = {key: row[key] for key in ("question", "invitation", "guardrails", "signals")
                  if key in row}
        pairs.append((item, CorpusItem.model_validate({**item.model_dump(), **labels}).gold()))
    return pairs


def agreement_report(items: Sequence[CorpusItem], path: str | Path) -> str:
    """How far a second annotator, given the same definitions, agrees with the corpus's labels
    on the items it labelled (the corpus's labels as reference): the ceiling a classifier is
    held to, since no reader of these definitions agrees with their writer more than this."""
    pairs = second_labels(items, path)
    turns = sum(item.kind == "turn" for item, _ in pairs)
    scores = score_classes([], pairs)
    asked = {key for row in read_jsonl(Path(path)) for key in row}
    if "question" not in asked:  # not asked: its rows would only echo the corpus's labels
        scores = [s for s in scores if s.label not in ("question", "not_question")]
    return (f"Second annotator on {len(pairs)} items ({turns} turns, {len(pairs) - turns} "
            f"replies), the corpus's labels as reference:\n\n{render_table(scores)}")


def fallback_report(items: Sequence[CorpusItem], params_path: str = "params.yaml",
                    settings_path: str | None = None, splits: Sequence[str] = SPLITS) -> str:
    """:func:`report` with agent.yaml's ``language_fallback`` model behind the layer."""
    params = load_params(params_path)
    settings = load_agent_settings(settings_path)
    settings.check_providers(params, settings_path or str(SETTINGS_PATH))
    if settings.language_fallback is None:
        raise ConfigError([Problem(settings_path or str(SETTINGS_PATH), "language_fallback",
                                   "is null: name a capable model to measure it")])
    with ModelHub(params.hub) as hub:
        fallback = LanguageFallback(hub.client(settings.language_fallback, label="language"))
        return report(items, fallback, splits)


def all_errors(items: Sequence[CorpusItem], split: str) -> str:
    """Every miss and false alarm on one split, per class (``--errors SPLIT``)."""
    part = predictions(i for i in items if i.split == split)
    return "\n".join(error_sample(part, shown=len(part))) or "no errors"


def parser() -> argparse.ArgumentParser:
    cli = argparse.ArgumentParser(
        prog="python -m interviewsim.agent.language_eval",
        description="Per-class precision and recall (95% Wilson intervals) of the agent's "
                    "language layer on a labelled corpus, per split, as docs/AGENT.md shows.")
    cli.add_argument("corpus", help="the corpus, JSON Lines "
                     "(tests/data/agent_language_corpus.jsonl)")
    what = cli.add_mutually_exclusive_group()
    what.add_argument("--second", metavar="FILE",
                      help="a second annotator's labels: print their agreement instead")
    what.add_argument("--fallback", metavar="AGENT_YAML", nargs="?", const="",
                      help="measure with agent.yaml's language_fallback model behind the "
                           "layer (params.yaml of the working directory)")
    cli.add_argument("--params", default="params.yaml", metavar="PARAMS",
                     help="with --fallback: the params file whose providers serve the model "
                          "(default: %(default)s)")
    cli.add_argument("--only", metavar="PREFIX", action="append",
                     help="keep only the items whose id starts with PREFIX (repeatable), "
                          "e.g. one writer's: --only h17-")
    cli.add_argument("--split", choices=SPLITS, action="append", dest="splits",
                     help="with --fallback: report only this split (repeatable), so the "
                          "model is asked about its items only")
    what.add_argument("--errors", metavar="SPLIT", choices=SPLITS,
                      help="list every miss and false alarm on SPLIT (reading the holdout's "
                           "errors spends it: it must then become train)")
    return cli


def main(argv: Sequence[str]) -> None:
    """``CORPUS`` prints :func:`report`; ``--second FILE`` :func:`agreement_report`;
    ``--fallback [AGENT_YAML]`` the report with the fallback model; ``--errors SPLIT``
    :func:`all_errors`. A corpus that cannot be read exits 1 with one line naming it."""
    args = parser().parse_args(list(argv))
    try:
        items = load_corpus(args.corpus)
    except InputError as exc:
        sys.exit(f"error: {exc}")
    except (OSError, ValueError) as exc:
        sys.exit(f"error: {args.corpus}: {exc}")
    if args.only:
        items = [i for i in items if i.id.startswith(tuple(args.only))]
        if not items:
            sys.exit(f"error: {args.corpus}: no item id starts with {' or '.join(args.only)}")
    if args.second:
        print(agreement_report(items, args.second))
    elif args.fallback is not None:
        try:
            print(fallback_report(items, args.params, args.fallback or None,
                                  tuple(args.splits or SPLITS)))
        except ConfigError as exc:
            sys.exit(f"error: {exc}")
        except AwaitingAnswers as exc:  # a relayed model: answer the requests, then rerun
            print(f"error: {exc}", file=sys.stderr)
            sys.exit(exc.exit_code)
    elif args.errors:
        print(all_errors(items, args.errors))
    else:
        print(report(items))


if __name__ == "__main__":
    main(sys.argv[1:])
