"""The two prep graphs and their drivers: ``match`` (offline plan) and ``prep`` (package + loop).

Every node is a small function of :class:`PrepState`; every route reads a boolean a gate
computed. The prep graph runs the workflow once (``initial``), asks about each gap once through
an interrupt, then runs the workflow again (``final``) over the original evidence plus every
admitted claim. The graph's shape is the behaviour the regression suite freezes.

The lexical matcher's term weights are fixed from the original evidence on the first match and
reused in the final pass: an admitted claim adds an item that can be cited, it never reweights
the terms of requirements it does not attest, so a verdict changes only on new evidence (and the
package gate rejects a final pass where one changed without citing any).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from interviewsim.llm.asking import AskingClient
from interviewsim.prep import clarify, gates
from interviewsim.prep.assessment import assess
from interviewsim.prep.extraction import Extractor, extract_lexical, extract_llm
from interviewsim.prep.generation import focus_payload, parse_round, write_questions, write_strategy
from interviewsim.prep.graph import END, Graph, Route
from interviewsim.prep.matching import Matcher, match_lexical, match_llm, reference_frequencies
from interviewsim.prep.modelcall import PrepCall
from interviewsim.prep.models import (
    AnswerAssessment,
    ClarificationRecord,
    EvidenceItem,
    FocusArea,
    Package,
    PracticeQuestion,
    PrepSettings,
    Requirement,
    RoundContext,
    Strategy,
    Verdict,
)
from interviewsim.text.coverage import DocumentFrequencies

GATES = ("round_context", "extraction", "matching", "package")


@dataclass
class PrepState:
    """Everything a prep run knows; nodes read and write it, routes only read it."""

    posting: str
    base_evidence: list[EvidenceItem]
    settings: PrepSettings = field(default_factory=PrepSettings)
    extractor: Extractor = "lexical"
    matcher: Matcher = "lexical"
    round_text: str | None = None
    phase: Literal["initial", "final"] = "initial"
    round_context: RoundContext | None = None
    requirements: list[Requirement] = field(default_factory=list)
    matches: list[Verdict] = field(default_factory=list)
    focus_areas: list[FocusArea] = field(default_factory=list)
    strategy: Strategy | None = None
    questions: list[PracticeQuestion] = field(default_factory=list)
    stage_errors: dict[str, list[str]] = field(default_factory=dict)
    """Model answers rejected by their schema in the current phase, by gate."""
    gate_problems: dict[str, list[str]] = field(default_factory=dict)
    """The latest outcome of each gate that has run ([] = passed)."""
    initial_matches: list[Verdict] = field(default_factory=list)
    term_weights: DocumentFrequencies | None = None
    """The lexical matcher's IDF reference: the original evidence, fixed at the first match."""
    initial_package_valid: bool | None = None
    processed: list[str] = field(default_factory=list)
    accepted: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    remaining: list[str] = field(default_factory=list)
    records: list[ClarificationRecord] = field(default_factory=list)
    admitted: list[EvidenceItem] = field(default_factory=list)
    current: str | None = None
    question: str | None = None
    answer: str | None = None
    assessment: AnswerAssessment | None = None
    assessment_error: str | None = None
    notes: list[str] = field(default_factory=list)
    calls: list[PrepCall] = field(default_factory=list)
    stop_reason: str | None = None
    package: Package | None = None

    @property
    def evidence(self) -> list[EvidenceItem]:
        """The corpus matching reads: the original items plus every admitted claim."""
        return [*self.base_evidence, *self.admitted]

    def requirement(self, requirement_id: str) -> Requirement:
        return next(r for r in self.requirements if r.id == requirement_id)

    def passed(self, gate: str) -> bool:
        return self.gate_problems.get(gate) == []

    @property
    def failed_gate(self) -> str | None:
        return next((g for g in GATES if self.gate_problems.get(g)), None)


def _gate_route(gate: str, on_pass: str) -> Route[PrepState]:
    return Route(lambda s: "pass" if s.passed(gate) else "fail",
                 {"pass": on_pass, "fail": "error_report"})


def _package_branch(state: PrepState) -> str:
    if not state.passed("package"):
        return "invalid"
    return state.phase


def _gap_branch(state: PrepState) -> str:
    return "ask" if state.current is not None else "close"


def answer_long_enough(state: PrepState) -> bool:
    """Whether the model may be consulted about the current answer (the length floor)."""
    return clarify.long_enough(state.answer or "", state.settings)


class Nodes:
    """The node functions, bound to the model clients they may use (None: offline only).

    ``reader`` reads (model extraction, model matching, clarification assessments); without
    one, ``client`` does, as it writes the strategy and the questions.
    """

    def __init__(self, client: AskingClient | None, reader: AskingClient | None = None):
        self.client = client
        self.reader = reader

    def _model(self) -> AskingClient:
        if self.client is None:
            raise RuntimeError("this step needs a model client; none was configured")
        return self.client

    def _reader(self) -> AskingClient:
        return self.reader if self.reader is not None else self._model()

    def round_context(self, state: PrepState) -> None:
        problems: list[str] = []
        if state.round_text and state.round_text.strip():
            context, call = parse_round(state.round_text, self._model(), state.settings)
            state.calls.append(call)
            state.round_context = context
            if context is None:
                problems.append(f"round context: model answer rejected: {call.parse_error}")
        state.gate_problems["round_context"] = problems

    def extract(self, state: PrepState) -> None:
        state.stage_errors = {}
        if state.extractor == "lexical":
            state.requirements = extract_lexical(state.posting)
            return
        requirements, call = extract_llm(state.posting, self._reader(), state.settings)
        state.calls.append(call)
        state.requirements = requirements or []
        if requirements is None:
            state.stage_errors["extraction"] = [
                f"extraction: model answer rejected: {call.parse_error}"]

    def extraction_gate(self, state: PrepState) -> None:
        state.gate_problems["extraction"] = [
            *state.stage_errors.get("extraction", []),
            *gates.extraction_gate(state.requirements, state.posting, state.settings)]

    def match(self, state: PrepState) -> None:
        if state.matcher == "lexical":
            if state.term_weights is None:
                state.term_weights = reference_frequencies(state.base_evidence)
            state.matches = match_lexical(state.requirements, state.evidence, state.settings,
                                          state.term_weights)
            return
        verdicts, call = match_llm(state.requirements, state.evidence, self._reader(),
                                   state.settings)
        state.calls.append(call)
        state.matches = verdicts or []
        if verdicts is None:
            state.stage_errors["matching"] = [
                f"matching: model answer rejected: {call.parse_error}"]

    def match_gate(self, state: PrepState) -> None:
        state.gate_problems["matching"] = [
            *state.stage_errors.get("matching", []),
            *gates.match_gate(state.requirements, state.matches, state.evidence)]

    def assess(self, state: PrepState) -> None:
        state.focus_areas = assess(state.requirements, state.matches)

    def _focus(self, state: PrepState) -> list[dict]:
        return focus_payload(state.focus_areas, state.requirements, state.evidence)

    def strategy(self, state: PrepState) -> None:
        strategy, call = write_strategy(self._focus(state), state.round_context, self._model(),
                                        state.settings)
        state.calls.append(call)
        state.strategy = strategy
        if strategy is None:
            state.stage_errors["package"] = [f"strategy: model answer rejected: "
                                             f"{call.parse_error}"]

    def questions(self, state: PrepState) -> None:
        state.questions = []
        if state.strategy is None:
            return
        found, call = write_questions(self._focus(state), state.strategy, state.round_context,
                                      self._model(), state.settings)
        state.calls.append(call)
        if found is None:
            state.stage_errors.setdefault("package", []).append(
                f"questions: model answer rejected: {call.parse_error}")
        else:
            state.questions = list(found.questions)

    def package_gate(self, state: PrepState) -> None:
        draft = gates.Draft(state.posting, state.evidence, state.requirements, state.matches,
                            state.focus_areas, state.strategy, state.questions,
                            state.initial_matches if state.phase == "final" else ())
        state.gate_problems["package"] = [*state.stage_errors.get("package", []),
                                          *gates.package_gate(draft, state.settings)]
        if state.phase == "initial":
            state.initial_package_valid = state.passed("package")
            state.initial_matches = list(state.matches)

    def select_gap(self, state: PrepState) -> None:
        queue = clarify.gap_queue(state.requirements, state.matches, state.processed)
        state.remaining = queue
        within_budget = len(state.processed) < state.settings.max_clarifications
        state.current = queue[0] if queue and within_budget else None
        state.question = (clarify.clarification_question(state.requirement(state.current))
                          if state.current else None)
        state.answer = state.assessment = state.assessment_error = None

    def ask(self, state: PrepState) -> None:
        if state.answer is None:
            raise RuntimeError(f"resumed at 'ask' without an answer for {state.current}")

    def assess_answer(self, state: PrepState) -> None:
        assert state.current is not None and state.question is not None
        assessment, call = clarify.assess_answer(state.requirement(state.current),
                                                 state.question, state.answer or "",
                                                 self._reader(), state.settings)
        state.calls.append(call)
        state.assessment, state.assessment_error = assessment, call.parse_error

    def admit(self, state: PrepState) -> None:
        assert state.current is not None and state.question is not None
        answer = state.answer or ""
        decision = clarify.admit(state.current, answer, state.assessment, state.settings)
        evidence_id = None
        if decision.accepted and decision.claim:
            item = clarify.mint_claim(len(state.admitted) + 1, state.current, state.question,
                                      decision.claim)
            state.admitted.append(item)
            evidence_id = item.id
        state.records.append(ClarificationRecord(
            requirement_id=state.current, question=state.question, answer=answer,
            assessment=state.assessment, assessment_error=state.assessment_error,
            accepted=decision.accepted, reason=decision.reason,
            accepted_claim=decision.claim, evidence_id=evidence_id))
        state.processed.append(state.current)
        (state.accepted if decision.accepted else state.rejected).append(state.current)

    def close_queue(self, state: PrepState) -> None:
        if state.remaining:
            state.notes.append(f"question budget ({state.settings.max_clarifications}) "
                               f"exhausted; never asked: {', '.join(state.remaining)}")
        state.phase = "final"

    def assemble(self, state: PrepState) -> None:
        assert state.strategy is not None
        state.stop_reason = "budget_exhausted" if state.remaining else "completed"
        state.package = Package(
            stop_reason=state.stop_reason, round_context=state.round_context,
            evidence=tuple(state.evidence), requirements=tuple(state.requirements),
            matches=tuple(state.matches), focus_areas=tuple(state.focus_areas),
            strategy=state.strategy, questions=tuple(state.questions),
            clarifications=tuple(state.records), remaining_gaps=tuple(state.remaining),
            verdict_changes=tuple(gates.verdict_changes(state.initial_matches, state.matches,
                                                        state.evidence)))

    def plan(self, state: PrepState) -> None:
        state.stop_reason = "plan_ready"

    def error_report(self, state: PrepState) -> None:
        state.stop_reason = f"{state.failed_gate}_rejected"


def build_match_graph(client: AskingClient | None) -> Graph[PrepState]:
    """extract → gate → match → gate → assess → plan; any failed gate → error report. Every
    model step here reads, so ``client`` is the reader when there is one."""
    n = Nodes(client)
    nodes: dict[str, Callable[[PrepState], None]] = {
        "extract": n.extract, "extraction_gate": n.extraction_gate, "match": n.match,
        "match_gate": n.match_gate, "assess": n.assess, "plan": n.plan,
        "error_report": n.error_report}
    edges = {"extract": "extraction_gate", "extraction_gate": _gate_route("extraction", "match"),
             "match": "match_gate", "match_gate": _gate_route("matching", "assess"),
             "assess": "plan", "plan": END, "error_report": END}
    return Graph("match", "extract", nodes, edges)


def build_prep_graph(client: AskingClient, reader: AskingClient | None = None
                     ) -> Graph[PrepState]:
    """The full workflow twice around the clarification loop; ``ask`` is the interrupt."""
    n = Nodes(client, reader)
    nodes: dict[str, Callable[[PrepState], None]] = {
        name: getattr(n, name) for name in (
            "round_context", "extract", "extraction_gate", "match", "match_gate", "assess",
            "strategy", "questions", "package_gate", "select_gap", "ask", "assess_answer",
            "admit", "close_queue", "assemble", "error_report")}
    edges = {
        "round_context": _gate_route("round_context", "extract"),
        "extract": "extraction_gate",
        "extraction_gate": _gate_route("extraction", "match"),
        "match": "match_gate",
        "match_gate": _gate_route("matching", "assess"),
        "assess": "strategy",
        "strategy": "questions",
        "questions": "package_gate",
        "package_gate": Route(_package_branch, {"invalid": "error_report",
                                                "initial": "select_gap", "final": "assemble"}),
        "select_gap": Route(_gap_branch, {"ask": "ask", "close": "close_queue"}),
        "ask": Route(lambda s: "model" if answer_long_enough(s) else "skip",
                     {"model": "assess_answer", "skip": "admit"}),
        "assess_answer": "admit",
        "admit": "select_gap",
        "close_queue": "extract",
        "assemble": END,
        "error_report": END,
    }
    return Graph("prep", "round_context", nodes, edges, interrupts=frozenset({"ask"}))


@dataclass
class PrepOutcome:
    """The final state, and how the run got there."""

    state: PrepState
    trajectory: list[list[str]]
    interrupts: int

    @property
    def valid(self) -> bool:
        return self.state.package is not None or self.state.stop_reason == "plan_ready"


def run_match(state: PrepState, client: AskingClient | None = None) -> PrepOutcome:
    """The plan: requirements, verdicts and focus areas, or an error report (offline on the
    lexical paths)."""
    execution = build_match_graph(client).execute(state)
    execution.advance()
    return PrepOutcome(state, execution.trajectory, execution.interrupts)


def run_prep(state: PrepState, client: AskingClient, answers: clarify.AnswerSource,
             reader: AskingClient | None = None) -> PrepOutcome:
    """The full run: at each interrupt the answer source answers the question asked."""
    execution = build_prep_graph(client, reader).execute(state)
    while execution.advance() is not None:
        assert state.current is not None and state.question is not None
        state.answer = answers(state.requirement(state.current), state.question)
    return PrepOutcome(state, execution.trajectory, execution.interrupts)
