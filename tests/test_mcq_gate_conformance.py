"""The MCQ grounding gate on the official synthetic examples (``../shared/conformance``): it
keeps their known-good atomic items and rejects the same items checked against responses they
did not come from. Skipped, saying so, when the conformance folder is absent.

``python -m tests.test_mcq_gate_conformance`` prints the figures docs/MCQ_GATE.md quotes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from interviewsim.config.params import McqParams
from interviewsim.data.schema import load_prepared_input
from interviewsim.data.split import split_interviews
from interviewsim.mcq.gate import grounding_gate
from interviewsim.text.coverage import DocumentFrequencies

THRESHOLD = McqParams().grounding_threshold


@dataclass(frozen=True)
class GateFigures:
    items: int
    kept_own: int
    """Items kept against their own source response."""
    rejected_other_person: int
    """Items rejected against another personality's held-out response (same position)."""
    rejected_other_interview: int
    """Items rejected against a response of the same person's earlier interviews (harder: same
    person, same vocabulary)."""
    compared_other_interview: int
    short: int = 0
    """Official items whose answer opens with Yes/No, asked again with that word alone."""
    short_kept_own: int = 0
    short_rejected_other_person: int = 0
    short_rejected_other_interview: int = 0
    short_compared_other_interview: int = 0


def gate_figures(conformance_dir: Path) -> GateFigures:
    people = []
    for folder in sorted((conformance_dir / "personalities").iterdir()):
        doc = load_prepared_input(folder / "prepared_input.json")
        split = split_interviews(doc, 0.2)
        train = [p for interview in split.train for p in interview.qa_pairs]
        heldout = [p for interview in split.test for p in interview.qa_pairs]
        pairs = {p.qa_id: p for i in doc.interviews for p in i.qa_pairs}
        items = json.loads((folder / "atomic_qas.json").read_text())["atomic_qas"]
        people.append((heldout, train, pairs, items))
    items = kept = other_person = other_interview = compared = 0
    short = short_kept = short_rejected = short_other = short_compared = 0
    for index, (heldout, train, pairs, atomic_items) in enumerate(people):
        frequencies = DocumentFrequencies.of(p.response for p in heldout)
        next_heldout = people[(index + 1) % len(people)][0]
        for position, item in enumerate(atomic_items):
            question, answer = item["question"], item["answer"]
            items += 1
            own = pairs[item["qa_id"]]
            kept += grounding_gate(question, answer, own.response, frequencies, THRESHOLD,
                                   own.question).kept
            stranger = next_heldout[position % len(next_heldout)]
            other_person += not grounding_gate(question, answer, stranger.response, frequencies,
                                               THRESHOLD, stranger.question).kept
            word = answer.split(",")[0].split(".")[0]
            is_short = word.lower() in ("yes", "no")
            if is_short:
                short += 1
                short_kept += grounding_gate(question, word, own.response, frequencies,
                                             THRESHOLD, own.question).kept
                short_rejected += not grounding_gate(question, word, stranger.response,
                                                     frequencies, THRESHOLD,
                                                     stranger.question).kept
            for pair in train:
                compared += 1
                other_interview += not grounding_gate(question, answer, pair.response,
                                                      frequencies, THRESHOLD, pair.question).kept
                if is_short:
                    short_compared += 1
                    short_other += not grounding_gate(question, word, pair.response, frequencies,
                                                      THRESHOLD, pair.question).kept
    return GateFigures(items, kept, other_person, other_interview, compared, short, short_kept,
                       short_rejected, short_other, short_compared)


def test_the_gate_keeps_official_items_and_rejects_them_elsewhere(conformance_dir):
    figures = gate_figures(conformance_dir)
    assert figures.items >= 10
    assert figures.kept_own >= 0.95 * figures.items, figures
    assert figures.rejected_other_person >= 0.90 * figures.items, figures
    assert figures.rejected_other_interview >= 0.90 * figures.compared_other_interview, figures
    assert figures.short and figures.short_kept_own == figures.short, figures


if __name__ == "__main__":
    from tests.conftest import CONFORMANCE

    found = gate_figures(CONFORMANCE)
    print(f"threshold {THRESHOLD}: {found.items} official atomic items; kept against their own "
          f"response {found.kept_own}/{found.items}; rejected against another personality's "
          f"response {found.rejected_other_person}/{found.items}; rejected against the same "
          f"person's earlier responses {found.rejected_other_interview}/"
          f"{found.compared_other_interview}; yes/no short forms: kept {found.short_kept_own}/"
          f"{found.short}, rejected against another personality's response "
          f"{found.short_rejected_other_person}/{found.short} and against the same person's "
          f"earlier responses {found.short_rejected_other_interview}/"
          f"{found.short_compared_other_interview}")
