"""Writes a session's artifacts: the transcript, the scorecard and the records behind it.

Every file is written atomically; JSON Lines records are in the order they happened (turn
order), which is deterministic for a simulated session.
"""

from __future__ import annotations

from pathlib import Path

from interviewsim.agent.results import SessionResult
from interviewsim.agent.scorecard import Scorecard, build_scorecard
from interviewsim.data.jsonio import write_json_atomic, write_jsonl_atomic

FILES = {
    "transcript": "transcript.jsonl",
    "scorecard": "scorecard.json",
    "scores": "scores.jsonl",
    "flags": "flags.jsonl",
    "state_history": "state_history.jsonl",
    "tool_calls": "tool_calls.jsonl",
    "guardrail_audit": "guardrail_audit.jsonl",
    "followups": "followups.jsonl",
    "coach_feedback": "coach_feedback.jsonl",
    "persona_switches": "persona_switches.jsonl",
    "memory": "memory_summaries.jsonl",
    "live_guardrails": "live_guardrails.jsonl",
    "followup_generation": "followup_generation.jsonl",
}


def write_session(result: SessionResult, out_dir: str | Path) -> Scorecard:
    """Write every artifact of one session into ``out_dir``; returns the scorecard."""
    out = Path(out_dir)
    scorecard = build_scorecard(result)
    dump = "json"
    write_jsonl_atomic(out / FILES["transcript"],
                       (e.model_dump(mode=dump) for e in result.transcript))
    write_jsonl_atomic(out / FILES["scores"], (s.record() for s in result.scores))
    write_jsonl_atomic(out / FILES["flags"],
                       ({**f.model_dump(mode=dump), "resolved": f.resolved}
                        for f in result.flags))
    write_jsonl_atomic(out / FILES["state_history"],
                       (t.model_dump(mode=dump) for t in result.state_history))
    write_jsonl_atomic(out / FILES["tool_calls"],
                       (e.model_dump(mode=dump) for e in result.tool_log))
    write_jsonl_atomic(out / FILES["guardrail_audit"],
                       (a.model_dump(mode=dump) for a in result.audits))
    write_jsonl_atomic(out / FILES["followups"],
                       ({**f.model_dump(mode=dump), "passed": f.passed}
                        for f in result.followups))
    write_jsonl_atomic(out / FILES["coach_feedback"],
                       (n.model_dump(mode=dump) for n in result.coach_notes))
    write_jsonl_atomic(out / FILES["persona_switches"],
                       (s.model_dump(mode=dump) for s in result.persona_switches))
    write_jsonl_atomic(out / FILES["memory"],
                       (m.model_dump(mode=dump) for m in result.memory_summaries))
    write_jsonl_atomic(out / FILES["live_guardrails"],
                       (a.model_dump(mode=dump) for a in result.live_actions))
    write_jsonl_atomic(out / FILES["followup_generation"],
                       (g.model_dump(mode=dump) for g in result.generated_followups))
    write_json_atomic(out / FILES["scorecard"], scorecard.model_dump(mode=dump))
    return scorecard
