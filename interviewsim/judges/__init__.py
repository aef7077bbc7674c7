"""The judges: CS, fact summary, FC and PS prompts, their output contracts and decoding
constraints, the fact-summary gate, how a personality's judgments are planned and reduced to
per-personality metrics."""
