"""Paired significance tests for two systems scored 0/1 on the same problems, and a bootstrap CI of one.

Only the discordant pairs carry information about which system is better, so the sign test and
McNemar's exact test are both binomial tests on them; the bootstrap resamples whole problems so the
pairing survives resampling. :func:`bootstrap_mean_ci` is the one-system version: the CI of an
accuracy over problems, as PHYSICS-Verified reports it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Tuple

import numpy as np
from scipy import stats

DEFAULT_RESAMPLES = 10_000  # enough for a stable 2-decimal percentile CI on a few hundred problems
#: resamples drawn per numpy call in bootstrap_mean_ci: bounds memory at ~8 MB per 1,000 problems
BOOTSTRAP_CHUNK = 1_000


@dataclass(frozen=True)
class PairedCounts:
    """The 2x2 table of a paired comparison; ``a_only`` = A right and B wrong."""

    both: int
    a_only: int
    b_only: int
    neither: int

    @property
    def n(self) -> int:
        return self.both + self.a_only + self.b_only + self.neither

    @property
    def discordant(self) -> int:
        return self.a_only + self.b_only


@dataclass(frozen=True)
class PairedComparison:
    """Everything a paper reports for one paired comparison."""

    counts: PairedCounts
    accuracy_a: float
    accuracy_b: float
    sign_test_p_greater: float  # H1: A beats B
    sign_test_p_two_sided: float
    mcnemar_exact_p: float
    diff: float  # accuracy_a - accuracy_b
    ci_low: float
    ci_high: float
    ci_level: float
    seed: int


def paired_counts(a: Sequence[int], b: Sequence[int]) -> PairedCounts:
    """Tabulate two equally long 0/1 sequences, one entry per problem."""
    if len(a) != len(b):
        raise ValueError(f'paired sequences differ in length: {len(a)} vs {len(b)}')
    if any(v not in (0, 1) for v in (*a, *b)):
        raise ValueError('paired outcomes must be 0 or 1')
    pairs = list(zip(a, b))
    return PairedCounts(both=pairs.count((1, 1)), a_only=pairs.count((1, 0)),
                        b_only=pairs.count((0, 1)), neither=pairs.count((0, 0)))


def sign_test(a_only: int, b_only: int, alternative: str = 'greater') -> float:
    """Binomial test of the discordant split against 1/2; ``greater`` means A wins more often."""
    if a_only + b_only == 0:
        return 1.0
    return float(stats.binomtest(a_only, a_only + b_only, 0.5, alternative=alternative).pvalue)


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """McNemar's exact (conditional binomial) two-sided test on the discordant pairs."""
    return sign_test(a_only, b_only, alternative='two-sided')


def paired_bootstrap_ci(a: Sequence[int], b: Sequence[int], seed: int, level: float = 0.95,
                        resamples: int = DEFAULT_RESAMPLES) -> Tuple[float, float]:
    """Percentile CI of mean(a) - mean(b), resampling problems (pairs) with a seeded generator."""
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if diff.size == 0:
        raise ValueError('bootstrap needs at least one pair')
    if np.all(diff == diff[0]):
        return float(diff[0]), float(diff[0])  # no spread: every resample has the same mean
    result = stats.bootstrap((diff, ), np.mean, n_resamples=resamples, confidence_level=level,
                             method='percentile', rng=np.random.default_rng(seed), vectorized=True)
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def compare_paired(a: Sequence[int], b: Sequence[int], seed: int = 0, level: float = 0.95,
                   resamples: int = DEFAULT_RESAMPLES) -> PairedComparison:
    """Sign test, exact McNemar and a paired bootstrap CI for two 0/1 sequences."""
    counts = paired_counts(a, b)
    if counts.n == 0:
        raise ValueError('no paired problems to compare')
    low, high = paired_bootstrap_ci(a, b, seed, level, resamples)
    acc_a = (counts.both + counts.a_only) / counts.n
    acc_b = (counts.both + counts.b_only) / counts.n
    return PairedComparison(
        counts=counts, accuracy_a=acc_a, accuracy_b=acc_b,
        sign_test_p_greater=sign_test(counts.a_only, counts.b_only, 'greater'),
        sign_test_p_two_sided=sign_test(counts.a_only, counts.b_only, 'two-sided'),
        mcnemar_exact_p=mcnemar_exact(counts.a_only, counts.b_only), diff=acc_a - acc_b,
        ci_low=low, ci_high=high, ci_level=level, seed=seed)


def bootstrap_mean_ci(values: Sequence[float], seed: int = 0, level: float = 0.95,
                      resamples: int = DEFAULT_RESAMPLES) -> Tuple[float, float]:
    """Percentile CI of the mean of per-problem values, resampling problems with a seeded generator.

    Each resample draws ``len(values)`` problems with replacement; the CI is the ``(1 - level) / 2``
    and ``(1 + level) / 2`` quantiles (linear interpolation) of the resampled means. Drawn in chunks
    so a few thousand problems never need a ``resamples x problems`` matrix at once; 0/1 values draw
    the resampled count of correct problems directly (binomial), which has the same distribution.
    """
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError('bootstrap needs at least one problem')
    if not 0 < level < 1 or resamples < 1:
        raise ValueError(f'bootstrap needs 0 < level < 1 and resamples >= 1, got {level}, {resamples}')
    if np.all(data == data[0]):
        return float(data[0]), float(data[0])
    rng = np.random.default_rng(seed)
    if np.isin(data, (0.0, 1.0)).all():
        # 0/1 values: the count of 1s in a resample is Binomial(n, share of 1s), the same distribution as
        # drawing problems, at the cost of one draw per resample instead of n
        return _quantiles(rng.binomial(data.size, data.mean(), size=resamples) / data.size, level)
    means = np.empty(resamples)
    for start in range(0, resamples, BOOTSTRAP_CHUNK):
        stop = min(start + BOOTSTRAP_CHUNK, resamples)
        means[start:stop] = data[rng.integers(0, data.size, size=(stop - start, data.size))].mean(axis=1)
    return _quantiles(means, level)


def _quantiles(means: np.ndarray, level: float) -> Tuple[float, float]:
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)
