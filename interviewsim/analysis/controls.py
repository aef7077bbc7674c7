"""Control conditions: real answers scored as if they were simulated, to test the judges.

``oracle`` is the person's own held-out answer: an honest judge gives it top content
similarity, no contradiction and the person's own personality profile. ``impostor`` is the
real answer of a *different* personality to the most similar question (by the retrieval
embedder): fluent, on topic, and wrong about this person. A judge that scores the two alike
cannot tell the person from anyone else, and its strategy differences are not evidence
(:mod:`interviewsim.analysis.validity`). ``retest`` is the person's own real answer to their
most similar *training* question (same embedder, seeded tie-break; the source is always a
training pair): the person answering again, a model-free simulation and a self-consistency
ceiling. Normalized fidelity (:mod:`interviewsim.analysis.fidelity`) measures a strategy
between the impostor (0) and the retest (1).

Controls are never generated: they reach only the judge and mcq-answer stages, from their
own artifact, in their own output files. The impostor pool is the other personalities'
held-out pairs (real answers none of the strategies' contexts can hold).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from interviewsim.data.corpus import Pair, PersonalityData
from interviewsim.data.records import ControlAnswer
from interviewsim.errors import ConfigError, Problem

EmbedFn = Callable[[Sequence[str]], np.ndarray]

ORACLE = "oracle"
IMPOSTOR = "impostor"
RETEST = "retest"
EMBEDDED = frozenset({IMPOSTOR, RETEST})
"""The controls chosen by question similarity (they need the embedder)."""


def oracle_answers(person: PersonalityData) -> list[ControlAnswer]:
    """The person's own held-out answers, in held-out order."""
    pid = person.personality_id
    return [ControlAnswer(personality_id=pid, control=ORACLE, qa_id=p.qa_id,
                          interview_id=p.interview_id, question=p.question, response=p.response,
                          source_personality_id=pid, source_qa_id=p.qa_id)
            for p in person.heldout]


def _tie_break(seed: int, pid: str, qa_id: str, candidate: tuple[str, Pair]) -> str:
    """A seeded order among equally similar candidates (no dependence on input order)."""
    text = f"{seed}|{pid}|{qa_id}|{candidate[0]}|{candidate[1].qa_id}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def impostor_answers(heldout: dict[str, list[Pair]], embed: EmbedFn, seed: int,
                     digits: int = 6) -> dict[str, list[ControlAnswer]]:
    """For every personality in ``heldout`` (id → held-out pairs), each question answered by
    another personality's held-out answer to its most similar question (cosine similarity of
    the question embeddings, rounded to ``digits``; ties by a seeded hash)."""
    pool = [(pid, pair) for pid in sorted(heldout) for pair in heldout[pid]]
    if not pool:
        return {}
    vectors = np.asarray(embed([pair.question for _, pair in pool]), dtype=np.float32)
    owners = np.array([owner for owner, _ in pool])
    found: dict[str, list[ControlAnswer]] = {}
    for index, (pid, pair) in enumerate(pool):
        others = owners != pid
        if not others.any():
            continue  # one personality alone: nobody to impersonate it
        scores = np.round(vectors @ vectors[index], digits)  # the pool holds every question
        best = float(scores[others].max())
        tied = [pool[i] for i in np.flatnonzero(others & (scores == best))]
        owner, source = min(tied, key=lambda c: _tie_break(seed, pid, pair.qa_id, c))
        found.setdefault(pid, []).append(ControlAnswer(
            personality_id=pid, control=IMPOSTOR, qa_id=pair.qa_id,
            interview_id=pair.interview_id, question=pair.question, response=source.response,
            source_personality_id=owner, source_qa_id=source.qa_id, similarity=best))
    return found


def retest_answers(person: PersonalityData, embed: EmbedFn, seed: int, digits: int = 6
                   ) -> list[ControlAnswer]:
    """Each held-out question answered by the person's own real answer to their most similar
    training question (cosine similarity of the question embeddings, rounded to ``digits``;
    ties by a seeded hash). No training pair: no retest answers (the split always keeps
    one)."""
    pid, train = person.personality_id, list(person.train)
    if not train or not person.heldout:
        return []
    vectors = np.asarray(embed([p.question for p in train]), dtype=np.float32)
    asked = np.asarray(embed([p.question for p in person.heldout]), dtype=np.float32)
    found = []
    for pair, vector in zip(person.heldout, asked, strict=True):
        scores = np.round(vectors @ vector, digits)
        best = float(scores.max())
        tied = [(pid, train[i]) for i in np.flatnonzero(scores == best)]
        _, source = min(tied, key=lambda c: _tie_break(seed, pid, pair.qa_id, c))
        found.append(ControlAnswer(
            personality_id=pid, control=RETEST, qa_id=pair.qa_id,
            interview_id=pair.interview_id, question=pair.question, response=source.response,
            source_personality_id=pid, source_qa_id=source.qa_id, similarity=best))
    return found


def control_answers(people: Iterable[PersonalityData], controls: Sequence[str],
                    embed: EmbedFn | None, seed: int) -> list[ControlAnswer]:
    """Every control answer, sorted by personality, control (in ``controls`` order), then
    held-out order."""
    persons = list(people)
    impostors: dict[str, list[ControlAnswer]] = {}
    if IMPOSTOR in controls:
        if embed is None:
            raise ValueError("the impostor control needs an embedder")
        if sum(bool(p.heldout) for p in persons) < 2:
            raise ConfigError([Problem(
                "params.yaml", "controls",
                "the impostor control answers one person's questions with another's answers, "
                "so it needs at least two personalities with held-out pairs; remove impostor "
                "from controls for a single personality")])
        impostors = impostor_answers({p.personality_id: list(p.heldout) for p in persons},
                                     embed, seed)
    out: list[ControlAnswer] = []
    for person in sorted(persons, key=lambda p: p.personality_id):
        for control in controls:
            if control == ORACLE:
                out.extend(oracle_answers(person))
            elif control == IMPOSTOR:
                out.extend(impostors.get(person.personality_id, []))
            elif control == RETEST:
                if embed is None:
                    raise ValueError("the retest control needs an embedder")
                out.extend(retest_answers(person, embed, seed))
            else:
                raise ValueError(f"unknown control {control!r}")
    return out
