"""Agreement between judges (Krippendorff's alpha) and between MCQ answerers.

A score given by an LLM judge is only as trustworthy as the judge: when two or more judges score
the same items, how far they agree bounds how much a difference between strategies can mean.
Krippendorff's alpha is used because one formula takes any number of coders, missing values (an
invalid judgment is simply a value the judge did not give) and nominal, ordinal or interval data.
It is written once, in the coincidence-matrix form of Krippendorff (2011), "Computing
Krippendorff's Alpha-Reliability"; every per-unit coincidence matrix is kept, so the bootstrap
over units is a weighted sum of them instead of a recount, and thousands of resamples are cheap.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from interviewsim.analysis.stats import derived_seed

MeasurementLevel = Literal["nominal", "ordinal", "interval"]

CS_METRIC = "content_similarity"
CS_INTERVAL = "content_similarity_interval"
"""CS agreement at the interval level (a score of 1 against 5 is further apart than 4 against
5 by its distance, not only its rank), reported beside the ordinal one."""
FC_METRIC = "factual_consistency"
PS_METRIC = "ps_trait_votes"
CS_SCORES: tuple[int, ...] = (1, 2, 3, 4, 5)
PS_LEVELS: tuple[str, ...] = ("Low", "Neutral", "High")
"""The judges' trait levels in rank order (interviewsim.judges.parsers.LEVELS; a test keeps the
two equal). Ordinal, not nominal: personality alignment itself scores the levels on the ordinal
scale Low 1 / Neutral 2 / High 3, and a tied vote resolves to Neutral as the midpoint, so a
Low-against-High disagreement must weigh more than Low against Neutral."""

METRIC_LEVELS: dict[str, tuple[MeasurementLevel, tuple[Hashable, ...] | None]] = {
    CS_METRIC: ("ordinal", CS_SCORES),
    FC_METRIC: ("nominal", None),
    PS_METRIC: ("ordinal", PS_LEVELS),
}
"""Level of measurement and value order of each agreement metric."""

_CHUNK_ELEMENTS = 1 << 21
"""Unit draws per bootstrap chunk, so memory stays flat however many units there are."""


@dataclass(frozen=True)
class AlphaEstimate:
    """Krippendorff's alpha with a percentile bootstrap interval over units."""

    alpha: float | None
    """None when not computable: no unit has two values, or all pairable values are equal."""
    ci: tuple[float, float] | None
    """Percentile interval of the defined bootstrap replicates; None without any."""
    level: MeasurementLevel
    units: int
    """Pairable units: those with values from at least two coders (the others carry no
    information about agreement and are left out of alpha and of the resampling)."""
    values: int
    """Pairable values (Krippendorff's n)."""
    n_boot: int
    n_boot_defined: int
    """Replicates where alpha was defined (a resample can hold a single value only)."""
    groups: int = field(default=0, kw_only=True)
    """What the bootstrap resampled: personalities when clusters were given, else units."""


@dataclass(frozen=True)
class AgreementResult(AlphaEstimate):
    """Agreement between the judges (coders) on one metric."""

    metric: str
    coders: tuple[str, ...]


@dataclass(frozen=True)
class _Coincidences:
    """Per pairable unit, its coincidence matrix flattened (units x V*V), and the value domain."""

    per_unit: np.ndarray
    domain: tuple[Hashable, ...]
    positions: np.ndarray | None
    """Numeric value of each domain entry (interval level only)."""


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _domain(values: Sequence[Hashable], level: MeasurementLevel,
            order: Sequence[Hashable] | None) -> tuple[Hashable, ...]:
    """The values in rank order: ``order`` when given, else sorted (any order for nominal)."""
    observed = list(dict.fromkeys(values))
    if order is not None:
        domain = tuple(dict.fromkeys(order))
        allowed = set(domain)
        outside = [v for v in observed if v not in allowed]
        if outside:
            raise ValueError(f"values {outside!r} are not in the given order {domain!r}")
        return domain
    if level == "nominal":
        return tuple(observed)
    try:
        return tuple(sorted(observed))  # type: ignore[type-var]
    except TypeError as exc:
        raise ValueError(f"{level} values must be comparable; pass their order") from exc


def _coincidences(units: Iterable[Sequence[Hashable | None]], level: MeasurementLevel,
                  order: Sequence[Hashable] | None) -> _Coincidences:
    """Krippendorff's o_ck per unit: each ordered pair of values from two different coders of
    a unit adds 1/(m_u - 1), m_u being the unit's number of values."""
    present = [[v for v in unit if not _missing(v)] for unit in units]
    domain = _domain([v for unit in present for v in unit], level, order)
    positions = None
    if level == "interval":
        if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in domain):
            raise ValueError(f"interval values must be numbers, got {domain!r}")
        positions = np.array([float(v) for v in domain])  # type: ignore[arg-type]
    index = {v: i for i, v in enumerate(domain)}
    pairable = [unit for unit in present if len(unit) >= 2]
    counts = np.zeros((len(pairable), len(domain)))
    for row, unit in enumerate(pairable):
        for value in unit:
            counts[row, index[value]] += 1.0
    size = len(domain)
    pairs = counts[:, :, None] * counts[:, None, :]
    diagonal = np.arange(size)
    pairs[:, diagonal, diagonal] -= counts
    weights = 1.0 / (counts.sum(axis=1) - 1.0)
    per_unit = (pairs * weights[:, None, None]).reshape(len(pairable), size * size)
    return _Coincidences(per_unit, domain, positions)


def _alpha_rows(observed: np.ndarray, level: MeasurementLevel,
                positions: np.ndarray | None) -> np.ndarray:
    """alpha = 1 - (n - 1) * sum(o_ck d2_ck) / sum(n_c n_k d2_ck) for each coincidence matrix
    of ``observed`` (rows x V x V); NaN where the expected disagreement is 0 (no variation).

    The ordinal d_ck = sum_{g=c..k} n_g - (n_c + n_k) / 2 equals the difference of the values'
    mid-ranks S_c - n_c / 2 (S the cumulative marginal), which is how it is computed here.
    """
    margins = observed.sum(axis=2)
    total = margins.sum(axis=1)
    size = observed.shape[1]
    if level == "nominal":
        squared = (1.0 - np.eye(size))[None]
    elif level == "ordinal":
        mid = np.cumsum(margins, axis=1) - margins / 2.0
        squared = (mid[:, :, None] - mid[:, None, :]) ** 2
    else:
        assert positions is not None
        squared = ((positions[:, None] - positions[None, :]) ** 2)[None]
    disagreement = (observed * squared).sum(axis=(1, 2))
    expected = (margins[:, :, None] * margins[:, None, :] * squared).sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1.0 - (total - 1.0) * disagreement / expected
    return np.where(expected > 0.0, alpha, np.nan)


def _point(data: _Coincidences, level: MeasurementLevel) -> float | None:
    size = len(data.domain)
    if data.per_unit.shape[0] == 0:
        return None
    matrix = data.per_unit.sum(axis=0).reshape(1, size, size)
    value = float(_alpha_rows(matrix, level, data.positions)[0])
    return None if math.isnan(value) else value


def krippendorff_alpha(units: Sequence[Sequence[Hashable | None]], level: MeasurementLevel,
                       order: Sequence[Hashable] | None = None) -> float | None:
    """Krippendorff's alpha of ``units``: one row per unit, one entry per coder (None or NaN
    when that coder gave no value; the transpose of the paper's coders-by-units table).

    ``order`` is the value domain; for ordinal data it is also the rank order (required when
    the values do not sort, e.g. "Low" < "Neutral" < "High"). Returns None when alpha is not
    computable: no unit has values from two coders (nothing pairable), or every pairable value
    is the same (the expected disagreement is 0 and alpha is 0/0). Raises ValueError for a
    value outside ``order``, unsortable ordinal values or non-numeric interval values.
    """
    return _point(_coincidences(units, level, order), level)


def alpha_with_ci(units: Sequence[Sequence[Hashable | None]], level: MeasurementLevel,
                  order: Sequence[Hashable] | None = None, n_boot: int = 1000, seed: int = 0,
                  confidence: float = 0.95,
                  clusters: Sequence[Hashable] | None = None) -> AlphaEstimate:
    """Alpha with a seeded percentile bootstrap over pairable units (the judged items), or,
    given ``clusters`` (one id per unit: its personality), over whole clusters.

    Each replicate draws as many units (clusters) as there are, with replacement, and
    recomputes alpha (ordinal ranks included) from the drawn units' coincidences; replicates
    where alpha is undefined are dropped and counted in ``n_boot_defined``. Resampling
    clusters is what covers when the same question recurs under every strategy and items of
    one person are alike: resampling items as if independent covered 72% for a nominal 95%.
    """
    if n_boot < 0 or not 0.0 < confidence < 1.0:
        raise ValueError("n_boot must be >= 0 and confidence in (0, 1)")
    data = _coincidences(units, level, order)
    count, size = data.per_unit.shape[0], len(data.domain)
    alpha = _point(data, level)
    values = int(round(float(data.per_unit.sum()))) if count else 0
    owner = _owners(units, clusters)
    groups = int(owner.max()) + 1 if owner.size else 0
    if alpha is None or n_boot == 0:
        return AlphaEstimate(alpha, None, level, count, values, n_boot, 0, groups=groups)
    rng = np.random.default_rng(seed)
    replicates = []
    rows_per_chunk = max(1, _CHUNK_ELEMENTS // max(count, groups))
    for start in range(0, n_boot, rows_per_chunk):
        rows = min(rows_per_chunk, n_boot - start)
        draws = rng.integers(0, groups, size=(rows, groups)) + groups * np.arange(rows)[:, None]
        drawn = np.bincount(draws.ravel(), minlength=rows * groups).reshape(rows, groups)
        observed = (drawn[:, owner] @ data.per_unit).reshape(rows, size, size)
        replicates.append(_alpha_rows(observed, level, data.positions))
    boot = np.concatenate(replicates)
    boot = boot[np.isfinite(boot)]
    ci = None
    if boot.size:
        tail = (1.0 - confidence) / 2.0
        low, high = np.quantile(boot, [tail, 1.0 - tail])
        ci = (float(low), float(high))
    return AlphaEstimate(alpha, ci, level, count, values, n_boot, int(boot.size),
                         groups=groups)


def _owners(units: Sequence[Sequence[Hashable | None]],
            clusters: Sequence[Hashable] | None) -> np.ndarray:
    """The resampling group of each pairable unit: its cluster, or itself."""
    pairable = [i for i, unit in enumerate(units)
                if sum(not _missing(v) for v in unit) >= 2]
    if clusters is None:
        return np.arange(len(pairable))
    ids: dict[Hashable, int] = {}
    return np.array([ids.setdefault(clusters[i], len(ids)) for i in pairable])


def _judgment_value(record: dict) -> Hashable | None:
    """The CS score or FC label of a judgment; None when invalid (missing data for alpha)."""
    parsed = record.get("parsed")
    if not record.get("valid") or not isinstance(parsed, dict):
        return None
    return parsed.get("score" if record["metric"] == CS_METRIC else "label")


def _put(table: dict[tuple, dict[str, Any]], unit: tuple, coder: str, value: Any,
         metric: str) -> None:
    codes = table.setdefault(unit, {})
    if coder in codes:
        raise ValueError(f"{metric}: {coder!r} coded unit {unit!r} twice")
    codes[coder] = value


def _sort_key(unit: tuple) -> tuple[str, ...]:
    return tuple("" if part is None else str(part) for part in unit)


def judge_agreement(judgments: Iterable[dict], ps_votes: Iterable[dict], n_boot: int, seed: int,
                    confidence: float = 0.95) -> dict[str, AgreementResult]:
    """Alpha between judges per metric: content_similarity (ordinal scores 1-5),
    factual_consistency (nominal labels) and ps_trait_votes (ordinal voted levels).

    Units are (personality_id, strategy, qa_id) for CS/FC and (personality_id, side, strategy,
    trait) for PS votes; each judge is a coder; an invalid record is a missing value. Empty
    when fewer than two judges appear overall (one judge: nothing to agree on); a metric with
    fewer than two judges is left out. Each metric's bootstrap is seeded from ``seed`` and the
    metric name, so results do not depend on which other metrics are present.
    """
    tables: dict[str, dict[tuple, dict[str, Any]]] = {metric: {} for metric in METRIC_LEVELS}
    for record in judgments:
        metric = record["metric"]
        if metric in (CS_METRIC, FC_METRIC):
            unit = (record["personality_id"], record["strategy"], record["qa_id"])
            _put(tables[metric], unit, record["judge"], _judgment_value(record), metric)
    for record in ps_votes:
        unit = (record["personality_id"], record["side"], record.get("strategy"),
                record["trait"])
        level = record.get("level") if record.get("valid") else None
        _put(tables[PS_METRIC], unit, record["judge"], level, PS_METRIC)
    judges = {coder for table in tables.values() for codes in table.values() for coder in codes}
    if len(judges) < 2:
        return {}
    results: dict[str, AgreementResult] = {}
    for metric, table in tables.items():
        coders = tuple(sorted({coder for codes in table.values() for coder in codes}))
        if len(coders) < 2:
            continue
        keys = sorted(table, key=_sort_key)
        units = [[table[key].get(coder) for coder in coders] for key in keys]
        people = [key[0] for key in keys]
        level, order = METRIC_LEVELS[metric]
        estimate = alpha_with_ci(units, level, order, n_boot,
                                 derived_seed(seed, "agreement", metric), confidence, people)
        results[metric] = AgreementResult(**asdict(estimate), metric=metric, coders=coders)
        if metric == CS_METRIC:  # the scores are also distances: interval alpha beside
            estimate = alpha_with_ci(units, "interval", None, n_boot,
                                     derived_seed(seed, "agreement", CS_INTERVAL), confidence,
                                     people)
            results[CS_INTERVAL] = AgreementResult(**asdict(estimate), metric=CS_INTERVAL,
                                                   coders=coders)
    return results


def _rotation_zero(record: dict) -> bool:
    """True for the original option order: no ``rotation`` field, or rotation 0."""
    return record.get("rotation") in (None, 0)


def _answer_labels(mcq_answers: Iterable[dict]) -> tuple[dict[tuple, dict[str, Any]], set[str]]:
    """Item (personality, strategy, interview, item) -> answerer -> label, original order
    only (rotated copies would compare labels of differently ordered options)."""
    labels: dict[tuple, dict[str, Any]] = {}
    answerers: set[str] = set()
    for group in mcq_answers:
        if not _rotation_zero(group):
            continue
        answerer = group["answerer"]
        answerers.add(answerer)
        for item in group["items"]:
            if not _rotation_zero(item):
                continue
            key = (group["personality_id"], group["strategy"], group.get("interview_id"),
                   item["item_id"])
            _put(labels, key, answerer, item.get("selected_label"), "mcq answers")
    return labels, answerers


def answerer_agreement(mcq_answers: Iterable[dict]) -> float | None:
    """Share of MCQ items on which every answerer selected the same label.

    An item is (personality_id, strategy, interview_id, item_id) in its original option order:
    records and items without a ``rotation`` field or with rotation 0. Only items every
    answerer answered (a label, not malformed) count; with three or more answerers all must
    agree. None with fewer than two answerers or no item answered by all. Not chance-corrected
    (two answerers that each pick A 86% of the time agree ~76% by chance):
    :func:`answerer_alpha` is.
    """
    labels, answerers = _answer_labels(mcq_answers)
    if len(answerers) < 2:
        return None
    complete = [set(codes.values()) for codes in labels.values()
                if all(codes.get(a) is not None for a in answerers)]
    if not complete:
        return None
    return sum(len(chosen) == 1 for chosen in complete) / len(complete)


def answerer_alpha(mcq_answers: Iterable[dict], n_boot: int, seed: int
                   ) -> AgreementResult | None:
    """Nominal Krippendorff's alpha between MCQ answerers on the chosen labels (chance-
    corrected by the answerers' own letter habits), with a bootstrap over personalities;
    None with fewer than two answerers."""
    labels, answerers = _answer_labels(mcq_answers)
    if len(answerers) < 2:
        return None
    coders = tuple(sorted(answerers))
    keys = sorted(labels, key=_sort_key)
    units = [[labels[key].get(coder) for coder in coders] for key in keys]
    estimate = alpha_with_ci(units, "nominal", None, n_boot,
                             derived_seed(seed, "agreement", "mcq_answers"), 0.95,
                             [key[0] for key in keys])
    return AgreementResult(**asdict(estimate), metric="mcq_answers", coders=coders)
