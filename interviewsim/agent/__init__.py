"""The multi-role interview agent: interviewer, evaluator and coach personas over a
code-owned state machine, interviewing a simulated personality or a person at the terminal.

Reading order: :mod:`plan` (interviews as configuration) → :mod:`state_machine` (who moves
the interview on) → :mod:`tools` (what a model may ask for, and the validator) →
:mod:`session` (one interview, turn by turn) → :mod:`artifacts`. ``docs/AGENT.md`` has the
design and its reasons.
"""
