"""Every paid request is counted once, by whoever paid for it: two processes sharing one
response cache send the same requests to a counting endpoint at the same time; the calls
their usage reports add up to what the endpoint received, though only one answer per key is
stored (the loser of each first-writer race still paid)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.mock_openai import MockOpenAI

CHAT = "/v1/chat/completions"
KEY_ENV = "INTERVIEWSIM_TEST_KEY"

WORKER = """
import json, sys
sys.path.insert(0, {root!r})
from interviewsim.llm import ModelHub
from interviewsim.config.settings import HubSettings, ModelSettings
settings = HubSettings.model_validate({{"cache_path": {cache!r}, "providers": {{"api": {{
    "kind": "openai", "base_url": {url!r}, "api_key_env": "{key}", "max_concurrency": 16}}}}}})
with ModelHub(settings) as hub:
    client = hub.client(ModelSettings(provider="api", model="gpt-test"), label="race")
    requests = [client.request([{{"role": "user", "content": f"q{{i}}"}}]) for i in range(24)]
    results = client.complete_many(requests)
    print(json.dumps({{"usage": hub.usage(), "texts": [r.text for r in results]}}))
"""


def test_calls_that_lose_the_cache_race_are_still_counted(tmp_path: Path) -> None:
    with MockOpenAI(latency_s=0.3) as server:
        code = WORKER.format(root=str(Path(__file__).resolve().parents[1]),
                             cache=str(tmp_path / "responses.sqlite"), url=server.base_url,
                             key=KEY_ENV)
        env = {**os.environ, KEY_ENV: "test-key", "INTERVIEWSIM_PROGRESS": "0"}
        workers = [subprocess.Popen([sys.executable, "-c", code], env=env, text=True,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                   for _ in range(2)]
        outputs = [w.communicate(timeout=120) for w in workers]
        assert all(w.returncode == 0 for w in workers), [err for _, err in outputs]
        received = server.count(CHAT)
    reports = [json.loads(out) for out, _ in outputs]
    calls = sum(row["calls"] for r in reports for row in r["usage"].values())
    hits = sum(row["cache_hits"] for r in reports for row in r["usage"].values())
    assert received > 24  # both processes missed some keys: the race happened
    assert calls == received  # every paid request counted once, by the process that paid
    assert calls + hits == 48
    assert reports[0]["texts"] == reports[1]["texts"]  # both use the first stored answers
