"""The language layer's fallback model (agent.yaml ``language_fallback``), through the seam.

A scripted model plays the capable model: it labels the texts it is given and nothing else,
so each test shows what the fallback decides and what it may not override.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from interviewsim.agent.config import AgentSettings
from interviewsim.agent.guardrails import GuardrailAuditor, Rule, rule_matches
from interviewsim.agent.language_eval import CorpusItem, main, predictions
from interviewsim.agent.language_fallback import LanguageFallback
from interviewsim.agent.language_model import turn_labels
from interviewsim.agent.plan import load_plan
from interviewsim.agent.results import CandidateInfo
from interviewsim.agent.setup import open_clients, run_session
from interviewsim.agent.signals import Signal, detect_signals
from interviewsim.config.params import Params
from interviewsim.errors import ConfigError
from interviewsim.llm.capability import capable
from interviewsim.llm.types import ChatRequest
from tests.language_doubles import fixed
from tests.test_agent_support import PersonaScript, ScriptedCandidate, make_hub

LABELS: dict[str, list[str]] = {
    "Question 2 on warm up: how did you approach it?": ["hint"],
    "Funny, most of our strongest people took the graph route here.": ["hint"],
    "Great answer, you nailed it.": [],
    "Honestly I'm not sure where to take this next, any thoughts?": ["hint_request"],
    "I keep blanking and my hands are shaking.": ["upset"],
    "All good on my end.": ["no_more_questions"],
    "What questions do you have for me?": ["invitation"],
    "That is the technical part finished, so the remaining time belongs to you.": ["invitation"],
    "Over to you: how would you fix the leak?": [],
    "Nope, I'm set.": ["no_more_questions"],
}
"""What the scripted capable model answers, by the text it is asked about."""


def _asked_text(request: ChatRequest) -> str:
    user = request.messages[-1].content
    marker = "replied:\n" if "replied:\n" in user else "said:\n"
    return user.rsplit(marker, 1)[-1]


def labeller(request: ChatRequest) -> str:
    """The capable model: JSON labels from :data:`LABELS` (none for an unknown text)."""
    return json.dumps({"labels": LABELS.get(_asked_text(request), [])})


def is_language_call(request: ChatRequest) -> bool:
    return request.messages[0].content.startswith("You label one utterance")


class Recorder:
    def __init__(self, answer=labeller):
        self.answer = answer
        self.asked: list[str] = []

    def __call__(self, request: ChatRequest) -> str:
        self.asked.append(_asked_text(request))
        return self.answer(request)


def fallback(tmp_path: Path, answer=labeller) -> tuple[LanguageFallback, Recorder, object]:
    recorder = Recorder(answer)
    hub = make_hub(tmp_path, recorder)
    model = AgentSettings.model_validate({"language_fallback": {
        "provider": "local", "model": "capable-model", "max_tokens": 64}}).language_fallback
    return LanguageFallback(hub.client(model, label="language")), recorder, hub


@pytest.fixture(autouse=True)
def encoder_finds_nothing(use, base_encoder):
    """The encoder finds nothing unless a test says otherwise: what the fallback does is then
    all that differs (and no test depends on the committed weights)."""
    use(fixed(base_encoder))


def test_the_fallback_adds_what_rules_and_the_encoder_miss_and_names_itself(tmp_path):
    text = "Funny, most of our strongest people took the graph route here."
    assert Rule.HINT not in rule_matches(text) and "hint" not in turn_labels(text)
    layer, recorder, hub = fallback(tmp_path)
    with hub:
        audit = GuardrailAuditor((), layer).audit(3, "CODING", text)
    assert [(v.rule, v.match) for v in audit.violations] == [(Rule.HINT, f"(fallback) {text}")]
    assert recorder.asked == [text]


def test_the_models_reading_is_final_but_a_leaked_rubric_id_stays(tmp_path):
    """Round 16: where the capable model answers, the rules' findings no longer stand (their
    false alarms were what kept the layer below the bar); an area id leaked verbatim is the
    code's own finding and stays."""
    text = "Great answer, you nailed it."
    assert Rule.PRAISE in rule_matches(text)
    leak = "You're doing well on distributed_systems so far."
    layer, _, hub = fallback(tmp_path)
    with hub:
        audit = GuardrailAuditor((), layer).audit(1, "CODING", text)
        leaked = GuardrailAuditor(("distributed_systems",), layer).audit(2, "CODING", leak)
    assert audit.violations == []
    assert [(v.rule, v.match) for v in leaked.violations] == [
        (Rule.RUBRIC_LEAK, "distributed_systems")]


def test_the_models_reading_of_an_invitation_decides_whether_a_closer_counts(tmp_path):
    """The code misses a hand-over in other words and takes a question about the task for
    one; with the capable model its reading decides, in the prompt and for the closer."""
    from interviewsim.agent.signals import invitation_reading, invites_questions

    handover = "That is the technical part finished, so the remaining time belongs to you."
    task = "Over to you: how would you fix the leak?"
    assert not invites_questions(handover) and invites_questions(task)  # the code's misreads
    layer, recorder, hub = fallback(tmp_path)
    with hub:
        assert invitation_reading(handover, layer) and not invitation_reading(task, layer)
        assert Signal.NO_MORE_QUESTIONS in detect_signals("Nope, I'm set.", handover, layer)
        assert Signal.NO_MORE_QUESTIONS not in detect_signals("Nope, I'm set.", task, layer)
    assert not invitation_reading(handover) and invitation_reading(task)  # no model: the code
    assert handover in recorder.asked and task in recorder.asked


def test_an_encoder_label_counts_only_where_the_fallback_agrees(tmp_path, use, base_encoder):
    use(fixed(base_encoder, {"turn:rubric_leak": 0.9}))  # the encoder flags it, the rules not
    text = "I have a box here for 'asks clarifying questions', just so you're aware."
    model_only = {label for label in turn_labels(text) if label != "invitation"} - {
        r.value for r in rule_matches(text)}
    assert model_only == {"rubric_leak"}
    plain = GuardrailAuditor(()).audit(1, "CODING", text)
    assert model_only <= {v.rule.value for v in plain.violations}
    layer, _, hub = fallback(tmp_path)  # the scripted model gives this text no label
    with hub:
        audited = GuardrailAuditor((), layer).audit(1, "CODING", text)
    assert not model_only & {v.rule.value for v in audited.violations}


def test_reply_signals_come_from_rules_and_fallback_and_closers_need_an_invitation(tmp_path):
    layer, recorder, hub = fallback(tmp_path)
    with hub:
        ask = "Honestly I'm not sure where to take this next, any thoughts?"
        assert Signal.HINT_REQUEST in detect_signals(ask, "Design a rate limiter.", layer)
        upset = "I keep blanking and my hands are shaking."
        assert Signal.UPSET in detect_signals(upset, "Walk me through the schema.", layer)
        # asked about each text once, however often it is looked up
        detect_signals(upset, "Walk me through the schema.", layer)
        closer = "All good on my end."
        assert Signal.NO_MORE_QUESTIONS not in detect_signals(closer, "Ready to start?", layer)
        assert Signal.NO_MORE_QUESTIONS in detect_signals(
            closer, "What questions do you have for me?", layer)
    assert recorder.asked.count(upset) == 1


def test_an_output_that_never_parses_leaves_the_text_to_the_cheap_layer(tmp_path):
    layer, recorder, hub = fallback(tmp_path, answer=lambda request: "Yes, praise.")
    text = "Great answer, you nailed it."
    with hub:
        audit = GuardrailAuditor((), layer).audit(1, "CODING", text)
    assert Rule.PRAISE in {v.rule for v in audit.violations}  # the rules' finding
    assert layer.invalid == 1 and recorder.asked == [text, text]  # asked, then re-asked once


def test_unknown_classes_are_refused_by_the_parser(tmp_path):
    layer, _, hub = fallback(tmp_path, answer=lambda r: json.dumps({"labels": ["flattery"]}))
    with hub:
        assert layer.turn("Nice.") is None


def params_with(tmp_path: Path, **provider) -> Params:
    return Params.model_validate({"cache": {"path": str(tmp_path / "cache.sqlite")},
                                  "providers": {"local": provider}})


def test_the_embedded_135m_model_is_refused_as_the_fallback(tmp_path):
    settings = AgentSettings.model_validate({"language_fallback": {
        "provider": "local", "model": "smollm2-135m-instruct"}})
    params = params_with(tmp_path, kind="llama_cpp", model_path="smollm2-135m-instruct")
    with pytest.raises(ConfigError, match="language_fallback.*not capable"):
        settings.check_providers(params, "agent.yaml")
    assert not capable("local-small", "models/SmolLM2-135M-Instruct-Q8_0.gguf")
    assert capable("qwen2.5-7b-instruct")
    with pytest.raises(ConfigError, match="language_fallback.provider"):
        AgentSettings.model_validate({"language_fallback": {
            "provider": "nowhere", "model": "big"}}).check_providers(params, "agent.yaml")


def test_a_session_uses_the_fallback_and_a_replay_asks_it_nothing_again(tmp_path):
    recorder = Recorder()

    def script(request: ChatRequest) -> str:
        return recorder(request) if is_language_call(request) else PersonaScript()(request)

    settings = AgentSettings.model_validate({"language_fallback": {
        "provider": "local", "model": "capable-model", "max_tokens": 64}})
    runs = []
    for _ in range(2):
        hub = make_hub(tmp_path, script)
        with hub:
            result = run_session(load_plan("technical"), settings,
                                 open_clients(hub, Params(), settings),
                                 ScriptedCandidate([]), CandidateInfo(kind="scripted"))
        runs.append((len(recorder.asked), result))
    asked, first = runs[0]
    hints = [v for a in first.audits for v in a.violations if v.rule is Rule.HINT]
    assert hints and hints[0].match.startswith("(fallback) Question 2 on warm up")
    assert asked > 0 and runs[1][0] == asked  # the replay came from the cache
    assert runs[1][1].audits == first.audits


def test_language_eval_fallback_scores_the_layer_with_the_configured_model(tmp_path, capsys,
                                                                           monkeypatch):
    corpus = tmp_path / "corpus.jsonl"
    rows = [CorpusItem(id="t1", kind="turn", split="holdout", hard=True, question=False,
                       text="Funny, most of our strongest people took the graph route here.",
                       guardrails=[Rule.HINT]),
            CorpusItem(id="r1", kind="reply", split="holdout", hard=False,
                       after="Walk me through the schema.",
                       text="I keep blanking and my hands are shaking.",
                       signals=[Signal.UPSET])]
    corpus.write_text("".join(r.model_dump_json() + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({
        "cache": {"path": str(tmp_path / "cache.sqlite")},
        "providers": {name: {"kind": "scripted",
                             "script": "tests.test_agent_language_fallback:labeller"}
                      for name in ("local", "big")}}))
    agent = tmp_path / "agent.yaml"
    agent.write_text(yaml.safe_dump({"language_fallback": {"provider": "big",
                                                           "model": "capable-model"}}))
    monkeypatch.chdir(tmp_path)
    main([str(corpus), "--fallback", str(agent)])
    out = capsys.readouterr().out
    assert "| interviewer turns | hint | 1 | 1.00 [0.21, 1.00] | 1.00 [0.21, 1.00] |" in out
    assert "| candidate replies | upset | 1 | 1.00 [0.21, 1.00] | 1.00 [0.21, 1.00] |" in out
    assert "Fallback outputs that never parsed: 0" in out
    agent.write_text("language_fallback: null\n")
    with pytest.raises(SystemExit, match="language_fallback: is null"):
        main([str(corpus), "--fallback", str(agent)])


def test_without_a_fallback_predictions_are_the_cheap_layers():
    item = CorpusItem(id="t", kind="turn", hard=False, question=False,
                      text="Great answer, you nailed it.")
    assert "praise" in predictions([item])[0][1]
