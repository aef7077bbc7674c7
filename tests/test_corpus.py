"""Reading the prepared artifacts back: every personality, or a copy's share of them."""

from __future__ import annotations

from interviewsim.data.corpus import iter_personalities
from stages.runner.copies import Shard
from tests.factories import make_doc
from tests.stage_runner import invoke, make_workspace


def test_a_copys_share_is_exactly_those_personalities_even_with_id_lookalikes_in_text(tmp_path):
    docs = [make_doc(f"P{i}", marker=f"p{i}") for i in range(5)]
    # Free text that quotes the key the reader groups lines by must not confuse it.
    docs[1]["interviews"][0]["qa_pairs"][0]["response"] = 'I wrote "personality_id": "P4" once.'
    root = make_workspace(tmp_path, docs, "tests.scripted_models:echo_answer")
    assert invoke(root, "prepare").exit_code == 0
    prepared = root / "data/artifacts/prepared"
    everyone = list(iter_personalities(prepared))
    assert [p.personality_id for p in everyone] == [f"P{i}" for i in range(5)]
    assert any('"personality_id": "P4"' in pair.response for pair in everyone[1].train)
    for count in (2, 3):
        for index in range(count):
            share = list(iter_personalities(prepared, Shard(index, count).takes))
            assert share == everyone[index::count]
