#!/usr/bin/env bash
# Prove that the committed results reproduce: pull the shipped responses, replay the whole
# pipeline with model calls forbidden, and fail unless dvc.lock and reports/ come out byte for
# byte as they went in and `dvc status` reports nothing changed. A commit that changes a
# stage's code or params without `make lock` fails here, naming what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
sample=data/sample-cache/responses.jsonl

before="$(mktemp -d)"
trap 'rm -rf "$before"' EXIT
cp -a dvc.lock reports "$before/"

# Outs missing in a fresh clone are expected; a changed dep, param or command is not.
dvc status --json dvc.yaml | python -c '
import json, sys
status = json.load(sys.stdin)
stale = []
for stage, changes in sorted(status.items()):
    for entry in changes:
        if not isinstance(entry, dict):
            continue
        for kind in ("changed deps", "changed params", "changed command"):
            if kind not in entry:
                continue
            what = entry[kind]
            if isinstance(what, dict):  # an upstream out not produced yet is no change
                what = {path: state for path, state in what.items()
                        if not (state == "deleted" and path.startswith("data/artifacts/"))}
            if what:
                stale.append(f"stage {stage}: {kind} against the committed dvc.lock: "
                             f"{json.dumps(what)}")
for line in stale:
    print(f"check-reproduction: {line}", file=sys.stderr)
sys.exit(1 if stale else 0)
' || { echo "Run \`make lock\` and commit dvc.lock, reports/ and the sample cache together." >&2
       exit 1; }
dvc pull -q "$sample.dvc"
interviewsim cache merge "$sample" >/dev/null
start=$(date +%s)
INTERVIEWSIM_REPLAY_ONLY=1 dvc repro -q -f --no-run-cache || {
  echo "check-reproduction: the replay needed a model call or failed (above)." >&2
  echo "Run \`make lock\` and commit dvc.lock, reports/ and the sample cache together." >&2
  exit 1
}
echo "check-reproduction: replayed every stage from the shipped cache in $(( $(date +%s) - start )) s"

failed=0
if ! cmp -s dvc.lock "$before/dvc.lock"; then
  echo "check-reproduction: dvc.lock differs from the committed one after a replay:" >&2
  diff "$before/dvc.lock" dvc.lock >&2 || true
  failed=1
fi
# every report file there was before (those in git; DVC-cached ones are absent in a clone)
changed="$(cd "$before" && find reports -type f | sort | while read -r f; do
  cmp -s "$before/$f" "$f" || echo "$f"; done)"
if [ -n "$changed" ]; then
  echo "check-reproduction: these report files differ after a replay:" $changed >&2
  failed=1
fi
after="$(dvc status --json dvc.yaml)"
if [ "$after" != "{}" ]; then
  echo "check-reproduction: dvc status after the replay: $after" >&2
  failed=1
fi
if [ "$failed" -ne 0 ]; then
  echo "Run \`make lock\` and commit dvc.lock, reports/ and the sample cache together." >&2
  exit 1
fi
echo "check-reproduction: dvc.lock and reports/ reproduced byte for byte; dvc status clean"
