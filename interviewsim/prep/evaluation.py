"""Scoring prep verdicts against a labelled set: the rates the two unequal costs need.

A false proof (a real gap shown as met) leaves a weakness unprepared; a false gap (a met
requirement shown as missing) wastes preparation on a strength. They are counted apart, each with
a Wilson interval (the sets are small; a rate without one says more than it knows).

The set (docs/PREP.md, "Evaluation set"): a folder per part (``tune``, ``tune2``,
``holdout``), in it per posting NAME a ``NAME.posting.*`` text, ``NAME.evidence.yaml`` and
``NAME.labels.jsonl`` (one gold requirement a line: ``key_phrase``, ``requirement``,
``importance``, ``verdict``, ``evidence``, ``why``). A gold requirement is *found* when an
extracted requirement contains its key phrase (case and whitespace aside); verdict rates are
over found requirements, scored with the verdict of the first extracted requirement that
contains it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from interviewsim.errors import InputError, Problem, validation_problems
from interviewsim.llm.asking import AskingClient
from interviewsim.llm.relay import AwaitingAnswers
from interviewsim.prep.evidence import load_evidence_file
from interviewsim.prep.models import (
    Coverage,
    EvidenceItem,
    PrepSettings,
    Requirement,
    Verdict,
    normalize,
)
from interviewsim.prep.pipeline import PrepState, run_match
from interviewsim.prep.sources import read_text_file

R = TypeVar("R", bound=BaseModel)

Run = Callable[[str, list[EvidenceItem]], tuple[list[Requirement], list[Verdict]]]
"""One path: posting text and evidence in, requirements and their verdicts out."""

RATES = ("false_proof", "over_credit", "false_gap", "denial_or_wish_full", "full_precision",
         "full_recall", "extraction_precision", "extraction_recall")
LOWER_IS_BETTER = frozenset({"false_proof", "over_credit", "false_gap", "denial_or_wish_full"})
_POLARITY_WHY = re.compile(
    r"\b(?:deni(?:al|als|es|ed|y)|never|wish(?:es)?|plans?|planned|planning|hope[sd]?|hoping|"
    r"keen|interest|interested|would like|aspiration|yet|enrol(?:led|s)?|signed up|"
    r"booked (?:onto|on|in|a resit)|future)\b"
    r"|\b(?:states?|says?|said|explicitly)\b[^.;]*\b(?:no|not|don't|doesn't|didn't)\b"
    r"|\bno (?:experience|exposure|hands-on)\b"
    r"|\b(?:has|have|had) not (?:managed|used|set up|done|worked|led|run|built|spoken|taught)\b",
    re.I)
"""A gold GAP whose reason names a denial or a wish: the writer's words ("denial", "wish",
"never", "plans", "booked onto", "states no …", "has not used …"). A bare "not" or "no" does
not count: the writers use them in every kind of reason ("not the Deputy software", "so it is
not current", "no sign of analysing sales data"), and counting them put generic-word traps and
lapsed credentials into this rate (19 of the ninth blind part's GAPs; 12 are denials or
wishes)."""
_GENERIC_WHY = re.compile(r"\b(?:generic|common)-word trap\b", re.I)
_STRONG_WHY = re.compile(r"\b(?:deni\w*|never|wish\w*)\b", re.I)
_QUOTED = re.compile(r"(?<!\w)['‘\"“][^'’\"”]*['’\"”](?!\w)")


def names_denial_or_wish(why: str) -> bool:
    """Whether a gold reason names a denial or a wish, outside the words it quotes (a
    generic-word trap quoting "plan my week" is not a plan). A reason that calls itself a
    generic-word trap counts only when it also says denial, never or wish ("… planning a week
    share the words" describes the trap's evidence, not a plan of the candidate's)."""
    text = _QUOTED.sub(" ", why)
    if _GENERIC_WHY.search(text):
        return bool(_STRONG_WHY.search(text))
    return bool(_POLARITY_WHY.search(text))


Z95 = 1.959963984540054


class GoldLabel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    posting: str
    key_phrase: str
    requirement: str
    importance: Literal["must", "nice"]
    verdict: Coverage
    evidence: list[str]
    why: str


@dataclass(frozen=True)
class Case:
    name: str
    posting: str
    evidence: list[EvidenceItem]
    labels: list[GoldLabel]


@dataclass(frozen=True)
class Rate:
    hits: int
    total: int

    @property
    def value(self) -> float | None:
        return self.hits / self.total if self.total else None

    def interval(self) -> tuple[float, float] | None:
        """The Wilson score interval at 95%."""
        if not self.total:
            return None
        n, p = self.total, self.hits / self.total
        centre = (p + Z95 ** 2 / (2 * n)) / (1 + Z95 ** 2 / n)
        half = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / (1 + Z95 ** 2 / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def cell(self) -> str:
        bounds = self.interval()
        if self.value is None or bounds is None:
            return "— (0)"
        return (f"{self.value * 100:.1f}% [{bounds[0] * 100:.0f}–{bounds[1] * 100:.0f}] "
                f"({self.hits}/{self.total})")


@dataclass
class Tally:
    """Counts over gold requirements and extracted ones, summed over postings."""

    pairs: list[tuple[Coverage, Coverage]] = field(default_factory=list)
    """(gold, shown) for every found gold requirement."""
    polarity: list[Coverage] = field(default_factory=list)
    """What was shown for each found gold GAP that a denial or a wish explains."""
    gold: int = 0
    found: int = 0
    extracted: int = 0
    extracted_on_gold: int = 0
    misses: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    """Postings whose run a gate rejected (their requirements count as not found)."""
    awaiting: AwaitingAnswers | None = None
    """Set when a relayed model has requests waiting (interviewsim/llm/relay.py): the other
    postings still ran, so one round of answers covers every posting's next step."""
    errors: list[tuple[str, Coverage, Coverage]] = field(default_factory=list)

    def rate(self, name: str) -> Rate:
        def count(gold: set[str], shown: set[str]) -> int:
            return sum(g in gold and s in shown for g, s in self.pairs)

        def total(gold: set[str]) -> int:
            return sum(g in gold for g, _ in self.pairs)

        rates = {
            "false_proof": Rate(count({"GAP"}, {"FULL"}), total({"GAP"})),
            "over_credit": Rate(count({"PARTIAL"}, {"FULL"}), total({"PARTIAL"})),
            "false_gap": Rate(count({"FULL"}, {"GAP"}), total({"FULL"})),
            "denial_or_wish_full": Rate(self.polarity.count("FULL"), len(self.polarity)),
            "full_precision": Rate(count({"FULL"}, {"FULL"}),
                                   sum(s == "FULL" for _, s in self.pairs)),
            "full_recall": Rate(count({"FULL"}, {"FULL"}), total({"FULL"})),
            "extraction_precision": Rate(self.extracted_on_gold, self.extracted),
            "extraction_recall": Rate(self.found, self.gold),
        }
        return rates[name]


def _posting_path(folder: Path, name: str) -> Path:
    found = sorted(p for p in folder.glob(f"{name}.posting.*"))
    if not found:
        raise InputError([Problem(str(folder), name, "no NAME.posting.* file")])
    return found[0]


def _records(path: Path, model: type[R]) -> list[tuple[int, R]]:
    """A JSON Lines file of one record type, each with its line number; a line that is not
    the format names the file and the line."""
    records: list[tuple[int, R]] = []
    for number, line in enumerate(read_text_file(path)[0].splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append((number, model.model_validate(json.loads(line))))
        except json.JSONDecodeError as exc:
            raise InputError([Problem(str(path), f"line {number}", f"not JSON: {exc.msg}")]
                             ) from None
        except ValidationError as exc:
            raise InputError(validation_problems(exc, str(path), prefix=f"line {number}")
                             ) from None
    return records


def _labels(path: Path) -> list[GoldLabel]:
    return [label for _, label in _records(path, GoldLabel)]


def load_part(folder: Path) -> list[Case]:
    """Every labelled posting of one part, by name."""
    cases = []
    for labels_path in sorted(folder.glob("*.labels.jsonl")):
        name = labels_path.name.removesuffix(".labels.jsonl")
        posting, _ = read_text_file(_posting_path(folder, name))
        cases.append(Case(name, posting, load_evidence_file(folder / f"{name}.evidence.yaml"),
                          _labels(labels_path)))
    return cases


def parts(set_dir: Path) -> dict[str, Path]:
    """The set's parts: its labelled subfolders, or the folder itself when it is one part."""
    if any(set_dir.glob("*.labels.jsonl")):
        return {set_dir.name: set_dir}
    found = {sub.name: sub for sub in sorted(set_dir.iterdir())
             if sub.is_dir() and any(sub.glob("*.labels.jsonl"))}
    if not found:
        raise InputError([Problem(str(set_dir), "", "no NAME.labels.jsonl here or in a "
                                  "subfolder (see docs/PREP.md, Evaluation set)")])
    return found


def score_case(case: Case, requirements: Sequence[Requirement], verdicts: Sequence[Verdict],
               tally: Tally) -> None:
    """Add one posting's outcome to ``tally``."""
    shown = {v.requirement_id: v.coverage for v in verdicts}
    if not shown:
        tally.failed.append(case.name)
        requirements = []
    texts = [(r.id, normalize(r.text)) for r in requirements]
    phrases = [normalize(label.key_phrase) for label in case.labels]
    tally.gold += len(case.labels)
    tally.extracted += len(requirements)
    tally.extracted_on_gold += sum(any(p in text for p in phrases) for _, text in texts)
    for label, phrase in zip(case.labels, phrases, strict=True):
        hit = next((rid for rid, text in texts if phrase in text), None)
        if hit is None:
            tally.misses.append(f"{case.name}: {label.key_phrase}")
            continue
        tally.found += 1
        tally.pairs.append((label.verdict, shown[hit]))
        if label.verdict == "GAP" and names_denial_or_wish(label.why):
            tally.polarity.append(shown[hit])
        if label.verdict != shown[hit]:
            tally.errors.append((f"{case.name}: {label.key_phrase}", label.verdict, shown[hit]))


class ReaderVerdict(BaseModel):
    """A second reader's verdict on one gold requirement (``prep eval --second``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    posting: str
    key_phrase: str
    verdict: Coverage
    evidence: list[str]
    why: str


def load_reader(path: Path) -> dict[tuple[str, str], ReaderVerdict]:
    """A second reader's verdicts (JSON Lines, one per gold requirement it judged), by
    (posting, key phrase); a line that is not the format names the file and the line."""
    verdicts: dict[tuple[str, str], ReaderVerdict] = {}
    for number, row in _records(path, ReaderVerdict):
        key = (row.posting, normalize(row.key_phrase))
        if key in verdicts:
            raise InputError([Problem(str(path), f"line {number}",
                                      f"a second verdict on {row.posting}: {row.key_phrase!r}")])
        verdicts[key] = row
    return verdicts


def reader_tally(cases: Sequence[Case],
                 verdicts: dict[tuple[str, str], ReaderVerdict]) -> Tally | None:
    """A second reader's verdicts scored as a path is (the gold as reference): each gold
    requirement it judged is "extracted" as its own key phrase, so extraction recall says how
    many it judged. None when it judged nothing in these cases. The reader's rates are the
    ceiling a matcher is held to: no reader of the same definitions agrees with their writer
    more than this one does, and a target below its rate is a target the labels cannot carry."""
    tally = Tally()
    for case in cases:
        judged = [(label, verdicts.get((case.name, normalize(label.key_phrase))))
                  for label in case.labels]
        # shortest phrase first: a key phrase inside a longer one then finds itself first
        judged = sorted(((label, v) for label, v in judged if v is not None),
                        key=lambda pair: len(pair[0].key_phrase))
        if not judged:
            continue
        requirements = [Requirement(id=f"REQ-{n:03d}", text=label.key_phrase,
                                    normalized=normalize(label.key_phrase),
                                    source_quote=label.key_phrase)
                        for n, (label, _) in enumerate(judged, start=1)]
        shown = [Verdict(requirement_id=r.id, coverage=v.verdict, evidence_ids=tuple(v.evidence),
                         explanation=v.why, confidence=1.0)
                 for r, (_, v) in zip(requirements, judged, strict=True)]
        score_case(case, requirements, shown, tally)
    return tally if tally.found else None


def confusion(tally: Tally) -> str:
    """Gold verdict (rows) against shown verdict (columns), as a Markdown table."""
    order: tuple[Coverage, ...] = ("FULL", "PARTIAL", "GAP")
    lines = ["| gold \\ shown | FULL | PARTIAL | GAP |", "|---|---|---|---|"]
    for gold in order:
        cells = " | ".join(str(tally.pairs.count((gold, shown))) for shown in order)
        lines.append(f"| {gold} | {cells} |")
    return "\n".join(lines)


def pipeline_run(path: Literal["lexical", "llm"], client: AskingClient | None,
                 settings: PrepSettings) -> Run:
    """The ``prep match`` graph on one path (extraction and matching alike)."""

    def run(posting: str, evidence: list[EvidenceItem]
            ) -> tuple[list[Requirement], list[Verdict]]:
        state = PrepState(posting=posting, base_evidence=evidence, settings=settings,
                          extractor=path, matcher=path)
        outcome = run_match(state, client)
        return (state.requirements, state.matches) if outcome.valid else ([], [])

    return run


def evaluate(cases: Sequence[Case], run: Run) -> Tally:
    tally = Tally()
    for case in cases:
        try:
            requirements, verdicts = run(case.posting, case.evidence)
        except AwaitingAnswers as waiting:
            tally.awaiting = waiting
            continue
        score_case(case, requirements, verdicts, tally)
    return tally


def summary(tally: Tally) -> dict[str, float | None]:
    """Each rate's value, for a baseline file and the regression check."""
    return {name: tally.rate(name).value for name in RATES}


def regressions(current: dict[str, float | None], baseline: dict[str, float | None],
                tolerance: float) -> list[str]:
    """Rates worse than ``baseline`` by more than ``tolerance`` (lower is better for the three
    error rates, higher for the rest)."""
    worse: list[str] = []
    for name in RATES:
        now, then = current.get(name), baseline.get(name)
        if now is None or then is None:
            continue
        delta = now - then if name in LOWER_IS_BETTER else then - now
        if delta > tolerance:
            worse.append(f"{name} {now * 100:.1f}% vs baseline {then * 100:.1f}% "
                         f"(tolerance {tolerance * 100:.1f} points)")
    return worse


def table(rows: Sequence[tuple[str, str, Tally]]) -> str:
    """A Markdown table: one row per (path, part)."""
    head = ("| path | part | postings/found | " + " | ".join(n.replace("_", " ") for n in RATES)
            + " |")
    lines = [head, "|" + "---|" * (len(RATES) + 3)]
    for path, part, tally in rows:
        cells = " | ".join(tally.rate(n).cell() for n in RATES)
        lines.append(f"| {path} | {part} | {tally.found}/{tally.gold} | {cells} |")
    return "\n".join(lines)
