"""From per-personality rows to results: macro-averaged metrics, paired tests and confidence
intervals, the report and plots, MLflow runs, style metrics and claim grounding."""
