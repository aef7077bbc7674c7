"""The ``interviewsim`` commands that are not DVC stages: tools a researcher runs by hand
(params, plan, cache, batch, prep, interview, doctor)."""
