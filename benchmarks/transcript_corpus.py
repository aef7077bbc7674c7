"""Deterministic corpus shaped like real interview transcripts (fictional text).

Real transcripts differ from ``synthetic_corpus.py``'s short filler lines in what makes the
lexical stages slow: answers are long (100–600 words of spoken English), a person has hundreds
of pairs over about a dozen interviews, the vocabulary is large with a Zipf-like spread (so IDF
weights vary), and the text carries speech and punctuation that tokenisers must handle: fillers
("um", "you know"), false starts with dashes, ellipses, quoted speech, numbers and years,
contractions, parentheses, "?!". Every person is fictional; the words are drawn from a generated
vocabulary plus common English function words.

    python benchmarks/transcript_corpus.py --out /tmp/transcripts --persons 5
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import random
from pathlib import Path

FUNCTION = ("the a and to of in that it was for on with as we at but so they this had be "
            "not what all were when there can an which their if would about out up them "
            "then she he into more some could time people very just because over").split()
FILLERS = ("um", "uh", "you know", "I mean", "sort of", "kind of", "like", "well", "right")
SYLLABLES = ("ka ri mo len ta vor shi ne ul pa dro fen ga ist mar co bel tun se wy lo "
             "thra nim ob quel rasp bo hin del ar cu").split()
INTERVIEWS = 12


def vocabulary(size: int = 4000) -> list[str]:
    """``size`` distinct pseudo-words (two or three syllables), in a fixed order."""
    rng = random.Random("vocabulary")
    words: dict[str, None] = {}
    while len(words) < size:
        words["".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 2, 3))))] = None
    return list(words)


VOCAB = vocabulary()
# Zipf-like weights: the k-th content word is drawn with weight 1/(k+1)
_CUMULATIVE = list(itertools.accumulate(1.0 / (k + 1) for k in range(len(VOCAB))))


def _content(rng: random.Random) -> str:
    return VOCAB[bisect.bisect(_CUMULATIVE, rng.random() * _CUMULATIVE[-1])]


def _sentence(rng: random.Random, words: int) -> str:
    out: list[str] = []
    for _ in range(words):
        roll = rng.random()
        if roll < 0.45:
            out.append(rng.choice(FUNCTION))
        elif roll < 0.50:
            out.append(rng.choice(FILLERS) + ",")
        elif roll < 0.52:
            out.append(str(rng.choice((rng.randint(2, 99), rng.randint(1950, 2024)))))
        elif roll < 0.54:
            out.append(rng.choice(("don't", "we'd", "it's", "I'd", "they're", "wasn't")))
        else:
            out.append(_content(rng))
    if rng.random() < 0.15:  # a false start
        cut = rng.randint(1, max(1, len(out) - 1))
        out.insert(cut, "—")
    if rng.random() < 0.1:
        at = rng.randint(0, len(out) - 1)
        out[at] = f'"{out[at]}"'
    if rng.random() < 0.05:
        out.append(f"({_content(rng)} {_content(rng)})")
    text = " ".join(out).replace(", ,", ",")
    end = rng.choices((".", "...", "?!", "?", "."), weights=(70, 10, 2, 8, 10))[0]
    return text[:1].upper() + text[1:].rstrip(",") + end


def _answer(rng: random.Random) -> str:
    target = rng.randint(100, 600)
    sentences, words = [], 0
    while words < target:
        n = min(rng.randint(5, 30), target - words + 3)
        sentences.append(_sentence(rng, n))
        words += n
    return " ".join(sentences)


def _question(rng: random.Random) -> str:
    return _sentence(rng, rng.randint(8, 30)).rstrip(".?!") + "?"


def person(index: int, seed: int = 2026) -> dict:
    """One fictional person: 12 interviews, 150–650 pairs in all, long spoken answers."""
    rng = random.Random(f"{seed}:transcripts:{index}")
    pid = f"TRN{index:04d}"
    total = rng.randint(150, 650)
    cuts = sorted(rng.sample(range(1, total), INTERVIEWS - 1))
    sizes = [b - a for a, b in zip([0, *cuts], [*cuts, total], strict=True)]
    interviews = []
    qa = 0
    for number, size in enumerate(sizes):
        pairs = []
        for _ in range(size):
            qa += 1
            pairs.append({"qa_id": f"{pid}-QA{qa:04d}", "question": _question(rng),
                          "response": _answer(rng),
                          "tags": sorted({_content(rng) for _ in range(rng.randint(1, 3))})})
        interviews.append({"interview_id": f"{pid}-INT{number:02d}", "sequence": number,
                           "qa_pairs": pairs})
    rng.shuffle(interviews)  # file order is not time order; the split sorts by sequence
    return {"schema_version": "1.0", "personality_id": pid,
            "personality": {"profile": _sentence(rng, 25),
                            "long_profile": " ".join(_sentence(rng, 20) for _ in range(12))},
            "interviews": interviews}


def write_corpus(out: Path, persons: int, seed: int = 2026) -> dict[str, int]:
    """Write ``persons`` documents; returns their pair and word counts."""
    pairs = words = 0
    for index in range(persons):
        doc = person(index, seed)
        folder = out / doc["personality_id"]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "prepared_input.json").write_text(json.dumps(doc, ensure_ascii=False),
                                                    encoding="utf-8")
        for interview in doc["interviews"]:
            pairs += len(interview["qa_pairs"])
            words += sum(len(p["response"].split()) for p in interview["qa_pairs"])
    return {"persons": persons, "pairs": pairs, "response_words": words}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--persons", type=int, default=5)
    args = parser.parse_args()
    print(json.dumps(write_corpus(args.out, args.persons)))


if __name__ == "__main__":
    main()
