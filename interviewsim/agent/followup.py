"""The follow-up check: a follow-up must be built from the candidate's own words.

"Can you tell me more?" probes nothing; "You said the kiln ran nine hours: why nine?" probes
what was said. Whether a follow-up does the latter is checked lexically, without a model: it
must share content terms (stopwords removed, see :func:`interviewsim.text.coverage.terms`) with the
answer it follows up.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from interviewsim.text.coverage import terms

GENERIC_TERMS = frozenset({
    "tell", "say", "said", "mention", "mentioned", "talk", "talked", "explain", "describe",
    "think", "thought", "like", "know", "walk", "yes", "okay", "ok", "really", "something",
    "thing", "things", "bit", "little", "lot", "more", "much",
})
"""Words a generic probe uses whatever the answer was; sharing only these proves nothing."""


class FollowupCheck(BaseModel):
    """Whether one follow-up references the answer it follows."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    shared_terms: list[str]
    """Content terms of the follow-up that also occur in the answer, sorted."""
    required: int
    """How many shared terms the check requires."""

    @property
    def passed(self) -> bool:
        return len(self.shared_terms) >= self.required


def check_followup(followup: str, answer: str, min_shared_terms: int = 1) -> FollowupCheck:
    """Shared content terms between a follow-up and the answer it follows up."""
    shared = (terms(followup) & terms(answer)) - GENERIC_TERMS
    return FollowupCheck(shared_terms=sorted(shared), required=min_shared_terms)
