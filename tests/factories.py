"""Builders of small, valid prepared inputs for tests (fictional, generated on the fly)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any


def make_doc(
    personality_id: str = "P1",
    interviews: int = 5,
    pairs: int = 3,
    marker: str = "",
) -> dict[str, Any]:
    """A valid prepared_input document; ``marker`` is woven into every response text."""
    doc: dict[str, Any] = {
        "schema_version": "1.0",
        "personality_id": personality_id,
        "personality": {
            "profile": f"{personality_id} is a fictional potter.",
            "long_profile": f"{personality_id} is a fictional potter who talks about kilns.",
        },
        "interviews": [],
    }
    for i in range(interviews):
        doc["interviews"].append({
            "interview_id": f"{personality_id}-I{i}",
            "sequence": i * 10,
            "qa_pairs": [
                {
                    "qa_id": f"{personality_id}-Q{i}-{j}",
                    "question": f"Question {j} of interview {i} about glaze number {i * 7 + j}?",
                    "response": f"Answer {j} of interview {i}: the kiln ran {i * 7 + j} hours"
                    f"{' ' + marker + f'-{i}-{j}' if marker else ''}.",
                    "tags": ["kiln"] if j % 2 == 0 else [],
                }
                for j in range(pairs)
            ],
        })
    return doc


def write_doc(root: Path, doc: dict[str, Any] | str | bytes, folder: str | None = None) -> Path:
    """Write a document (or raw text/bytes) to ``root/<folder>/prepared_input.json``."""
    name = folder or (doc["personality_id"] if isinstance(doc, dict) else "raw")
    path = root / name / "prepared_input.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(doc, bytes):
        path.write_bytes(doc)
    elif isinstance(doc, str):
        path.write_text(doc, encoding="utf-8")
    else:
        path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


def mutated(doc: dict[str, Any], mutate) -> dict[str, Any]:
    copied = copy.deepcopy(doc)
    mutate(copied)
    return copied
