"""DVC stage ``style``: filler rate, hedge rate and length of the
generated answers against the real ones. Deterministic: no model is called."""

from __future__ import annotations

from pathlib import Path

import click

from interviewsim.analysis.metrics import strategy_means
from interviewsim.analysis.style import STYLE_METRICS, style_metrics
from interviewsim.data.jsonio import read_jsonl, write_json_atomic, write_jsonl_atomic
from interviewsim.data.prepare import HELDOUT_PAIRS
from interviewsim.data.stage_summary import write_summary
from stages.common import GENERATED_DIR, PREPARED_DIR

STYLE_OUT = Path("data/artifacts/style")


@click.command("style")
@click.option("--answers", type=click.Path(dir_okay=False, path_type=Path),
              default=GENERATED_DIR / "answers.jsonl", show_default=True)
@click.option("--prepared-dir", type=click.Path(path_type=Path), default=PREPARED_DIR,
              show_default=True)
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path),
              default=STYLE_OUT, show_default=True)
def style(answers: Path, prepared_dir: Path, out_dir: Path) -> None:
    """Filler rate, hedge rate and length of generated vs real answers (absolute differences).

    Outputs: personality_metrics.jsonl (judge ``style``), metrics.json, summary.json.
    Deterministic: no model is called.
    """
    references = {(r["personality_id"], r["qa_id"]): r["response"]
                  for r in read_jsonl(prepared_dir / HELDOUT_PAIRS)}
    rows = style_metrics(read_jsonl(answers), references)
    write_jsonl_atomic(out_dir / "personality_metrics.jsonl",
                       (r.model_dump(mode="json") for r in rows))
    write_json_atomic(out_dir / "metrics.json", {"style": strategy_means(rows, STYLE_METRICS)})
    write_summary(out_dir / "summary.json", {"rows": len(rows)}, {})
    click.echo(f"style metrics: {len(rows)} rows -> {out_dir}")
