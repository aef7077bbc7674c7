"""The traps of issue #33, one test each: what term overlap got wrong, and the rule that fixes it."""

from __future__ import annotations

import textwrap

from interviewsim.prep.clarify import admit
from interviewsim.prep.extraction import extract_lexical
from interviewsim.prep.matching import match_lexical
from interviewsim.prep.models import AnswerAssessment, EvidenceItem, PrepSettings, Requirement


def _items(*texts: str) -> list[EvidenceItem]:
    return [EvidenceItem(id=f"EV-{i + 1:03d}", kind="file", title=f"item {i + 1}", text=t)
            for i, t in enumerate(texts)]


def _verdict(requirement: str, *evidence: str) -> tuple[str, str]:
    req = Requirement(id="REQ-001", text=requirement, normalized=requirement.lower(),
                      source_quote=requirement)
    [verdict] = match_lexical([req], _items(*evidence), PrepSettings())
    return verdict.coverage, verdict.explanation


def test_a_denial_never_attests_the_term_it_denies_and_the_explanation_says_so() -> None:
    coverage, why = _verdict("Experience running production services on Kubernetes",
                             "I have never used Kubernetes; our services ran on a managed PaaS.")
    assert coverage == "GAP"
    assert 'set aside EV-001 "I have never used Kubernetes"' in why and "denial" in why
    for denial in ("No medical experience yet: my work was not developed under IEC 62304.",
                   "I haven't used IEC 62304 at work yet.", "I am yet to work under IEC 62304."):
        assert _verdict("Software developed under IEC 62304", denial)[0] == "GAP", denial


def test_a_wish_or_plan_never_attests_and_title_or_tags_of_that_item_do_not_either() -> None:
    item = EvidenceItem(id="EV-001", kind="file", title="Embedded Linux", tags=("yocto",),
                        text="I would like to learn Yocto. So far everything was bare-metal.")
    req = Requirement(id="REQ-001", text="Embedded Linux with Yocto",
                      normalized="embedded linux with yocto", source_quote="x")
    [verdict] = match_lexical([req], [item], PrepSettings())
    assert verdict.coverage == "GAP" and "a wish or plan is not experience" in verdict.explanation
    for wish in ("I'm keen to pick up Tableau next year.", "I am interested in Tableau.",
                 "I'm planning to take a Tableau course.", "I hope to use Tableau soon."):
        assert _verdict("Tableau", wish)[0] == "GAP", wish


def test_a_negation_about_something_else_does_not_hide_the_candidates_work() -> None:
    coverage, _ = _verdict("Experience with RabbitMQ",
                           "I designed the RabbitMQ queues so that retries never double-charge.")
    assert coverage == "FULL"


def test_c_does_not_attest_cpp_and_fewer_years_than_asked_is_partial() -> None:
    assert _verdict("5+ years writing firmware in C++",
                    "Seven years writing production firmware in C.")[0] == "PARTIAL"
    assert _verdict("Firmware in C++", "Seven years writing production firmware in Rust.")[0] \
        == "GAP"
    coverage, why = _verdict("5+ years writing firmware in C++",
                             "Three years writing firmware in C++ for pumps.")
    assert coverage == "PARTIAL" and "asks 5+ years" in why and "states 3" in why
    assert _verdict("5+ years writing firmware in C++",
                    "Six years writing firmware in C++ for pumps.")[0] == "FULL"


def test_java_is_not_javascript_and_alternatives_need_only_one() -> None:
    assert _verdict("Backend services in Java or Kotlin",
                    "Six years building backend services in JavaScript and Node.js.")[0] == "GAP"
    assert _verdict("Backend services in Java or Kotlin",
                    "Four years of backend services in Kotlin.")[0] == "FULL"


def test_generic_words_alone_never_make_full() -> None:
    coverage, _ = _verdict("5+ years building production services in Scala",
                           "Seven years building production services and more services.")
    assert coverage == "GAP"


def test_go_the_verb_does_not_attest_go_the_language() -> None:
    assert _verdict("Rust or Go", "Order events go through RabbitMQ.",
                    "Every Monday we go through the backlog.")[0] == "GAP"
    assert _verdict("Rust or Go", "I wrote the payment service in Go.")[0] == "FULL"


def test_a_smaller_count_than_the_posting_asks_is_partial() -> None:
    coverage, why = _verdict("Lead a 32-bed acute medical ward",
                             "Charge nurse leading a 28-bed acute medical ward.")
    assert coverage == "PARTIAL" and "states 28" in why


BULLETED = """# Warehouse Lead

## What you'll do
- Supervise the night shift across picking and loading

## Must have
- SQL
- 2+ years leading a team

## Nice to have
- dbt

## Benefits
- Competitive salary and a 401(k) match
- 25 days paid time off

## How to apply
Send your CV to jobs@example.test by Friday.
"""


def test_benefits_and_how_to_apply_are_never_requirements() -> None:
    texts = [r.text for r in extract_lexical(BULLETED)]
    assert not any("salary" in t or "401(k)" in t or "paid time off" in t or "CV" in t
                   for t in texts)


def test_short_bullets_under_a_requirements_heading_are_kept() -> None:
    texts = [r.text for r in extract_lexical(BULLETED)]
    assert "SQL" in texts and "dbt" in texts


def test_must_have_ranks_above_nice_to_have() -> None:
    importance = {r.text: r.importance for r in extract_lexical(BULLETED)}
    assert importance["SQL"] > importance["dbt"]
    assert importance["2+ years leading a team"] > importance["dbt"]


PROSE = """Who we are

Fernhollow Bakeries (fictional) bakes bread for forty villages. We are a cooperative.

What you bring

You have at least two years of experience running a commercial oven, and you can plan a night's bake for a team of four. You hold a food hygiene certificate. It would be a plus if you speak Welsh.

What we offer

A salary of 31,000 a year and free bread. Apply by sending your CV to jobs@example.test.
"""


def test_prose_is_split_into_requirement_sentences_and_bundles_into_parts() -> None:
    requirements = extract_lexical(PROSE)
    texts = [r.text for r in requirements]
    assert texts == [
        "You have at least two years of experience running a commercial oven",
        "you can plan a night's bake for a team of four.",
        "You hold a food hygiene certificate.",
        "It would be a plus if you speak Welsh.",
    ]
    assert requirements[-1].importance < requirements[0].importance


def test_a_hard_wrapped_copy_extracts_the_same_requirements() -> None:
    wrapped = "\n\n".join(textwrap.fill(paragraph, 60) for paragraph in PROSE.split("\n\n"))
    assert [r.text for r in extract_lexical(wrapped)] == [r.text for r in extract_lexical(PROSE)]


def _assessment(claim: str) -> AnswerAssessment:
    return AnswerAssessment(target_requirement_id="REQ-001", verdict="supports",
                            relevance_reason="r", specificity_reason="s", claim=claim)


def test_a_clarification_that_only_denies_or_wishes_is_not_admitted() -> None:
    answer = "I can't drive yet, but I'm booked onto lessons next spring."
    decision = admit("REQ-001", answer, _assessment("Is learning to drive."), PrepSettings())
    assert not decision.accepted and "only" in decision.reason
    fine = "I drove the mobile clinic van every week for two years."
    assert admit("REQ-001", fine, _assessment("Drove the clinic van weekly."),
                 PrepSettings()).accepted


def test_an_acronym_is_attested_by_its_words_but_a_known_name_only_by_itself() -> None:
    assert _verdict("Own the monthly P&L", "I own the monthly profit and loss for two sites.")[0] \
        == "FULL"
    assert _verdict("Keep the SDS file current for every chemical",
                    "I keep the safety data sheets file current for every chemical we use.")[0] \
        == "FULL"
    # SQL is a name: "structured query language" spelt out is fine, a chance run is not
    assert _verdict("SQL", "Senior quality lead in the lab.")[0] == "GAP"
    assert _verdict("Experience as a PM", "I present monthly reports.")[0] == "GAP"


def test_a_verbs_noun_in_al_meets_the_verb() -> None:
    assert _verdict("Appraise reception staff", "I carry out annual appraisals of the "
                    "reception staff.")[0] == "FULL"
    assert _verdict("Approve supplier invoices", "Invoice approvals for our suppliers were "
                    "mine.")[0] == "FULL"


def test_a_labelled_paragraph_is_split_into_its_sentences() -> None:
    posting = textwrap.dedent("""\
        Junior Baker

        The role: You will prove and bake sourdough loaves for the morning shift. You will
        keep the HACCP logs for the bakery.
        """).replace("shift. You will\n", "shift. You will ")
    texts = [r.text for r in extract_lexical(posting)]
    assert any(t.startswith("You will prove and bake sourdough") for t in texts), texts
    assert any("HACCP logs" in t and "sourdough" not in t for t in texts), texts



def test_a_denial_of_the_most_specific_term_anywhere_keeps_the_requirement_from_full() -> None:
    coverage, why = _verdict("Robotic milking experience",
                             "I lead the early milking: 180 cows through a herringbone parlour.",
                             "Milking hygiene is my job on the late shift too.",
                             "I have never worked with robotic milkers.")
    assert coverage == "PARTIAL" and "denies robotic (denied by EV-003)" in why
    # a denial of another thing that shares a common word does not
    assert _verdict("Explain the system to the customer at handover",
                    "I explain the heating system to every customer at handover.",
                    "I've never worked on a district heating network.")[0] == "FULL"
    # nor one the candidate affirms elsewhere
    assert _verdict("Robotic milking experience",
                    "I ran the robotic milkers at Fenby for two seasons.",
                    "I have never worked with robotic milkers from Lely.")[0] == "FULL"
