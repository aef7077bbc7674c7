"""The second round of rules, checked on the rules alone (no model): each widened class finds
its open-ended phrasings and leaves its near misses, and the threshold rule lets the model
help a class whose rules are imprecise."""

from __future__ import annotations

import numpy as np
import pytest

from interviewsim.agent.guardrails import Rule, rule_matches
from interviewsim.agent.language_eval import CorpusItem
from interviewsim.agent.language_model import OUTPUTS
from interviewsim.agent.language_train import choose, out_of_writer_report
from interviewsim.agent.signals import Signal, rule_signals

TECH = "Find the k largest numbers in a stream."


@pytest.mark.parametrize(("turn", "rule"), [
    ("Just so you know, the band here tops out at 90k.", Rule.OFF_LIMITS),
    ("We've got three openings on the night shift at the moment.", Rule.OFF_LIMITS),
    ("Honestly, you're one of four finalists.", Rule.OFF_LIMITS),
    ("Would a lower base with more share options work for you?", Rule.OFF_LIMITS),
    ("Might a sliding window simplify this?", Rule.HINT),
    ("The key insight is that you only need the previous row.", Rule.HINT),
    ("A lot of people reach for a trie here.", Rule.HINT),
    ("I'm afraid that won't fly with the auditors.", Rule.DISMISSIVE),
    ("You're conflating latency with throughput there.", Rule.DISMISSIVE),
    ("I can't fault that.", Rule.PRAISE),
])
def test_the_widened_lexicons_find_open_ended_phrasings(turn, rule):
    assert rule in rule_matches(turn)


@pytest.mark.parametrize("turn", [
    "Design a service that computes sales commission at month end.",
    "How did you budget for the team offsite?",
    "What are the benefits of event sourcing?",
    "In Raft, what do the other candidates do once a leader is elected?",
    "Would it help to take a minute before you answer?",
])
def test_pay_and_technique_words_about_the_candidates_work_break_no_guardrail(turn):
    assert {Rule.OFF_LIMITS, Rule.HINT} & set(rule_matches(turn)) == set()


@pytest.mark.parametrize(("reply", "signal"), [
    ("Did that land, do you think?", Signal.PROGRESS_QUESTION),
    ("so yeah that's my query, was that too long", Signal.PROGRESS_QUESTION),
    ("Am I still in the running?", Signal.PROGRESS_QUESTION),
    ("Did I lose marks for skipping the tests?", Signal.PROGRESS_QUESTION),
    ("Min-heap of size k, yeah?", Signal.HINT_REQUEST),
    ("Is that the idea you had in mind?", Signal.HINT_REQUEST),
    ("BFS or DFS, which would you prefer I use?", Signal.HINT_REQUEST),
    ("um would i get paid overtime for weekends", Signal.OFF_LIMITS),
])
def test_questions_in_any_voice_carry_their_signal(reply, signal):
    assert signal in rule_signals(reply, TECH)


@pytest.mark.parametrize("reply", [
    "Is it okay if I use Python?",
    "Is it linear? Well, yes: each element is pushed and popped once.",
    "I built the payroll export, mostly the pension deductions.",
])
def test_clarifications_self_answered_guesses_and_work_stories_carry_no_signal(reply):
    assert rule_signals(reply, TECH) == frozenset()


def test_a_label_whose_rules_are_imprecise_is_gated_by_the_model():
    """Rules half right on eight items (the model scores their false finds 0.1), the model right
    on six more: the rules' finding needs the model's agreement, and of the pairs that find
    everything precisely the highest is chosen (the model decides alone)."""
    rules = [{"x"}] * 8 + [set()] * 8
    gold = [{"x"}] * 4 + [set()] * 4 + [{"x"}] * 6 + [set()] * 2
    probs = np.array([0.9] * 4 + [0.1] * 4 + [0.8] * 6 + [0.3, 0.2])
    assert choose("x", probs, rules, gold, ["a"] * 16, min_fired=4) == (0.8, 0.8)


def test_where_the_rules_are_precise_they_stand_alone():
    """The rules find two the model scores low, precisely: only gate 0 keeps them."""
    rules = [{"x"}] * 2 + [set()] * 6
    gold = [{"x"}] * 6 + [set()] * 2
    probs = np.array([0.05, 0.05, 0.9, 0.9, 0.9, 0.9, 0.3, 0.2])
    assert choose("x", probs, rules, gold, ["a"] * 8, min_fired=4) == (0.9, 0.0)


def test_precision_must_hold_on_each_left_out_writer_not_only_pooled():
    """Pooled, 0.85 is 18 of 19 precise; on writer b it is 8 of 9 (under the floor), so the
    threshold rises to where b is precise too."""
    gold = [{"x"}] * 10 + [set()] * 2 + [{"x"}] * 8 + [set()]
    probs = np.array([0.97] * 10 + [0.3] * 2 + [0.97] * 6 + [0.85] * 2 + [0.9])
    rules = [set()] * len(gold)
    assert choose("x", probs, rules, gold, ["a"] * len(gold), min_fired=4) == (0.85, 0.85)
    assert choose("x", probs, rules, gold, ["a"] * 12 + ["b"] * 9, min_fired=4) == (0.97, 0.97)


def test_a_label_nothing_makes_precise_takes_its_most_precise_pair():
    rules = [set()] * 6
    gold = [{"x"}, set(), {"x"}, set(), set(), set()]
    probs = np.array([0.9, 0.85, 0.8, 0.5, 0.5, 0.2])
    assert choose("x", probs, rules, gold, ["a"] * 6, min_fired=2) == (0.8, 0.8)


def test_the_out_of_writer_report_scores_committed_and_left_out_decisions_per_writer():
    """``language_train --out-of-writer``: each writer is scored with the committed decision
    and with the one the committed procedure chooses on the other writers."""
    items, rows = [], []
    for writer in ("wa-", "wb-"):
        for n in range(12):
            praised = n < 6
            items.append(CorpusItem(id=f"{writer}turn-{n:04d}", kind="turn", hard=False,
                                    split="train", text=f"We'll move on to part {n} now.",
                                    question=False, invitation=False,
                                    guardrails=[Rule("praise")] if praised else []))
            rows.append([0.95 if praised and o == "turn:praise" else 0.05 for o in OUTPUTS])
    report = out_of_writer_report(items, np.array(rows), [(0.5, 0.5)] * len(OUTPUTS),
                                  writers=("wa-", "wb-"))
    praise = next(line for line in report.splitlines() if line.startswith("| turn:praise |"))
    assert praise == "| turn:praise | 1.00/1.00 → 1.00/1.00 | 1.00/1.00 → 1.00/1.00 |"
    assert report.endswith("committed 2 of 26 (class, writer) cells; chosen on the other "
                           "writers 2 of 26.")
