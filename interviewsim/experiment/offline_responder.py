"""The offline model: a deterministic answer to every prompt the experiment sends, in the output
contract that prompt asks for, so the whole pipeline runs in seconds with no model at all.

It answers the generator (and the interview twin), the fact summary, Content Similarity,
Factual Consistency and Personality Similarity judges, the MCQ builder's atomic items and
questions, the MCQ answerers, and the interview agent's interviewer, evaluator and coach. The
values vary with a hash of the prompt, so metrics differ between strategies but mean nothing:
it checks that the pipeline runs end to end and what it writes, never what a model would say.
Any other prompt gets ``echo: <the last user message>``.

Use it as a scripted provider (README "Models"; ``params.offline.yaml`` sets every role to it)::

    providers:
      offline: {kind: scripted, script: "interviewsim.experiment.offline_responder:respond"}

The test suite uses the same answers, through the scripted provider and through the mock
OpenAI-compatible server (``tests/mock_openai.py``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from interviewsim.agent import prompts as agent_prompts
from interviewsim.generation import prompt as generation
from interviewsim.judges import prompts as judge_prompts
from interviewsim.llm.types import ChatRequest
from interviewsim.mcq import prompts as mcq

SECTION_AREAS = {
    "WARM_UP": "background",
    "TECHNICAL_DEEP_DIVE": "distributed_systems",
    "SYSTEM_DESIGN": "system_design",
    "BEHAVIORAL": "collaboration",
    "TOPICS": "experience",
    "FOLLOW_UPS": "views",
}
"""The rubric area the evaluator scores in each section of the bundled plans
(data/agent/plans/); any other section scores ``background``."""

FEEDBACK = json.dumps({
    "what_worked": "You named the quorum size you used.",
    "what_to_improve": "The trade-off came late.",
    "how_to_improve": "Lead with the trade-off, then the numbers.",
    "score": 6,
    "to_raise_score": "State the trade-off before the numbers.",
    "study": "Quorum reads and writes in Designing Data-Intensive Applications.",
})
"""The coach's feedback (one valid feedback object)."""

PERSONAS = {
    "interviewer": agent_prompts.INTERVIEWER.split("{", 1)[0],
    "evaluator": agent_prompts.EVALUATOR.split("{", 1)[0],
    "coach": agent_prompts.COACH.split("{", 1)[0],
    "followup": agent_prompts.FOLLOWUP.split("{", 1)[0],
}
"""Each agent persona by the fixed start of its system prompt."""


def action(name: str, **arguments: object) -> str:
    """One agent action in the JSON shape the agent parses."""
    return json.dumps({"action": name, "arguments": arguments})


def say(text: str) -> str:
    return action("say", text=text)


def score(accuracy: int, clarity: int, depth: int, relevance: int, area: str,
          summary: str = "answered") -> str:
    return action("score_answer", technical_accuracy=accuracy, communication_clarity=clarity,
                  depth_of_reasoning=depth, relevance=relevance, rubric_area=area,
                  answer_summary=summary, notable_observations="")


def persona_of(system: str) -> str:
    """``interviewer``, ``evaluator`` or ``coach`` by the system prompt; else ``candidate``."""
    return next((name for name, start in PERSONAS.items() if system.startswith(start)),
                "candidate")


def _section(messages: Sequence[tuple[str, str]], pattern: str) -> str:
    match = re.search(pattern, "\n".join(content for _, content in messages[:2]))
    return match.group(1) if match else "WARM_UP"


def agent_answer(persona: str, messages: Sequence[tuple[str, str]]) -> str:
    """The interviewer asks a question naming its section, the evaluator scores 6/7/5/8 in
    the section's area, the coach gives :data:`FEEDBACK`, the follow-up generator asks why
    about the flagged words."""
    if persona == "interviewer":
        section = _section(messages, r"Current section: ([A-Z_]+)")
        asked = sum(1 for role, _ in messages if role == "assistant")
        return say(f"Question {asked + 1} on {section.lower().replace('_', ' ')}: "
                   "how did you approach it?")
    if persona == "evaluator":
        section = _section(messages, r"Section: ([A-Z_]+)")
        return score(6, 7, 5, 8, SECTION_AREAS.get(section, "background"))
    if persona == "followup":
        excerpt = _between(_last(messages, "user"), '): "', '"\nWrite')
        return json.dumps({"question": f"You said \"{excerpt}\": why was that?"})
    return FEEDBACK


def _last(messages: Sequence[tuple[str, str]], role: str) -> str:
    return next((content for r, content in reversed(messages) if r == role), "")


def _between(text: str, start: str, end: str) -> str:
    return text.split(start, 1)[-1].split(end, 1)[0].strip()


def _mcq(user: str) -> str:
    question = _between(user, "<item>\nQuestion: ", "\nCorrect answer: ")
    answer = _between(user, "\nCorrect answer: ", "\n</item>")
    kinds = [line.split('"')[1] for line in user.split("\n")
             if line[:1].isdigit() and '"' in line]
    texts = [answer, f"Never {answer}", f"{answer} twice over", "Something else entirely"]
    options = [{"kind": kind, "text": text} for kind, text in zip(kinds, texts, strict=False)]
    return json.dumps({"question": question, "options": options, "correct_answer": "A"})


def _mcq_answers(user: str, pick: int) -> str:
    block = user.split("\nQuestions:\n", 1)[-1]
    count = sum(1 for line in block.split("\n") if line.startswith("Q") and ": " in line
                and line[1:line.index(":")].isdigit())
    return "\n".join(f"Q{i}: {'ABC'[(pick + i) % 3]}" for i in range(1, count + 1))


def answer(messages: Sequence[tuple[str, str]]) -> str:
    """The answer to a prompt given as (role, content) pairs (module doc)."""
    system, user = _last(messages, "system"), _last(messages, "user")
    pick = int(hashlib.sha256(user.encode("utf-8")).hexdigest()[:8], 16)
    if system == judge_prompts.CS_SYSTEM:
        return json.dumps({"score": 1 + pick % 5, "explanation": "Both talk about the kiln."})
    if system == judge_prompts.FACT_SUMMARY_SYSTEM:
        return json.dumps({"summary": "A potter who talks about kilns, glazes and long firings.",
                           "explanation": "Only what the answers say."})
    if system == judge_prompts.FC_SYSTEM:
        label = ("Entailment", "Neutral", "Contradiction")[pick % 3]
        return json.dumps({"label": label, "explanation": "Compared with the summary."})
    if system == judge_prompts.PS_SYSTEM:
        level = ("Low", "Neutral", "High")[pick % 3]
        return f"<rate>{level}</rate> <justification>The responses show it.</justification>"
    if system == mcq.ATOMIC_SYSTEM:
        question = _between(user, "Question: ", "\nResponse: ")
        response = _between(user, "\nResponse: ", "\n</transcript>")
        return (f"Atomic Question: {question or 'What?'}\n"
                f"Atomic Answer: {' '.join(response.split()[:8]) or 'nothing'}")
    if system == mcq.MCQ_SYSTEM:
        return _mcq(user)
    if system == mcq.ANSWER_SYSTEM:
        return _mcq_answers(user, pick)
    if system == generation.SYSTEM:
        return f"Speaking for myself, the kiln takes {pick % 97} hours and I check it twice."
    persona = persona_of(system)
    if persona != "candidate":
        return agent_answer(persona, messages)
    return f"echo: {user}"


def respond(request: ChatRequest) -> str:
    """The scripted provider's form (``script: ...offline_responder:respond``)."""
    return answer([(m.role, m.content) for m in request.messages])


def respond_to_body(body: Mapping[str, Any]) -> str:
    """The same answer to an OpenAI chat-completions request body (a mock server's form)."""
    return answer([(str(m.get("role", "")), str(m.get("content", "")))
                   for m in body.get("messages", [])])
