"""The fact summary: one evaluation-only summary of a personality's held-out responses per
judge model, gated before the FC judge may use it (it must not name the person's records)."""

from __future__ import annotations

from interviewsim.config.settings import ModelSettings, NamedModelSettings
from interviewsim.data.corpus import PersonalityData
from interviewsim.judges.constraints import fact_summary_constraints
from interviewsim.judges.parsers import FactSummary, parse_fact_summary
from interviewsim.judges.prompts import fact_summary_messages
from interviewsim.judges.summary_gate import SummaryGate
from interviewsim.llm.asking import Ask, AskTask

FACT_SUMMARIES = "fact_summaries.jsonl"


def summary_task(judge: ModelSettings) -> AskTask[FactSummary]:
    return AskTask(parse=parse_fact_summary,
                     constraints=fact_summary_constraints(judge.max_tokens))


def summary_model(judge: NamedModelSettings, min_tokens: int) -> NamedModelSettings:
    """The judge as the fact summary asks it: ``judge.fact_summary_min_tokens`` at least."""
    return judge.model_copy(update={"max_tokens": max(judge.max_tokens, min_tokens)})


def summary_ask(person: PersonalityData) -> Ask:
    """The held-out responses by interview, oldest first; the gate knows this person's ids, so
    a summary that names one of their records is rejected like a broken contract."""
    interviews = [[p.response for p in pairs] for _, pairs in person.heldout_interviews()]
    pairs = person.train + person.heldout
    gate = SummaryGate([p.qa_id for p in pairs] + [p.interview_id for p in pairs])
    return Ask(fact_summary_messages(interviews),
               check=lambda parsed: gate.check(parsed.summary))
