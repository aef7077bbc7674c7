"""The candidates: a twin is built exactly as ``generate`` builds it and never sees a held-out
answer; a person answers through a text stream."""

from __future__ import annotations

import io

import pytest

from interviewsim.agent.candidates import CandidateLeft, HumanCandidate, SimulatedCandidate
from interviewsim.agent.config import AgentSettings
from interviewsim.agent.plan import load_plan
from interviewsim.agent.results import CandidateInfo
from interviewsim.agent.setup import open_clients, personality_plan, run_session, twin
from interviewsim.config.params import ALL_STRATEGIES, Params
from interviewsim.config.settings import EmbedderSettings
from interviewsim.context.embeddings import build_embedder
from interviewsim.context.strategies import RetrievalIndex, select_context
from interviewsim.data.corpus import load_personality
from interviewsim.data.prepare import prepare_corpus
from interviewsim.errors import LeakageError
from interviewsim.generation.prompt import generation_messages
from tests.factories import make_doc, write_doc
from tests.test_agent_support import PersonaScript, make_hub

DEFAULTS = Params()
"""The experiment settings the scripted hub's callers use (the hub itself knows none)."""


@pytest.fixture
def person(tmp_path):
    root = tmp_path / "personalities"
    write_doc(root, make_doc("P1", interviews=5, pairs=3, marker="SECRET"))
    prepare_corpus(root, tmp_path / "prepared", 0.2)
    return load_personality(tmp_path / "prepared", "P1")


@pytest.fixture
def index(tmp_path, person):
    embedder = build_embedder(EmbedderSettings(), cache_dir=str(tmp_path / "emb"))
    return RetrievalIndex.build(person.train, embedder.embed, "question+response")


@pytest.mark.parametrize("strategy", ALL_STRATEGIES)
def test_twin_prompt_for_a_heldout_question_is_the_generate_prompt(person, index, strategy):
    params = Params()
    candidate = SimulatedCandidate(person, strategy, None, params.context, params.seed, index, 1)
    for pair in person.heldout:
        selection = select_context(strategy, person, [pair.question], params.context,
                                   params.seed, index)
        expected = generation_messages("P1", pair.question, selection, person.train_by_id())
        assert candidate.messages_for(pair.question) == expected


def test_no_heldout_answer_reaches_any_model_call_of_a_twin_interview(tmp_path, person, index):
    script = PersonaScript()
    hub = make_hub(tmp_path, script)
    settings = AgentSettings()
    try:
        clients = open_clients(hub, DEFAULTS, settings)
        candidate = twin(person, "hybrid", clients, DEFAULTS, settings, index)
        run_session(personality_plan(load_plan("personality"), person), settings, clients,
                    candidate, CandidateInfo(kind="simulated"))
    finally:
        hub.close()
    prompts = ["\n".join(m.content for m in request.messages) for _, request in script.requests]
    heldout = [p.response for p in person.heldout]
    assert all("SECRET-4-" not in text for text in prompts)
    assert not any(response in text for response in heldout for text in prompts)
    twin_prompts = [t for (persona, _), t in zip(script.requests, prompts, strict=True)
                    if persona == "candidate"]
    assert any("SECRET-3-" in text for text in twin_prompts), "training context must be there"
    assert any(person.heldout[0].question in text for text in twin_prompts)


def test_twin_is_stopped_if_an_interviewer_turn_quotes_heldout_text(person):
    params = Params()
    candidate = SimulatedCandidate(person, "no-context", None, params.context, params.seed,
                                   None, 1)
    leaked = person.heldout[0].response
    with pytest.raises(LeakageError, match="held-out response text"):
        candidate.messages_for(f"Someone once said: {leaked} Do you agree?")


def test_twin_reasks_a_blank_answer_with_the_next_sample_index(tmp_path, person):
    script = PersonaScript(candidate=["", "   ", "The kiln ran long."])
    hub = make_hub(tmp_path, script)
    try:
        clients = open_clients(hub, DEFAULTS, AgentSettings())
        candidate = twin(person, "no-context", clients, DEFAULTS, AgentSettings(), None)
        reply = candidate.answer("What did you fire last?")
    finally:
        hub.close()
    assert reply.text == "The kiln ran long." and reply.valid
    assert [c.sample_index for c in reply.calls] == [0, 1, 2]


def test_human_candidate_reads_one_line_per_answer_and_times_it():
    ticks = iter([10.0, 12.5])
    out = io.StringIO()
    human = HumanCandidate(io.StringIO("We used Raft.\n"), out, now=lambda: next(ticks))
    reply = human.answer("How did you replicate it?")
    assert (reply.text, reply.duration_s) == ("We used Raft.", 2.5)
    assert "Interviewer: How did you replicate it?\nYou: " in out.getvalue()
    human.hear("Coach", "Lead with the trade-off.")
    assert out.getvalue().endswith("Coach: Lead with the trade-off.\n")


@pytest.mark.parametrize("typed", ["", "/quit\n"])
def test_human_candidate_leaves_on_end_of_input_or_quit(typed):
    with pytest.raises(CandidateLeft):
        HumanCandidate(io.StringIO(typed), io.StringIO()).answer("Ready?")
