"""The session runner: one interview, turn by turn, with the code in charge of the flow.

A turn: the interviewer speaks (a verbatim plan question, a follow-up of a high-priority flag,
or a model-phrased question produced through validated actions, with a plan question as the
fallback), the guardrail audit checks it, the candidate replies, the evaluator scores a
substantive reply, the coach comments if enabled, and the state machine decides whether the
section ends. The model can request a section change; only the state machine performs it.
"""

from __future__ import annotations

from interviewsim.agent.actions import ask_action, feedback, rejection
from interviewsim.agent.candidates import Candidate, CandidateLeft, CandidateReply
from interviewsim.agent.clock import Clock
from interviewsim.agent.coach import Coach, topic_scores
from interviewsim.agent.config import AgentSettings
from interviewsim.agent.evaluator import Evaluator
from interviewsim.agent.followup import FollowupGenerator, check_followup
from interviewsim.agent.guardrails import GuardrailAuditor
from interviewsim.agent.language_fallback import LanguageFallback
from interviewsim.agent.live import LiveAction, LiveEvent, LiveGuard
from interviewsim.agent.memory import ConversationMemory, MemoryEntry
from interviewsim.agent.personas import (
    PERSONA_TOOLS,
    PersonaManager,
    SessionContext,
    Situation,
)
from interviewsim.agent.plan import InterviewPlan, StateConfig
from interviewsim.agent.prompts import OPENING_CUE
from interviewsim.agent.results import (
    CandidateInfo,
    FollowupRecord,
    SessionResult,
    TranscriptEntry,
    Utterance,
)
from interviewsim.agent.scoring import Flag
from interviewsim.agent.signals import HANDLING, Signal, detect_signals
from interviewsim.agent.state_machine import Facts, StateMachine
from interviewsim.agent.tools import FlagFollowupArgs, SayArgs, ToolContext, TransitionArgs
from interviewsim.llm import ModelClient
from interviewsim.llm.types import Message
from interviewsim.text.speech import analyze_speech, count_words

GENERIC_PROBE = "Could you walk me through that in more detail?"
"""Last-resort turn when the model failed and the section has no plan question left."""
UNSCORED_SIGNALS = frozenset({Signal.HINT_REQUEST, Signal.PROGRESS_QUESTION, Signal.UPSET})


class InterviewSession:
    """Runs one interview to its terminal state (or until the candidate leaves)."""

    def __init__(self, plan: InterviewPlan, settings: AgentSettings, interviewer: ModelClient,
                 evaluator: Evaluator, coach: Coach | None, candidate: Candidate,
                 clock: Clock, info: CandidateInfo,
                 followups: FollowupGenerator | None = None,
                 language: LanguageFallback | None = None):
        self.plan = plan
        self.settings = settings
        self.interviewer = interviewer
        self.evaluator = evaluator
        self.coach = coach if settings.coach_mode != "off" else None
        self.followups = followups
        self.live_guard = LiveGuard(plan, settings.silence_threshold_s,
                                    settings.min_substantive_words, settings.drift_max_exchanges)
        self.live: LiveAction | None = None
        """The live guardrail the next interviewer turn must handle."""
        self.coach_mark = 0
        """Coach notes before the current section (its topics are summed up when it ends)."""
        self.candidate = candidate
        self.clock = clock
        self.sm = StateMachine(plan)
        self.personas = PersonaManager(plan)
        self.memory = ConversationMemory(settings.memory_max_messages)
        self.language = language
        """The capable model behind the language layer, when ``language_fallback`` is set."""
        self.auditor = GuardrailAuditor(plan.area_ids(), language)
        self.result = SessionResult(plan=plan, candidate=info)
        self.turn = 0
        self.plan_cursor: dict[str, int] = {}
        self.fallback_cursor: dict[str, int] = {}
        self.pending_flag: int | None = None
        self.last_answer: tuple[int, str, str] | None = None
        """(turn, state, text) of the latest reply, for flags and follow-up checks."""
        self.signals: frozenset[Signal] = frozenset()
        self.state_replies: list[str] = []

    @property
    def context(self) -> SessionContext:
        """The context all three personas share."""
        return self.personas.context

    # ---- the loop -------------------------------------------------------------------------

    def run(self) -> SessionResult:
        self.context.sections_covered.append(self.sm.current)
        self._skip_empty_sections()
        while not self.sm.complete:
            utterance = self._interviewer_turn()
            if utterance is None:
                break
            self._say(utterance)
            try:
                reply = self.candidate.answer(utterance.text)
            except CandidateLeft:
                self.result.stop_reason = "candidate_left"
                self.sm.transition(self.plan.terminal_state, "candidate_left", self.turn,
                                   self.clock.minute())
                break
            self._hear(utterance, reply)
        return self._finish()

    def _say(self, utterance: Utterance) -> None:
        self.turn += 1
        state = self.sm.current
        self.sm.record_turn(utterance.text)
        self.live = None
        self.clock.spoke(utterance.text)
        self.result.transcript.append(TranscriptEntry(
            turn=self.turn, state=state, speaker="interviewer", text=utterance.text,
            minute=round(self.clock.minute(), 3), kind=utterance.kind,
            flag_id=utterance.flag_id))
        self.result.audits.append(self.auditor.audit(self.turn, state, utterance.text,
                                                     self.signals))
        self.context.questions_asked.append(utterance.text)
        self.memory.add(MemoryEntry(turn=self.turn, role="interviewer", state=state,
                                    text=utterance.text), self.context.scores, self.context.flags)
        if utterance.flag_id is not None:
            self._record_followup(utterance)
        if utterance.kind == "plan_question":
            self.plan_cursor[state] = self.plan_cursor.get(state, 0) + 1

    def _record_followup(self, utterance: Utterance) -> None:
        flag = self.context.flags[utterance.flag_id]
        flag.resolved_turn = self.turn
        if self.pending_flag == flag.flag_id:
            self.pending_flag = None
        answer = self._exchange(flag.turn)[1]
        self.result.followups.append(FollowupRecord(
            turn=self.turn, flag_id=flag.flag_id, answer_turn=flag.turn,
            followup=utterance.text,
            check=check_followup(utterance.text, answer, self.settings.followup_min_shared_terms)))

    def _hear(self, utterance: Utterance, reply: CandidateReply) -> None:
        state = self.sm.state
        self.signals = detect_signals(reply.text, utterance.text, self.language)
        self.clock.spoke(reply.text)
        self.result.transcript.append(TranscriptEntry(
            turn=self.turn, state=state.name, speaker="candidate", text=reply.text,
            minute=round(self.clock.minute(), 3), kind="answer",
            signals=sorted(self.signals), duration_s=reply.duration_s, valid=reply.valid,
            calls=reply.calls))
        self.context.answers.append(reply.text)
        self.memory.add(MemoryEntry(turn=self.turn, role="candidate", state=state.name,
                                    text=reply.text), self.context.scores, self.context.flags)
        self.state_replies.append(reply.text)
        self.last_answer = (self.turn, state.name, reply.text)
        if self._substantive(state, reply):
            self._assess(state, utterance.text, reply)
        live = self.live_guard.after_reply(self.turn, state, utterance.text, reply.text,
                                           reply.duration_s, reply.valid, self.signals)
        session_spent = self.turn >= self.plan.max_total_turns or \
            self.clock.minute() >= self.plan.total_minutes
        if self.sm.after_answer(self._facts(), self.turn, self.clock.minute(), session_spent):
            self._entered_section()
        if live is not None and (live.event != LiveEvent.DRIFT or live.state == self.sm.current):
            self.live = live  # drift is about a section; it lapses when the section ends
            self.result.live_actions.append(live)

    def _substantive(self, state: StateConfig, reply: CandidateReply) -> bool:
        return (state.scored and reply.valid and not (self.signals & UNSCORED_SIGNALS)
                and count_words(reply.text) >= self.settings.min_substantive_words)

    def _assess(self, state: StateConfig, question: str, reply: CandidateReply) -> None:
        self.personas.activate("evaluator", self.turn, "")
        assessment = self.evaluator.assess(self.turn, state.name, question, reply.text)
        self.result.tool_log.extend(assessment.log)
        for args in assessment.flags:
            self._register_flag(args, "evaluator")
        if assessment.score is None:
            self.result.unscored_turns.append(self.turn)
        else:
            self.context.add_score(assessment.score)
        if self.coach is not None:
            system = self.personas.coach_prompt()
            self.personas.activate("coach", self.turn, self.personas.compact_summary("coach"))
            topic = state.name if assessment.score is None else assessment.score.rubric_area
            note = self.coach.advise(system, self.turn, topic, question, reply.text,
                                     analyze_speech(reply.text, reply.duration_s))
            self.result.coach_notes.append(note)
            if self.settings.coach_mode == "live" and note.feedback is not None:
                self.candidate.hear("Coach", note.feedback.render())

    def _register_flag(self, args: FlagFollowupArgs, raised_by: str) -> dict:
        """Record a flag on the latest answer (the validator rejects flags before any)."""
        assert self.last_answer is not None
        turn, state, _ = self.last_answer
        flag = Flag(flag_id=len(self.context.flags), turn=turn, state=state,
                    raised_by=raised_by, **args.model_dump())
        self.context.flags.append(flag)
        if flag.priority == "high" and self.pending_flag is None:
            self.pending_flag = flag.flag_id
            return {"status": "flagged", "flag_id": flag.flag_id, "action": "follow_up_now",
                    "instruction": f"Ask this follow-up now: {flag.suggested_followup}"}
        return {"status": "flagged", "flag_id": flag.flag_id, "action": "queued"}

    # ---- sections ------------------------------------------------------------------------

    def _facts(self) -> Facts:
        state = self.sm.state
        left = len(state.questions) - self.plan_cursor.get(state.name, 0) \
            if state.question_source == "plan" else 0
        required = {a.id for a in self.plan.rubric if a.required} & set(state.rubric_areas)
        return Facts(
            plan_questions_left=max(left, 0),
            open_flags=len(self.context.open_flags()),
            unscored_required_areas=len(required - set(self.context.topics_covered)),
            candidate_done=bool(self.state_replies) and Signal.NO_MORE_QUESTIONS in self.signals,
        )

    def _entered_section(self) -> None:
        self.state_replies = []
        self._coach_topics()
        if not self.sm.complete:
            self.context.sections_covered.append(self.sm.current)
        self._skip_empty_sections()

    def _coach_topics(self) -> None:
        """In live coaching, the topics of the section that just ended, rated 1-10."""
        notes = self.result.coach_notes
        if self.settings.coach_mode == "live" and len(notes) > self.coach_mark:
            ended = {n.topic for n in notes[self.coach_mark:]}
            for topic in topic_scores(notes):
                if topic.topic in ended:
                    self.candidate.hear("Coach", f"Topic {topic.render()}")
        self.coach_mark = len(notes)

    def _skip_empty_sections(self) -> None:
        while not self.sm.complete and self.sm.skip_if_done(self._facts(), self.turn,
                                                             self.clock.minute()):
            if not self.sm.complete:
                self.context.sections_covered.append(self.sm.current)

    # ---- the interviewer's turn ----------------------------------------------------------

    def _followup_flag(self, state: StateConfig) -> Flag | None:
        if not state.allow_followups or self.live is not None:
            return None
        if self.pending_flag is not None:
            return self.context.flags[self.pending_flag]
        if state.question_source == "flags":
            return next(iter(self.context.open_flags()), None)
        return None

    def _interviewer_turn(self) -> Utterance | None:
        calls_left = self.settings.interviewer_max_calls
        exchange: list[Message] = []
        while not self.sm.complete:
            state = self.sm.state
            if self.live is not None and self.live.line and state.question_source != "model":
                return Utterance(text=self.live.line, kind="guardrail")
            flag = self._followup_flag(state)
            generated = self._generated_followup(flag)
            if generated is not None:
                return generated
            if flag is None and self.live is None and state.question_source == "plan":
                cursor = self.plan_cursor.get(state.name, 0)
                if cursor < len(state.questions):
                    return Utterance(text=state.questions[cursor], kind="plan_question")
            moved = False
            while calls_left > 0 and not moved:
                calls_left -= 1
                flag = self._followup_flag(state)
                verdict, entry = ask_action(self.interviewer, self._messages(state, flag,
                                                                             exchange),
                                            self._tool_context(), self._enums(),
                                            (self.turn + 1, state.name))
                self.result.tool_log.append(entry)
                if verdict is None or not verdict.accepted:
                    exchange += feedback(entry.call.raw, rejection(entry))
                    continue
                args = verdict.arguments
                if isinstance(args, SayArgs):
                    kind = "followup" if flag is not None else "question"
                    return Utterance(text=args.text, kind=kind,
                                     flag_id=None if flag is None else flag.flag_id)
                if isinstance(args, FlagFollowupArgs):
                    exchange += feedback(entry.call.raw, self._register_flag(args, "interviewer"))
                    continue
                if isinstance(args, TransitionArgs):
                    self.sm.transition(args.to_section, "requested", self.turn,
                                       self.clock.minute())
                    self._entered_section()
                    moved = True
                    exchange += feedback(entry.call.raw, self._transition_result())
            if not moved:
                return self._fallback(state, flag)
        return None

    def _transition_result(self) -> dict:
        if self.sm.complete:
            return {"status": "transitioned", "new_section": self.sm.current}
        return {"status": "transitioned", "new_section": self.sm.current,
                "instructions": self.sm.state.entry_instruction}

    def _exchange(self, turn: int) -> tuple[str, str]:
        """(question, answer) of one transcript turn."""
        said = {e.speaker: e.text for e in self.result.transcript if e.turn == turn}
        return said.get("interviewer", ""), said.get("candidate", "")

    def _generated_followup(self, flag: Flag | None) -> Utterance | None:
        """The follow-up generator's question for ``flag``, when it writes one that passes."""
        if flag is None or self.followups is None:
            return None
        question, answer = self._exchange(flag.turn)
        generated = self.followups.generate(self.turn + 1, flag, question, answer)
        self.result.generated_followups.append(generated)
        if generated.question is None:
            return None
        return Utterance(text=generated.question, kind="followup", flag_id=flag.flag_id)

    def _fallback(self, state: StateConfig, flag: Flag | None) -> Utterance:
        if self.live is not None and self.live.line:
            return Utterance(text=self.live.line, kind="guardrail")
        if flag is not None:
            return Utterance(text=flag.suggested_followup, kind="fallback", flag_id=flag.flag_id)
        cursor = self.fallback_cursor.get(state.name, 0)
        self.fallback_cursor[state.name] = cursor + 1
        text = state.questions[cursor] if cursor < len(state.questions) else GENERIC_PROBE
        return Utterance(text=text, kind="fallback")

    def _tool_context(self) -> ToolContext:
        return ToolContext(
            persona="interviewer", allowed=PERSONA_TOOLS["interviewer"],
            rubric_areas=tuple(self.plan.area_ids()),
            answer=None if self.last_answer is None else self.last_answer[2],
            refuse_transition=self.sm.refusal)

    def _enums(self) -> dict[str, list[str]]:
        names = [s.name for s in self.plan.states] + [self.plan.terminal_state]
        return {"from_section": names, "to_section": names}

    def _messages(self, state: StateConfig, flag: Flag | None,
                  exchange: list[Message]) -> list[Message]:
        instructions = [HANDLING[s] for s in sorted(self.signals) if s in HANDLING]
        if self.live is not None:
            instructions.append(self.live.instruction)
        if flag is not None:
            instructions.append(
                f"Follow up on the candidate's words \"{flag.answer_excerpt}\" "
                f"({flag.flag_type.replace('_', ' ')}). Build your question on those words; "
                f"for example: {flag.suggested_followup}")
        turns_left = state.turn_budget() - self.sm.turns_in_state
        minutes_left = None if state.max_minutes is None else \
            state.max_minutes - (self.clock.minute() - self.sm.entered_minute)
        situation = Situation(state=state, turns_left=turns_left, minutes_left=minutes_left,
                              memory_summary=self.memory.summary_text(with_scores=False),
                              instructions=tuple(instructions))
        system = self.personas.interviewer_prompt(situation)
        self.personas.activate("interviewer", self.turn + 1, self.personas.compact_summary(
            "interviewer", situation.memory_summary))
        history = self.memory.chat_messages() or [Message(role="user", content=OPENING_CUE)]
        return [Message(role="system", content=system), *history, *exchange]

    def _finish(self) -> SessionResult:
        result = self.result
        result.state_history = list(self.sm.history)
        result.states_entered = list(self.sm.entered)
        result.state_coverage = self.sm.coverage()
        result.scores = list(self.context.scores)
        result.flags = list(self.context.flags)
        result.persona_switches = list(self.personas.switches)
        result.memory_summaries = list(self.memory.summaries)
        return result
