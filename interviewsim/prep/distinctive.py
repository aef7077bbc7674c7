"""What a requirement names: its distinctive terms, their alternatives, and the years it asks.

Term overlap lets generic words carry a verdict: "5+ years of firmware in C++" shares "years",
"firmware" and "production" with "seven years of production firmware in C", and the one word that
matters, C++, is missing. A requirement's distinctive terms are the words a recruiter would check
first: technologies, standards, credentials, languages — written with digits or symbols (C++,
IEC 62304, 401(k)), in capitals (AWS, RN), capitalised inside a sentence (Kotlin), or known names
of tools that postings write in lower case (dbt, kubernetes). Terms joined by "or" or "/" are
alternatives: one of them is enough. A common word used as a name (Go, Rust, Swift, Spring) is a
term only where the posting capitalises it, and evidence attests it only in the same sense:
capitalised inside a sentence, or beside another language or tool name — "order events go
through RabbitMQ" is not Go.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from interviewsim.prep.acronyms import acronym_key, initials
from interviewsim.prep.alternatives import is_open, open_span
from interviewsim.text.coverage import STOPWORDS
from interviewsim.text.numbers import WORD_VALUES

_CASED_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-'/.&][A-Za-z0-9]+)*[+#]*")
_ACRONYM_SUFFIX = re.compile(r"^[A-Za-z][a-z]+([A-Z]{3,})$")

KNOWN_TERMS = frozenset("""
python java kotlin scala ruby php perl typescript javascript golang haskell elixir erlang clojure
sql nosql postgres postgresql mysql sqlite mongodb redis kafka rabbitmq spark pyspark hadoop hive
airflow dbt snowflake bigquery redshift databricks tableau looker powerbi excel kubernetes k8s
docker terraform ansible helm aws gcp azure linux unix git github gitlab jenkins graphql grpc
react angular vue django flask fastapi node.js nodejs pandas numpy pytorch tensorflow matlab
labview yocto freertos zephyr rtos verilog vhdl fpga jira salesforce hubspot sap figma autocad
solidworks prometheus grafana elasticsearch opensearch cassandra dynamodb lambda s3 ec2 eks rds
sqs kinesis flink beam looker gdpr hipaa iso sox pci bluetooth zigbee lorawan modbus i2c spi uart
jtag oscilloscope cad cnc plc scada forklift osha haccp acls bls pals cpr epic cerner meditech
quickbooks netsuite shopify marketo outlook powerpoint word wms erp crm cdl
spanish french german italian portuguese polish dutch welsh gaelic arabic urdu hindi punjabi
bengali mandarin cantonese japanese korean russian ukrainian romanian turkish greek swedish
norwegian danish finnish czech hungarian tamil gujarati somali farsi hebrew swahili tagalog
vietnamese thai malay bsl makaton
""".split())
"""Tool and standard names that postings write in lower case or at the start of a line, and
the languages a posting asks for (a language is a distinctive term wherever it stands, even in
a title-case bullet such as "Spoken Polish or Portuguese")."""

AMBIGUOUS = frozenset("go rust swift spring react express chef puppet salt can excel spark "
                      "ruby word lambda beam hive flask outlook epic sap rest access teams "
                      "project polish".split())
"""Names that are also ordinary words: a term only where capitalised, attested only so."""
_PLAIN_AT_START = frozenset("can word express salt chef epic beam hive lambda outlook rest "
                            "access teams project polish".split())

GENERIC = frozenset("""
experience experienced years year yrs building build built production services service
strong solid excellent proven good great deep hands-on working knowledge skills skill ability
able understanding familiarity proficiency proficient comfortable confident professional
practical relevant similar related equivalent including includes include plus minimum least
demonstrated track record background using use used work worked working team teams environment
fast-paced etc e.g i.e senior junior mid-level role roles job company day days also need needs
needed someone somebody candidate candidates successful ideal ideally person individual
month months week weeks last past recent recently within
""".split())
"""Words that say how much or how recently, not what ("in the last 12 months"): alone they
can never make a requirement met."""

_YEARS = re.compile(
    r"\b(\d{1,2}|" + "|".join(WORD_VALUES) + r"|a decade)\s*(\+|-\s*\d{1,2}|plus)?\s*"
    r"(?:or more\s+|\+\s*)?(?:full[- ]time\s+)?(?:years?|yrs)\b", re.I)
_MIN_YEARS = re.compile(r"\b(?:at least|minimum(?: of)?|over|more than)\s*$", re.I)


@dataclass(frozen=True)
class TermGroup:
    """Terms of which one must be attested (one term, or alternatives joined by "or" or "/")."""

    terms: tuple[str, ...]
    open: bool = False
    """The posting accepts a comparable name ("Kafka or a similar broker", "such as X")."""
    cased: frozenset[str] = frozenset()
    """Terms that are names only by their capital ("Asana", "Slack", "Sage"): attested only
    where the evidence writes them capitalised too, since in lower case they are words
    ("balancing asanas", "took up the slack", "sage and thyme")."""
    near: frozenset[str] = frozenset()
    """The posting's capitalised words: a cased term followed by another capitalised word is a
    longer name ("Harbor Days" is not Harbor) unless the posting has that word too."""

    def label(self) -> str:
        return " or ".join(self.terms)


def cased_tokens(text: str) -> list[tuple[str, int]]:
    """Word tokens with their original case and character offset."""
    return [(m.group(0), m.start()) for m in _CASED_TOKEN.finditer(text)]


def _sentence_initial(text: str, offset: int) -> bool:
    before = text[:offset].rstrip(" \t*_#\"'“(")
    return not before or before.endswith((".", "!", "?", ":", "\n", "-", "•")) or bool(
        re.search(r"(?:^|\n)\s*(?:[-*+\u2022]|\d+[.)])$", before))


def _is_distinctive(token: str, initial: bool, title_case: bool) -> bool:
    lower = token.lower()
    if lower in STOPWORDS or lower in GENERIC or lower in WORD_VALUES:
        return False
    if lower in AMBIGUOUS:
        return token[:1].isupper() and (not initial or lower not in _PLAIN_AT_START)
    if token[:1].isdigit():
        return False  # a quantity (4M, 32-bed, 10-hour); a code joins the name before it
    if re.search(r"[0-9+#&]", token):
        return True
    if len(token) >= 2 and token.isupper():
        return True
    if lower in KNOWN_TERMS:
        return True
    if len(token) == 1:
        return token in ("C", "R") and not initial
    return token[:1].isupper() and not initial and not title_case and len(token) > 2


def _split_compound(token: str) -> list[str]:
    return token.split("/") if "/" in token and not token.startswith("/") else [token]


def _attested_parts(token: str) -> list[str]:
    """What one evidence token attests: a slashed pair's parts ("BLS/CPR"); a hyphenated word
    whole and also its capitalised parts of two letters or more ("PASMA-certified" attests
    PASMA, "Sunday-to-Thursday" Sunday and Thursday; never the "C" of "C-suite"). A
    requirement's hyphenated word stays one term ("CDL-A" is not CDL)."""
    parts = _split_compound(token)
    if len(parts) > 1 or "-" not in token.strip("-"):
        return parts
    return [token, *(part for part in token.split("-") if len(part) > 1 and part[:1].isupper())]


_OR_LINK = re.compile(r"^[\s,]*(?:or|/|and/or)\s+(?:(?:an?|the|other|some)\s+)*$", re.I)
_BOTH = re.compile(r"\bbilingual\s*(?:in\s*)?$", re.I)
""""Bilingual English/Spanish" asks for both languages; elsewhere a slash offers a choice."""
_LIST_LINK = re.compile(r"^\s*,\s*$")
_EXAMPLE_LINK = re.compile(r"\(|\b(?:e\.g|i\.e|such as|for example|like|including|incl)\b", re.I)


def _without_years(text: str) -> str:
    """``text`` with its years phrases blanked (offsets kept): "5+" is a bar, not a term."""
    return _YEARS.sub(lambda m: " " * len(m.group(0)), text)


_OR_HIGHER = re.compile(r"[^.;\n]{0,80}?\bor (?:higher|above)\b", re.I)
"""After "Level 4": a higher level meets it too ("CIPS Level 4 Diploma …, or higher")."""


def _distinctive_tokens(requirement: str) -> list[tuple[str, int, int, bool]]:
    """Distinctive terms with their spans; capitalised neighbours ("Computer Science", "Great
    Expectations") make one term of several words."""
    text = _without_years(requirement)
    tokens = cased_tokens(text)
    words = [t for t, _ in tokens if t[:1].isalpha()]
    content = [w for w in words if w.lower() not in STOPWORDS]
    title_case = len(content) >= 3 and all(w[:1].isupper() for w in content)
    found: list[tuple[str, int, int, bool]] = []
    for token, offset in tokens:
        initial = _sentence_initial(text, offset)
        following = text[offset + len(token):offset + len(token) + 40].split()
        if (initial and _title_word(token) and following and _title_word(following[0])
                and (len(following) < 2 or not following[1][:1].islower())
                and token.lower() not in GENERIC and token.lower() not in STOPWORDS):
            # the first word of a name: "Advanced Life Support"; not a word before one name
            # ("Active Oregon dental hygiene license")
            initial = False
        if len(token) == 1 and text[max(0, offset - 1):offset] in ("–", "-", "—"):
            continue  # a grade or a range ("Series A–C"), not a language
        for index, part in enumerate(_split_compound(token)):
            last = found[-1] if found else None
            if (last and part.isdigit() and text[last[2]:offset] == " "
                    and not 1900 <= int(part) <= 2100):
                higher = _OR_HIGHER.match(text, offset + len(token)) and last[0].lower() == "level"
                found[-1] = (f"{last[0]} {part}{'+' if higher else ''}", last[1],
                             offset + len(token), last[3])
                continue
            if not _is_distinctive(part, initial, title_case):
                continue
            if last and "/" not in token and _name_run(text[last[1]:last[2]], part,
                                                       text[last[2]:offset]):
                found[-1] = (f"{last[0]} {part.lower()}", last[1], offset + len(token), last[3])
            else:
                both = _BOTH.search(text[:offset])
                found.append((part.lower(), offset, offset + len(token), index > 0 and not both))
    return [(term.lower(), start, end, alt) for term, start, end, alt in found]


def by_case(token: str) -> bool:
    """Whether ``token`` is distinctive only because the posting capitalises it."""
    return (token.isalpha() and token[:1].isupper() and not token.isupper()
            and token.lower() not in KNOWN_TERMS)


def capitalised(text: str) -> frozenset[str]:
    """The lower-case forms of the words ``text`` writes with a capital (and of the capitalised
    parts of a hyphenated one: "Friday-to-Monday")."""
    return frozenset(part.lower() for t, _ in cased_tokens(text)
                     for part in _attested_parts(t) if part[:1].isupper())


def _title_word(word: str) -> bool:
    return word[:1].isupper() and word[1:].islower() and word.isalpha()


def _name_run(previous: str, word: str, between: str) -> bool:
    """Whether ``word`` continues the name ``previous`` ("Computer Science", "Life Support")."""
    last = previous.split()[-1]
    return (between == " " and _title_word(word) and _title_word(last)
            and word.lower() not in KNOWN_TERMS and last.lower() not in KNOWN_TERMS)


def _in_brackets(text: str, offset: int) -> bool:
    """Inside brackets that list examples; "(SMP, SPP and SSP)" lists all of them instead."""
    before = text[:offset]
    if before.count("(") <= before.count(")"):
        return False
    inside = text[before.rfind("("):].split(")", 1)[0]
    return not (re.search(r"\band\b|&", inside) and not re.search(r"\bor\b", inside))


def distinctive_groups(requirement: str) -> list[TermGroup]:
    """The requirement's distinctive terms (lower case), alternatives grouped together:
    "Java or Kotlin", "Java, Kotlin or Scala", "C/C++", and examples in brackets or after
    "such as" join the term they illustrate."""
    groups: list[list[str]] = []
    spans: list[tuple[int, int]] = []
    pending: list[str] = []
    """Terms after a comma, joined to the open group only if the list ends in "or"."""
    previous_end = None
    for term, start, end, alternative in _distinctive_tokens(requirement):
        between = requirement[previous_end:start] if previous_end is not None else ""
        previous_end = end
        if groups and (alternative or _OR_LINK.match(between) or _EXAMPLE_LINK.search(between)
                       or _in_brackets(requirement, start)):
            groups[-1] += [*pending, term]
            spans[-1] = (spans[-1][0], end)
            pending = []
            continue
        if groups and _LIST_LINK.match(between):
            pending.append(term)
            continue
        groups += [[t] for t in pending]
        spans += [(start, end)] * len(pending)
        pending = []
        groups.append([term])
        spans.append((start, end))
    groups += [[term] for term in pending]
    spans += [(len(requirement), len(requirement))] * len(pending)
    names = _cased_names(requirement)
    near = capitalised(requirement)
    opens = [open_span(requirement, span[1]) for span in spans]
    inside = [o for o in opens if o is not None]
    found = [TermGroup(tuple(dict.fromkeys(g)), is_open(requirement, span),
                       frozenset(t for t in g if t in names), near if names & set(g) else set())
             for g, span in zip(groups, spans, strict=True)
             # a name inside an open alternative is part of the like thing, not asked for
             if not any(a <= span[0] and span[1] <= b for a, b in inside)]
    return [g for i, g in enumerate(found) if g.terms not in [h.terms for h in found[:i]]]


def _cased_names(requirement: str) -> frozenset[str]:
    """The requirement's single-word terms that are names only by their capital."""
    return frozenset(token.lower() for token, _ in cased_tokens(requirement)
                     if by_case(token) and token.lower() not in AMBIGUOUS)


def attested_terms(text: str) -> frozenset[str]:
    """The lower-case terms ``text`` attests, each common-word name only in its name sense,
    and the ``initials:`` of its word runs (:func:`~interviewsim.prep.acronyms.acronym_key`)."""
    tokens = cased_tokens(text)
    lowered = [t.lower() for t, _ in tokens]
    found: set[str] = initials([t for t, _ in tokens])
    found.update(f"level:{m.group(1)}" for m in re.finditer(r"\blevel\s+(\d{1,2})\b", text, re.I))
    for index, (token, offset) in enumerate(tokens):
        for part in _attested_parts(token):
            lower = part.lower()
            if lower in AMBIGUOUS and not _name_sense(part, index, lowered, text, offset):
                continue
            found.add(lower)
            suffix = _ACRONYM_SUFFIX.match(part)
            if suffix:
                found.add(suffix.group(1).lower())
    return frozenset(found)


def _name_sense(token: str, index: int, lowered: list[str], text: str, offset: int) -> bool:
    """Whether an ambiguous word is used as a name: capitalised mid-sentence, or beside other
    tool or language names."""
    if token.isupper() and len(token) > 1:
        return True
    if token[:1].isupper() and not _sentence_initial(text, offset):
        return True
    near = lowered[max(0, index - 3):index] + lowered[index + 1:index + 4]
    return token[:1].isupper() and any(word in KNOWN_TERMS and word not in AMBIGUOUS
                                       for word in near)


def required_years(requirement: str) -> int | None:
    """The years of experience a requirement asks for ("5+ years", "at least three years")."""
    for match in _YEARS.finditer(requirement):
        return _number(match.group(1))
    return None


_MONTHS = re.compile(r"\b(\d{1,3}|" + "|".join(WORD_VALUES) + r")\s*months?\b", re.I)


def stated_years(text: str) -> int | None:
    """The whole years a clause states ("seven years", "18 months"); of several ("three years as
    site manager after six as an assistant"), the fewest: the only count sure to be the
    requirement's."""
    found = [_number(m.group(1)) for m in _YEARS.finditer(text)]
    found += [_number(m.group(1)) // 12 for m in _MONTHS.finditer(text)]
    return min(found) if found else None


def _number(word: str) -> int:
    word = word.lower()
    if word == "a decade":
        return 10
    return int(word) if word.isdigit() else WORD_VALUES[word]


_SUFFIXES = ("ations", "ation", "ings", "ing", "ers", "ed", "es", "er", "s")


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix strip, so "supervise" and "supervising" meet (never below 4 letters),
    and a verb's noun in -al meets the verb ("appraisals" ~ "appraise", "approval" ~
    "approve", "renewal" ~ "renewed")."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return _deverbal(word[: -len(suffix)].rstrip("e"))
    return _deverbal(word.rstrip("e") if len(word) > 4 else word)


_DEVERBAL_AL = re.compile(r"(?:(?<=[aeiou][sv])|(?<=w))al$")


def _deverbal(word: str) -> str:
    found = _DEVERBAL_AL.search(word)
    return word[:found.start()] if found and found.start() >= 4 else word


_SPELLINGS = (("postgres", "postgresql"), ("kubernetes", "k8s"), ("go", "golang"),
              ("node.js", "nodejs"), ("ci", "ci-cd"), ("cd", "ci-cd"))
FAMILIES = (
    frozenset({"kafka", "rabbitmq", "sqs", "kinesis", "pulsar", "activemq", "nats", "pub/sub"}),
    frozenset({"aws", "azure", "gcp", "google cloud"}),
    frozenset({"prometheus", "grafana", "datadog", "new relic", "splunk", "cloudwatch"}),
    frozenset({"salesforce", "hubspot", "pipedrive"}),
    frozenset({"meddicc", "meddpicc", "meddic", "bant", "spin", "sandler"}),
    frozenset({"expectations", "soda", "deequ"}),
    frozenset({"rtos", "freertos", "zephyr", "threadx", "vxworks", "qnx"}),
    frozenset({"tableau", "looker", "powerbi", "metabase", "superset"}),
    frozenset({"airflow", "dagster", "prefect", "luigi"}),
    frozenset({"postgresql", "postgres", "mysql", "mariadb", "oracle"}),
    frozenset({"c", "c++"}), frozenset({"java", "kotlin", "scala"}),
    frozenset({"javascript", "typescript", "node.js"}),
)
"""Names of one kind: one attests another only in part, unless the posting accepts "similar"."""


def has_name(term: str, names: frozenset[str]) -> bool:
    """Every word of ``term`` among ``names``, by any spelling or as a numbered family member
    ("cortex-m" by "cortex-m4")."""
    bar = re.fullmatch(r"level (\d{1,2})\+", term)
    if bar:  # "level 4+": any stated level at or above it
        return any(n.startswith("level:") and int(n[6:]) >= int(bar.group(1)) for n in names)

    def one(word: str) -> bool:
        spellings = {word, *(b for a, b in _SPELLINGS if a == word),
                     *(a for a, b in _SPELLINGS if b == word),
                     word[:-1] if word.endswith("s") and len(word) > 3 else f"{word}s"}
        if spellings & names:
            return True
        # "QBRs" by its singular, "NGSS-aligned" by its acronym part
        if any(acronym_key(w, KNOWN_TERMS) in names for w in {*spellings, *word.split("-")}):
            return True
        return "-" in word and any(n.startswith(word) and n[len(word):][:1].isdigit()
                                   for n in names)
    return all(one(word) for word in term.split())


def family(term: str) -> frozenset[str]:
    return next((f for f in FAMILIES if term in f), frozenset())
