"""Governed interview preparation: posting + evidence in, a traceable preparation package out.

The pipeline splits "am I ready for this job?" into stages whose boundaries code checks:
requirements are extracted (lexically or by a model) and must quote the posting; each is
matched against an evidence corpus with citations that must resolve; focus areas are
arithmetic; strategy and practice questions come from a model and pass a package gate that
re-checks every reference. Gaps are asked about once each, and an answer only becomes evidence
after code-owned admission gates. Control flow lives in :mod:`interviewsim.prep.graph`; no model
output ever chooses the next step. See docs/PREP.md.
"""
