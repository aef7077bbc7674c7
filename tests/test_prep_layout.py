"""Posting layouts the section reader must not misread into an empty extraction."""

from __future__ import annotations

from interviewsim.prep.extraction import candidate_lines
from interviewsim.prep.sections import blocks

FIELD_THEN_PROSE = """Vacancy: Plant Operator
Salary band: PW-7, plus standby allowance

THE POSITION. Day to day you will monitor chlorine residuals and adjust chemical dosing.

WHAT YOU WILL NEED. Applicants must hold a Grade 2 operator certificate.

WHAT WE OFFER. Local government pension and 25 days' leave.
"""


def test_a_salary_field_line_does_not_make_the_rest_of_the_posting_benefits() -> None:
    kinds = [block.kind for block in blocks(FIELD_THEN_PROSE)]
    assert kinds[1] == "benefits" and "requirements" in kinds


def test_capitalised_run_in_headings_open_their_sections() -> None:
    lines = candidate_lines(FIELD_THEN_PROSE)
    assert any("chlorine residuals" in line for line in lines)
    assert any(line.startswith("Applicants must hold") for line in lines)
    assert not any("pension" in line for line in lines)


def test_a_posting_whose_headings_all_read_as_benefits_still_yields_its_requirements() -> None:
    posting = "Compensation and perks\n\nYou must hold a forklift licence.\n"
    assert candidate_lines(posting) == ["You must hold a forklift licence."]
