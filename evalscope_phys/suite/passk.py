"""pass@k, maj@k, G-Pass@k and mG-Pass@k from the reviews of a run made with EvalScope ``repeats``.

EvalScope 1.14.1 has ``mean_and_pass_at_k`` / ``mean_and_vote_at_k`` aggregations, but they treat
every score key as a 0/1 count: PHYBench's ``eed`` (0-100) would be fed to the pass@k estimator as a
number of correct answers, and an unscored attempt (scorer timeout, no value) would not be
separated from a wrong one. So we compute them here, per binary metric, from the per-sample reviews.

G-Pass@k (Liu et al. 2024, "Are your LLMs capable of stable reasoning?") is defined as OpenCompass
computes it: with ``n`` scored attempts of which ``c`` are correct, G-Pass@k_tau is the probability
that at least ``m = max(ceil(tau * k), 1)`` of ``k`` attempts drawn without replacement are correct
(a hypergeometric tail), and mG-Pass@k = (2 / k) * sum over i = ceil(k / 2) + 1 .. k of that tail
at ``m = i`` (the area under G-Pass@k_tau for tau in [0.5, 1]). Reported for k >= 2 only: at k = 1
every G-Pass@1_tau equals pass@1 and the definition's sum for mG-Pass@1 is empty (always 0).
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from math import ceil, comb
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from .results import SampleResult, read_reviews, run_datasets

# Metrics that are bookkeeping, not correctness.
NOT_CORRECTNESS = frozenset({'scored'})
KMETRICS_DIR = 'kmetrics'
#: the thresholds OpenCompass and the G-Pass@k paper report
G_PASS_THRESHOLDS = ('0.25', '0.5', '0.75', '1.0')
PASS_AT_K, VOTE_AT_K, G_PASS_AT_K, MG_PASS_AT_K = 'pass_at_k', 'vote_at_k', 'g_pass_at_k', 'mg_pass_at_k'


@dataclass(frozen=True)
class KScore:
    """One pass@k or maj@k figure over the problems that had enough scored attempts."""

    metric: str
    aggregation: str  # 'pass_at_k' / 'vote_at_k' (EvalScope's own names), 'g_pass_at_k', 'mg_pass_at_k'
    k: int
    score: float
    num: int
    total: int
    tau: Optional[str] = None  # the G-Pass@k threshold, as written in G_PASS_THRESHOLDS

    @property
    def dimensions(self) -> Dict[str, object]:
        """The identity dimensions in the kmetrics file: ``k``, and ``tau`` for G-Pass@k."""
        return {'k': self.k} if self.tau is None else {'k': self.k, 'tau': self.tau}


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021): 1 - C(n-c, k) / C(n, k), for n >= k attempts with c correct."""
    _check_counts(n, c, k, 'pass@k')
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def _check_counts(n: int, c: int, k: int, what: str) -> None:
    if not 0 <= c <= n or k < 1 or k > n:
        raise ValueError(f'{what} needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}')


def at_least_m_correct(n: int, c: int, k: int, m: int) -> float:
    """P(at least ``m`` of ``k`` attempts drawn from ``n`` with ``c`` correct are correct): a hypergeometric tail.

    Exact rational arithmetic, so hand-computed values compare equal; 0 when ``m > min(c, k)``.
    """
    _check_counts(n, c, k, 'G-Pass@k')
    top = min(c, k)
    if m > top:
        return 0.0
    favourable = sum(comb(c, j) * comb(n - c, k - j) for j in range(max(m, 0), top + 1))
    return float(Fraction(favourable, comb(n, k)))


def g_pass_at_k(n: int, c: int, k: int, tau: str) -> float:
    """G-Pass@k_tau as OpenCompass defines it: at least ``max(ceil(tau * k), 1)`` of ``k`` attempts correct."""
    m = max(ceil(Fraction(tau) * k), 1)  # Fraction: '0.75' * 4 is exactly 3, never 3.0000000001
    return at_least_m_correct(n, c, k, m)


def mg_pass_at_k(n: int, c: int, k: int) -> float:
    """mG-Pass@k as OpenCompass defines it: (2 / k) * sum_{i = ceil(k/2) + 1}^{k} P(at least i of k correct)."""
    low = ceil(Fraction(k, 2))
    return 2 * sum(at_least_m_correct(n, c, k, i) for i in range(low + 1, k + 1)) / k


def _normalise(prediction: Optional[str]) -> Optional[str]:
    if prediction is None:
        return None
    text = ' '.join(str(prediction).split())
    return text or None


def majority_correct(attempts: Sequence[Tuple[Optional[str], float]]) -> float:
    """1.0 if the most frequent answer (first seen wins ties) was scored correct, else 0.0."""
    counts: Dict[str, int] = {}
    for prediction, _ in attempts:
        key = _normalise(prediction)
        if key is not None:
            counts[key] = counts.get(key, 0) + 1
    if not counts:
        return 0.0
    winner = max(counts, key=counts.get)  # dicts keep insertion order, so ties go to the first seen
    return 1.0 if any(_normalise(p) == winner and v >= 1.0 for p, v in attempts) else 0.0


def k_values(repeats: int) -> List[int]:
    """1, 2, 4, ... up to and including ``repeats``: the k a paper table usually shows."""
    ks, k = [], 1
    while k < repeats:
        ks.append(k)
        k *= 2
    ks.append(repeats)
    return ks


def binary_metrics(samples: Iterable[SampleResult]) -> List[str]:
    """Metrics whose every recorded value is 0 or 1 (so ``eed`` and ``scored`` are left out)."""
    seen: Dict[str, bool] = {}
    for sample in samples:
        for name, value in sample.values.items():
            seen[name] = seen.get(name, True) and value in (0.0, 1.0)
    return sorted(name for name, ok in seen.items() if ok and name not in NOT_CORRECTNESS)


ProblemValues = Dict[Tuple[str, str], float]
"""(subset, problem) -> that problem's value of one k-metric."""
KKey = Tuple[str, str, int, Optional[str]]
"""(metric, aggregation, k, tau) of one k-metric row."""


def problem_k_values(samples: Sequence[SampleResult], repeats: int) -> Dict[KKey, ProblemValues]:
    """Per-problem pass@k, maj@k, G-Pass@k_tau and mG-Pass@k, keyed by (metric, aggregation, k, tau).

    A problem enters an estimator only with at least ``k`` scored attempts (maj@k: one); unscored
    attempts count neither as right nor wrong. Per-problem values are what a bootstrap over
    problems resamples (:mod:`evalscope_phys.suite.intervals`); their mean is the table's figure.
    """
    groups: Dict[Tuple[str, str], List[SampleResult]] = defaultdict(list)
    for sample in samples:
        groups[(sample.subset, sample.problem)].append(sample)
    values: Dict[KKey, ProblemValues] = {}
    for metric in binary_metrics(samples):
        for k in k_values(repeats):
            for key, attempts in groups.items():
                ordered = sorted(attempts, key=lambda s: s.generation)
                scored = [s.values[metric] for s in ordered if metric in s.values]
                n, c = len(scored), int(sum(scored))
                if n >= k:
                    values.setdefault((metric, PASS_AT_K, k, None), {})[key] = pass_at_k(n, c, k)
                    if k >= 2:
                        for tau in G_PASS_THRESHOLDS:
                            values.setdefault((metric, G_PASS_AT_K, k, tau), {})[key] = g_pass_at_k(n, c, k, tau)
                        values.setdefault((metric, MG_PASS_AT_K, k, None), {})[key] = mg_pass_at_k(n, c, k)
                first_k = [(s.prediction, s.values[metric]) for s in ordered[:k] if metric in s.values]
                if first_k:
                    values.setdefault((metric, VOTE_AT_K, k, None), {})[key] = majority_correct(first_k)
    return values


#: the order rows appear in for one metric and k
_AGGREGATION_ORDER = {PASS_AT_K: 0, VOTE_AT_K: 1, G_PASS_AT_K: 2, MG_PASS_AT_K: 3}


def k_scores(samples: Sequence[SampleResult], repeats: int) -> List[KScore]:
    """pass@k, maj@k, G-Pass@k and mG-Pass@k for each binary metric: means of :func:`problem_k_values`."""
    total = len({(s.subset, s.problem) for s in samples})
    per_problem = problem_k_values(samples, repeats)
    order = sorted(per_problem, key=lambda key: (key[0], key[2], _AGGREGATION_ORDER[key[1]], key[3] or ''))
    return [KScore(metric, aggregation, k, sum(per_problem[key].values()) / len(per_problem[key]),
                   len(per_problem[key]), total, tau)
            for key in order for metric, aggregation, k, tau in [key]]


def write_kmetrics(run: Path, repeats: int) -> List[Path]:
    """Write ``kmetrics/<model>/<dataset>.json`` beside ``reports/`` for each dataset of a run."""
    written = []
    models = sorted(p.name for p in (run / 'reviews').iterdir() if p.is_dir()) if (run / 'reviews').is_dir() else []
    for model in models:
        for dataset in run_datasets(run):
            samples = list(read_reviews(run, dataset=dataset, model=model))
            if not samples:
                continue
            payload = {
                'dataset_name': dataset, 'model_name': model, 'repeats': repeats,
                'metrics': [{'identity': {'name': s.metric, 'aggregation': s.aggregation, 'dimensions': s.dimensions},
                             'score': s.score, 'num': s.num, 'total': s.total} for s in k_scores(samples, repeats)],
            }
            out = run / KMETRICS_DIR / model / f'{dataset}.json'
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.with_suffix('.json.tmp')
            tmp.write_text(json.dumps(payload, indent=2), encoding='utf-8')
            tmp.replace(out)
            written.append(out)
    return written
