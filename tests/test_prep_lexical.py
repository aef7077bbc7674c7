"""The offline paths: section-aware extraction and rule-based matching (general behaviour; the
issue's traps are in test_prep_traps.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from interviewsim.prep.extraction import candidate_lines, extract_lexical
from interviewsim.prep.gates import extraction_gate, match_gate
from interviewsim.prep.matching import match_lexical, reference_frequencies
from interviewsim.prep.models import EvidenceItem, PrepSettings, Requirement
from interviewsim.text.coverage import LexicalCorpus, judge_lexically
from tests.test_prep_support import posting, sample_evidence

LISTED = """# Data Analyst

## About the role
We analyse things for a fictional co-operative.

Requirements:
- SQL/Python for analysis
* Designing A/B tests  with care
1. Clear   written communication
- SQL/Python for analysis
- Tact
• Stakeholder management across teams
"""


def _items(*texts: str) -> list[EvidenceItem]:
    return [EvidenceItem(id=f"EV-{i + 1:03d}", kind="file", title=f"item {i + 1}", text=t)
            for i, t in enumerate(texts)]


def test_list_items_become_requirements_verbatim_without_their_markers() -> None:
    texts = [r.text for r in extract_lexical(LISTED)]
    assert texts == ["SQL/Python for analysis", "Designing A/B tests  with care",
                     "Clear   written communication", "Tact",
                     "Stakeholder management across teams"]


def test_short_bullets_are_kept_while_headings_and_repeats_are_dropped() -> None:
    requirements = extract_lexical(LISTED)
    assert "Tact" in [r.text for r in requirements]
    assert not any("Requirements" in r.text or "About the role" in r.text for r in requirements)
    assert len({r.normalized for r in requirements}) == len(requirements)


def test_normalized_form_is_lowercase_and_whitespace_collapsed() -> None:
    requirement = extract_lexical(LISTED)[2]
    assert requirement.normalized == "clear written communication"
    assert requirement.text == requirement.source_quote == "Clear   written communication"


def test_ids_run_from_req_001_in_source_order() -> None:
    assert [r.id for r in extract_lexical(LISTED)] == ["REQ-001", "REQ-002", "REQ-003",
                                                       "REQ-004", "REQ-005"]


def test_prose_posting_falls_back_to_every_non_heading_line() -> None:
    prose = "Requirements\nYou have run a small bakery for years.\nYou like early mornings.\n"
    assert candidate_lines(prose) == ["You have run a small bakery for years.",
                                      "You like early mornings."]


def test_sample_posting_yields_its_ten_listed_requirements() -> None:
    requirements = extract_lexical(posting())
    assert len(requirements) == 10
    assert requirements[-1].text == "A nursing or public-health qualification"
    assert extraction_gate(requirements, posting(), PrepSettings()) == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["- ", "* ", "1. ", "", "## "]),
                          st.text(alphabet=st.characters(blacklist_categories=("Cs",),
                                                         blacklist_characters="\r\n\x0b\x0c"
                                                         "\x1c\x1d\x1e\x85\u2028\u2029"),
                                  max_size=40)),
                max_size=12))
def test_lexical_extraction_always_passes_its_own_grounding_rules(lines: list) -> None:
    text = "\n".join(marker + body for marker, body in lines)
    requirements = extract_lexical(text)
    relaxed = PrepSettings(min_requirements=1, max_requirements=40)
    problems = extraction_gate(requirements, text, relaxed) if requirements else []
    assert [p for p in problems if "requirements; expected" not in p] == []


def test_lexical_match_is_full_at_the_threshold_and_gap_below() -> None:
    corpus = LexicalCorpus([("EV-1", "python and sql every day"), ("EV-2", "gardening")])
    judged = judge_lexically("python sql kubernetes", corpus, threshold=0.0)
    exact = judged.best.score
    assert judge_lexically("python sql kubernetes", corpus, threshold=exact).coverage == "FULL"
    assert judge_lexically("python sql kubernetes", corpus,
                           threshold=exact + 1e-9).coverage == "GAP"


def test_full_verdict_cites_items_and_reports_overlapping_terms() -> None:
    requirement = Requirement(id="REQ-001", text="SQL/Python for analysis",
                              normalized="sql/python for analysis",
                              source_quote="SQL/Python for analysis")
    evidence = _items("Daily SQL and Python analysis of sales", "Pottery classes")
    [verdict] = match_lexical([requirement], evidence, PrepSettings())
    assert verdict.coverage == "FULL"
    assert verdict.evidence_ids == ("EV-001",)
    assert {"sql", "python", "analysis"} <= set(verdict.matched_terms)
    assert verdict.confidence == round(verdict.confidence, 4) > 0.30


def test_gap_cites_nothing_and_explains_the_best_near_miss() -> None:
    requirement = Requirement(id="REQ-001", text="Designing randomized experiments",
                              normalized="designing randomized experiments",
                              source_quote="Designing randomized experiments")
    [verdict] = match_lexical([requirement], _items("Ran A/B testing on checkout"),
                              PrepSettings())
    assert verdict.coverage == "GAP" and verdict.evidence_ids == ()
    assert "no evidence item affirms a content term" in verdict.explanation


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=5),
       st.lists(st.text(min_size=1, max_size=30), min_size=0, max_size=5),
       st.floats(0.0, 1.0))
def test_lexical_partial_comes_only_from_a_named_rule_and_passes_the_match_gate(
        requirement_texts: list[str], evidence_texts: list[str], threshold: float) -> None:
    """PARTIAL only from the rules (some distinctive terms, fewer years or a smaller count, a
    denied part), each naming what is missing; a requirement with none of those (plain lower
    case words) is FULL or GAP whatever its score."""
    requirements = [Requirement(id=f"REQ-{i + 1:03d}", text=t, normalized=t, source_quote=t)
                    for i, t in enumerate(requirement_texts)]
    evidence = _items(*evidence_texts)
    verdicts = match_lexical(requirements, evidence, PrepSettings(match_threshold=threshold))
    assert match_gate(requirements, verdicts, evidence) == []
    for requirement, verdict in zip(requirements, verdicts, strict=True):
        if verdict.coverage == "PARTIAL":
            assert verdict.missing and verdict.evidence_ids
        plain = requirement.text.islower() and not any(c.isdigit() for c in requirement.text)
        if plain and not any(c.isdigit() or c.isupper() for t in evidence_texts for c in t):
            assert verdict.coverage in ("FULL", "GAP") or "denies" in verdict.explanation


def _requirement(text: str, number: int = 1) -> Requirement:
    return Requirement(id=f"REQ-{number:03d}", text=text, normalized=text.lower(),
                       source_quote=text)


def test_a_file_items_title_and_tags_are_matched_and_named_but_alone_support_only_partial(
) -> None:
    tagged = EvidenceItem(id="EV-001", kind="file", title="Kiln maintenance",
                          text="Fixed the pottery's equipment every spring",
                          tags=("ceramics", "repair"))
    other = EvidenceItem(id="EV-002", kind="file", title="Garden", text="Grew beans")
    [verdict] = match_lexical([_requirement("Kiln repair")], [tagged, other], PrepSettings())
    assert verdict.coverage == "PARTIAL" and verdict.evidence_ids == ("EV-001",)
    assert "(from its title: kiln; from its tags: repair)" in verdict.explanation
    said = tagged.model_copy(update={"text": "I repaired the pottery's kiln every spring"})
    [full] = match_lexical([_requirement("Kiln repair")], [said, other], PrepSettings())
    assert full.coverage == "FULL"
    bare = tagged.model_copy(update={"title": "Spring work", "tags": ()})
    [unsupported] = match_lexical([_requirement("Kiln repair")], [bare, other], PrepSettings())
    assert unsupported.coverage == "GAP"


def test_a_qa_pairs_title_is_the_interviewers_question_and_attests_nothing() -> None:
    pair = EvidenceItem(id="EV-q1", kind="qa_pair", title="Have you ever done kiln repair?",
                        text="No, never; I only garden.", qa_id="q1")
    [verdict] = match_lexical([_requirement("Kiln repair")], [pair], PrepSettings())
    assert verdict.coverage == "GAP" and verdict.matched_terms == ()


def test_fixed_term_weights_keep_a_requirement_an_added_item_does_not_attest() -> None:
    """A budget claim added with the original corpus's weights changes no verdict but the
    budget requirement's, which it cites."""
    base = sample_evidence()
    claim = EvidenceItem(id="CL-001", kind="clarification", title="Clarification for REQ-005",
                         text="Managed the outreach programme budget of £310,000 in 2022.")
    requirements = extract_lexical(posting())
    fixed = reference_frequencies(base)
    before = match_lexical(requirements, base, PrepSettings(), fixed)
    after = match_lexical(requirements, [*base, claim], PrepSettings(), fixed)
    changed = [new.requirement_id for old, new in zip(before, after, strict=True) if old != new]
    assert changed == ["REQ-005"] and after[4].evidence_ids == ("CL-001",)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=4),
       st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=4),
       st.text(min_size=1, max_size=40), st.floats(0.05, 1.0))
def test_with_fixed_weights_an_added_item_changes_only_verdicts_that_cite_it(
        requirement_texts: list[str], evidence_texts: list[str], added: str,
        threshold: float) -> None:
    requirements = [_requirement(t, i + 1) for i, t in enumerate(requirement_texts)]
    base = _items(*evidence_texts)
    extra = EvidenceItem(id="CL-001", kind="clarification", title="c", text=added)
    settings_ = PrepSettings(match_threshold=threshold)
    fixed = reference_frequencies(base)
    before = match_lexical(requirements, base, settings_, fixed)
    after = match_lexical(requirements, [*base, extra], settings_, fixed)
    for old, new in zip(before, after, strict=True):
        if "CL-001" in new.evidence_ids:
            assert new.coverage in ("FULL", "PARTIAL")
        else:
            assert (new.coverage, new.evidence_ids) == (old.coverage, old.evidence_ids)
