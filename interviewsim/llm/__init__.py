"""The model seam: providers (OpenAI-compatible, embedded llama.cpp, scripted) behind one
interface, with an exact response cache, bounded retries, concurrency and usage accounting.

Stages use :class:`ModelHub` and :class:`ModelClient`; see :mod:`interviewsim.llm.hub` and
:mod:`interviewsim.llm.client`.
"""

from interviewsim.llm.client import ModelClient
from interviewsim.llm.hub import ModelHub
from interviewsim.llm.types import (
    CallEstimate,
    ChatRequest,
    ChatResult,
    Message,
    OutputConstraint,
    Usage,
)

__all__ = [
    "ChatRequest",
    "ChatResult",
    "CallEstimate",
    "Message",
    "ModelClient",
    "ModelHub",
    "OutputConstraint",
    "Usage",
]
