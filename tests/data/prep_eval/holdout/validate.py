"""Validate the prep holdout set: encodings, YAML shape, key phrases, labels.

Also scores each requirement with a re-implementation of the lexical matcher as
described in PREP_METHODOLOGY.md (IDF-weighted requirement-side coverage,
threshold 0.30), written from the description only, to show which labels a
word-overlap matcher would get wrong. Run: python3 validate.py
"""
import json, math, re, sys
from collections import Counter
from pathlib import Path
import yaml

HERE = Path(__file__).resolve().parent
STOP = set("""a an and are as at be by for from has have in into is it its of on or our
such the their this to with you your we will who what can able any other all also
e.g eg etc than that these those""".split())
VERDICTS = {"FULL", "PARTIAL", "GAP"}
KEYS = ["posting", "key_phrase", "requirement", "importance", "verdict", "evidence", "why"]


def terms(text):
    out = set()
    for tok in re.findall(r"[a-z0-9][a-z0-9+#/\-]*[a-z0-9+#]|[a-z0-9]", text.lower()):
        parts = [tok] + ([p for p in re.split(r"[/\-]", tok) if p] if re.search(r"[/\-]", tok) else [])
        for p in parts:
            if len(p) > 1 and p not in STOP:
                out.add(p)
    return out


def posting_text(name):
    for p in HERE.glob(f"{name}.posting.*"):
        enc = "cp1252" if ".cp1252." in p.name else "utf-8"
        return p, p.read_bytes().decode(enc)
    raise SystemExit(f"no posting for {name}")


def main():
    errors, totals, rows_all = [], Counter(), []
    names = sorted(p.name.split(".")[0] for p in HERE.glob("*.labels.jsonl"))
    for name in names:
        ppath, text = posting_text(name)
        if ".cp1252." in ppath.name:
            try:
                ppath.read_bytes().decode("utf-8")
                errors.append(f"{ppath.name}: decodes as UTF-8, encoding does not matter")
            except UnicodeDecodeError:
                pass
        ev = yaml.safe_load((HERE / f"{name}.evidence.yaml").read_text(encoding="utf-8"))
        items = ev["evidence"]
        ids = [i["id"] for i in items]
        if not 8 <= len(items) <= 20:
            errors.append(f"{name}: {len(items)} evidence items")
        if len(set(ids)) != len(ids):
            errors.append(f"{name}: duplicate evidence ids")
        for i in items:
            if set(i) - {"id", "title", "summary", "tags"} or not all(isinstance(i.get(k), str) and i[k].strip() for k in ("id", "title", "summary")):
                errors.append(f"{name}: bad evidence item {i.get('id')}")
            if not re.fullmatch(r"EV-\d{3}", i["id"]):
                errors.append(f"{name}: bad id {i['id']}")
            if "tags" in i and not (isinstance(i["tags"], list) and all(isinstance(t, str) for t in i["tags"])):
                errors.append(f"{name}: bad tags {i['id']}")
        # lexical scorer per methodology
        N = len(items)
        eterms = {i["id"]: terms(i["title"] + " " + i["summary"] + " " + " ".join(i.get("tags", []))) for i in items}
        df = Counter(t for s in eterms.values() for t in s)
        w = lambda t: math.log(1 + N / (1 + df[t])) if df[t] else math.log(1 + N)
        low = text.lower()
        for ln, line in enumerate((HERE / f"{name}.labels.jsonl").read_text(encoding="utf-8").splitlines(), 1):
            r = json.loads(line)
            where = f"{name}:{ln}"
            if list(r) != KEYS:
                errors.append(f"{where}: keys {list(r)}")
            if r["posting"] != name: errors.append(f"{where}: posting field")
            kp = r["key_phrase"]
            n = low.count(kp.lower())
            if n != 1: errors.append(f"{where}: key_phrase {kp!r} occurs {n}x")
            if not 2 <= len(kp.split()) <= 6: errors.append(f"{where}: key_phrase word count")
            if r["importance"] not in ("must", "nice"): errors.append(f"{where}: importance")
            if r["verdict"] not in VERDICTS: errors.append(f"{where}: verdict")
            for e in r["evidence"]:
                if e not in ids: errors.append(f"{where}: unknown evidence {e}")
            if r["verdict"] != "GAP" and not r["evidence"]: errors.append(f"{where}: non-GAP without evidence")
            if not r["why"].strip(): errors.append(f"{where}: empty why")
            rt = terms(r["requirement"])
            tot = sum(w(t) for t in rt) or 1
            best = max(((sum(w(t) for t in rt & eterms[i]) / tot, i) for i in ids))
            lex = "FULL" if best[0] >= 0.30 else "GAP"
            totals[(name, r["verdict"])] += 1
            rows_all.append((name, r["verdict"], lex, round(best[0], 2), best[1], kp, bool(r["evidence"])))
    if errors:
        print("\n".join(errors)); sys.exit(1)
    print("all checks passed\n")
    print(f"{'posting':18} FULL PARTIAL GAP total")
    for name in names:
        c = [totals[(name, v)] for v in ("FULL", "PARTIAL", "GAP")]
        print(f"{name:18} {c[0]:4} {c[1]:7} {c[2]:3} {sum(c):5}")
    c = [sum(totals[(n, v)] for n in names) for v in ("FULL", "PARTIAL", "GAP")]
    print(f"{'TOTAL':18} {c[0]:4} {c[1]:7} {c[2]:3} {sum(c):5}")
    if "-v" in sys.argv:
        print("\nlexical re-implementation (requirement text vs evidence):")
        for row in rows_all:
            print(*row, sep="\t")
    fp = [r for r in rows_all if r[1] == "GAP" and r[2] == "FULL"]
    fg = [r for r in rows_all if r[1] != "GAP" and r[2] == "GAP"]
    print(f"\nlexical re-implementation: {len(fp)} false proofs on GAP labels, {len(fg)} false gaps on FULL/PARTIAL labels")
    print(f"GAP labels resting on a denial/wish item: {sum(1 for r in rows_all if r[1]=='GAP' and r[6])}")


if __name__ == "__main__":
    main()
