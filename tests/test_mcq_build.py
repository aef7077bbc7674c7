"""Item building: re-asks, the grounding gate and the drop counts, with a scripted model.

``respond`` is also the script of the pipeline test (referenced from its params.yaml). It reads
the prompts this project writes and behaves per held-out pair j of the factory documents:
j=0 good; j=1 an answer the response does not state (gate); j=2 invalid first, valid on re-ask
(atomic and MCQ); j=3 never a valid atomic item; j=4 never a valid MCQ (duplicate options).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from interviewsim.config.params import Params, parse_params
from interviewsim.data.corpus import iter_personalities
from interviewsim.data.prepare import prepare_corpus
from interviewsim.llm.hub import ModelHub
from interviewsim.llm.scripted import ScriptedProvider
from interviewsim.llm.types import ChatRequest
from interviewsim.mcq.build import build_personalities, build_personality
from tests.factories import make_doc, write_doc

DEFAULTS = Params()
"""The experiment settings the scripted hub's callers use (the hub itself knows none)."""


def _field(text: str, name: str) -> str:
    match = re.search(rf"^{name}: (.*)$", text, re.MULTILINE)
    assert match, f"no {name!r} in prompt"
    return match.group(1)


def _atomic(user: str, attempt: int) -> str:
    question, response = _field(user, "Question"), _field(user, "Response")
    j = int(re.search(r"Answer (\d+) of", response).group(1))
    hours = re.search(r"ran (\d+) hours", response).group(1)
    good = f"Atomic Question: {question}\nAtomic Answer: The kiln ran {hours} hours"
    if j == 1:
        return f"Atomic Question: {question}\nAtomic Answer: Porcelain teapots in cobalt blue"
    if j == 2 and attempt == 0:
        return f"Sure! Here is the item.\n{good}"
    if j == 3:
        return "I would rather not."
    return good


def _mcq(user: str, attempt: int) -> str:
    question, answer = _field(user, "Question"), _field(user, "Correct answer")
    j = int(re.search(r"Question (\d+) of", question).group(1))
    kinds = re.findall(r'^\d+\. "(\w+)"', user, re.MULTILINE)
    texts = [answer, "The kiln never ran", "The kiln ran one hour", "The kiln ran all week"]
    options = [{"kind": k, "text": t} for k, t in zip(kinds, texts, strict=False)]
    if j == 2 and attempt == 0:
        options[1], options[2] = options[2], options[1]
    if j == 4:
        options[2]["text"] = answer.upper()
    return json.dumps({"question": question, "options": options, "correct_answer": "A"})


def _answers(user: str) -> str:
    """Opposite option without context, malformed under a profile, correct with pairs."""
    blocks = re.split(r"\n\n(?=Q\d+: )", user.split("Questions:\n\n", 1)[1])
    lines = []
    for number, block in enumerate(blocks, start=1):
        options = dict(re.findall(r"^([A-D])\. (.*)$", block, re.MULTILINE))
        wanted = "never" if "<context>" not in user else "The kiln ran"
        label = next(lab for lab, text in options.items()
                     if wanted in text and "one hour" not in text and "all week" not in text)
        lines.append(f"Q{number}: {label}")
    if "Profile:" in user:
        return "My answers:\n" + "\n".join(lines)
    return "\n".join(lines)


def respond(request: ChatRequest) -> str:
    user = request.messages[-1].content
    if "<transcript>" in user:
        return _atomic(user, request.sample_index)
    if "<item>" in user:
        return _mcq(user, request.sample_index)
    return _answers(user)


def prepared(root: Path, people: tuple[str, ...] = ("P1",), interviews: int = 5) -> Path:
    for pid in people:
        write_doc(root / "in", make_doc(pid, interviews=interviews, pairs=5))
    prepare_corpus(root / "in", root / "prepared", 0.2)
    return root / "prepared"


@pytest.fixture
def hub(tmp_path):
    params = parse_params({"cache": {"path": str(tmp_path / "cache.sqlite")}})
    provider = ScriptedProvider(respond)
    with ModelHub(params.hub, provider_overrides={"local": provider}) as hub:
        hub.scripted = provider
        yield hub


def test_every_held_out_pair_is_kept_or_dropped_with_its_reason(tmp_path, hub):
    person = next(iter_personalities(prepared(tmp_path)))
    client = hub.client(DEFAULTS.models.mcq_builder, label="mcq_builder")
    built = build_personality(person, client, DEFAULTS.mcq)
    status = {r.qa_id: r for r in built.records}
    assert [r.qa_id for r in built.records] == [p.qa_id for p in person.heldout]
    assert {q: r.status for q, r in status.items()} == {
        "P1-Q4-0": "kept", "P1-Q4-1": "dropped_by_gate", "P1-Q4-2": "kept",
        "P1-Q4-3": "dropped_invalid_atomic", "P1-Q4-4": "dropped_invalid_mcq"}
    assert built.counts() == {"kept": 2, "dropped_by_gate": 1, "dropped_invalid_atomic": 1,
                              "dropped_invalid_mcq": 1, "dropped_by_gate.text": 1}
    gated = status["P1-Q4-1"]
    assert gated.grounding_score == 0.0 and "below threshold 0.30" in gated.reason
    assert len(gated.atomic_calls) == 3  # a rejected item is re-asked like a broken contract
    kept = status["P1-Q4-0"]  # "The kiln ran 7 hours": the number is stated, the rest attested
    assert kept.grounding_kind == "number" and kept.grounding_score >= 0.30
    assert gated.grounding_kind == "text"
    never_atomic, never_mcq = status["P1-Q4-3"], status["P1-Q4-4"]
    assert len(never_atomic.atomic_calls) == 3 and "exactly 2 lines" in never_atomic.reason
    assert len(never_mcq.mcq_calls) == 3 and "unique" in never_mcq.reason
    reasked = status["P1-Q4-2"]
    assert [c.sample_index for c in reasked.atomic_calls] == [0, 1]
    assert [c.sample_index for c in reasked.mcq_calls] == [0, 1]
    temperatures = {r.sample_index: r.temperature for r in hub.scripted.calls}
    assert temperatures == {0: 0.0, 1: 0.7, 2: 0.7}  # a greedy re-ask would repeat itself
    assert [i.qa_id for i in built.items] == ["P1-Q4-0", "P1-Q4-2"]
    for item in built.items:
        assert item.option_count == 4 and item.role_of(item.correct_label) == "correct"


def test_constraints_are_sent_where_the_provider_supports_them(tmp_path, hub):
    person = next(iter_personalities(prepared(tmp_path)))
    client = hub.client(DEFAULTS.models.mcq_builder, label="mcq_builder")
    build_personality(person, client, DEFAULTS.mcq)
    kinds = {(r.constraint.kind, r.constraint.name) for r in hub.scripted.calls}
    assert kinds == {("grammar", "atomic_item"), ("grammar", "mcq")}


def test_three_option_build_uses_the_three_contract_roles(tmp_path, hub):
    person = next(iter_personalities(prepared(tmp_path)))
    client = hub.client(DEFAULTS.models.mcq_builder, label="mcq_builder")
    params = DEFAULTS.mcq.model_copy(update={"option_count": 3})
    built = build_personality(person, client, params)
    assert built.items and all(i.labels == ("A", "B", "C") for i in built.items)
    assert {o.role for i in built.items for o in i.options} == {
        "correct", "opposite_negation", "near_miss"}


def test_personalities_built_together_equal_one_at_a_time(tmp_path, hub):
    """mcq-build batches personalities to keep an endpoint busy; the records and items must be
    exactly those of building each alone (same requests, same answers)."""
    people = list(iter_personalities(prepared(tmp_path, people=("P1", "P2", "P3"))))
    client = hub.client(DEFAULTS.models.mcq_builder, label="mcq_builder")
    alone = [build_personality(person, client, DEFAULTS.mcq) for person in people]
    calls = len(hub.scripted.calls)
    together = build_personalities(people, client, DEFAULTS.mcq)
    assert len(hub.scripted.calls) == calls  # every request was already answered: the same ones
    assert [b.records for b in together] == [b.records for b in alone]
    assert [b.items for b in together] == [b.items for b in alone]
    assert {i.personality_id for b in together for i in b.items} == {"P1", "P2", "P3"}
