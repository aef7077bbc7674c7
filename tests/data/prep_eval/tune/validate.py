"""Validate the prep_tune labelled set: decoding, key-phrase uniqueness, evidence shape, label schema.

Run from anywhere:  python3 validate.py   (prints per-posting counts; exits 1 on any error)
"""
import glob
import json
import os
import re
import sys
from collections import Counter

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
VERDICTS = {"FULL", "PARTIAL", "GAP"}
IMPORTANCE = {"must", "nice"}
KEYS = {"posting", "key_phrase", "requirement", "importance", "verdict", "evidence", "why"}
EV_ID = re.compile(r"^EV-\d{3}$")


def decode_posting(path):
    raw = open(path, "rb").read()
    if path.endswith(".utf16.txt"):
        assert raw[:2] in (b"\xff\xfe", b"\xfe\xff"), f"{path}: missing UTF-16 BOM"
        return raw.decode("utf-16")
    if path.endswith(".cp1252.txt"):
        try:
            raw.decode("utf-8")
            raise AssertionError(f"{path}: decodes as UTF-8, expected genuine cp1252 bytes")
        except UnicodeDecodeError:
            pass
        return raw.decode("cp1252")
    return raw.decode("utf-8")


def count_ci(hay, needle):
    hay, needle = hay.lower(), needle.lower()
    n, i = 0, hay.find(needle)
    while i != -1:
        n += 1
        i = hay.find(needle, i + 1)
    return n


def main():
    errors, rows_out = [], []
    names = sorted(os.path.basename(p)[: -len(".labels.jsonl")] for p in glob.glob(os.path.join(HERE, "*.labels.jsonl")))
    total = Counter()
    for name in names:
        posts = [p for p in glob.glob(os.path.join(HERE, name + ".posting.*"))]
        if len(posts) != 1:
            errors.append(f"{name}: expected one posting file, found {posts}")
            continue
        text = decode_posting(posts[0])
        ev_path = os.path.join(HERE, name + ".evidence.yaml")
        doc = yaml.safe_load(open(ev_path, encoding="utf-8"))
        if not isinstance(doc, dict) or set(doc) != {"evidence"} or not isinstance(doc["evidence"], list):
            errors.append(f"{name}: evidence.yaml must be a mapping with a single 'evidence' list")
            continue
        items = doc["evidence"]
        if not 8 <= len(items) <= 20:
            errors.append(f"{name}: {len(items)} evidence items (need 8-20)")
        ids = []
        for it in items:
            if not set(it) <= {"id", "title", "summary", "tags"} or not {"id", "title", "summary"} <= set(it):
                errors.append(f"{name}: bad evidence keys {sorted(it)}")
            if not EV_ID.match(str(it.get("id"))):
                errors.append(f"{name}: bad evidence id {it.get('id')}")
            if not isinstance(it.get("summary"), str) or not it["summary"].strip():
                errors.append(f"{name}: empty summary in {it.get('id')}")
            if "tags" in it and not isinstance(it["tags"], list):
                errors.append(f"{name}: tags not a list in {it.get('id')}")
            ids.append(it.get("id"))
        if len(set(ids)) != len(ids):
            errors.append(f"{name}: duplicate evidence ids")
        ids = set(ids)
        counts = Counter()
        seen = set()
        for ln, line in enumerate(open(os.path.join(HERE, name + ".labels.jsonl"), encoding="utf-8"), 1):
            if not line.strip():
                continue
            r = json.loads(line)
            where = f"{name}.labels.jsonl:{ln}"
            if set(r) != KEYS:
                errors.append(f"{where}: keys {sorted(r)}")
                continue
            if r["posting"] != name:
                errors.append(f"{where}: posting field {r['posting']!r} != {name!r}")
            kp = r["key_phrase"]
            if "\n" in kp or kp != kp.strip() or not 1 <= len(kp.split()) <= 6:
                errors.append(f"{where}: key phrase shape {kp!r}")
            c = count_ci(text, kp)
            if c != 1:
                errors.append(f"{where}: key phrase {kp!r} occurs {c}x in decoded posting")
            if kp.lower() in seen:
                errors.append(f"{where}: duplicate key phrase {kp!r}")
            seen.add(kp.lower())
            if r["importance"] not in IMPORTANCE:
                errors.append(f"{where}: importance {r['importance']!r}")
            if r["verdict"] not in VERDICTS:
                errors.append(f"{where}: verdict {r['verdict']!r}")
            for e in r["evidence"]:
                if e not in ids:
                    errors.append(f"{where}: unknown evidence id {e}")
            if r["verdict"] == "GAP" and r["evidence"]:
                errors.append(f"{where}: GAP must cite nothing")
            if r["verdict"] != "GAP" and not r["evidence"]:
                errors.append(f"{where}: {r['verdict']} must cite evidence")
            counts[r["verdict"]] += 1
        total.update(counts)
        rows_out.append((name, os.path.basename(posts[0]), len(items), counts))
    # the wrapped copy must carry the same labels as its source
    for name in names:
        if name.endswith("_wrapped") and name[: -len("_wrapped")] in names:
            strip = lambda n: [{k: v for k, v in json.loads(l).items() if k != "posting"}
                               for l in open(os.path.join(HERE, n + ".labels.jsonl"), encoding="utf-8") if l.strip()]
            if strip(name) != strip(name[: -len("_wrapped")]):
                errors.append(f"{name}: labels differ from {name[:-len('_wrapped')]}")
            wtext = decode_posting(glob.glob(os.path.join(HERE, name + ".posting.*"))[0])
            width = max(len(l) for l in wtext.splitlines())
            if width > 70:
                errors.append(f"{name}: line width {width} > 70")
    print(f"{'posting':26} {'file':42} {'ev':>3} {'FULL':>5} {'PART':>5} {'GAP':>4} {'total':>5}")
    for name, fn, nev, c in rows_out:
        print(f"{name:26} {fn:42} {nev:3} {c['FULL']:5} {c['PARTIAL']:5} {c['GAP']:4} {sum(c.values()):5}")
    print(f"{'TOTAL':26} {'':42} {'':3} {total['FULL']:5} {total['PARTIAL']:5} {total['GAP']:4} {sum(total.values()):5}")
    for e in errors:
        print("ERROR", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
