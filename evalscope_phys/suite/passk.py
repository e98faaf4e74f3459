"""pass@k and maj@k from the reviews of a run made with EvalScope ``repeats``.

EvalScope 1.14.1 has ``mean_and_pass_at_k`` / ``mean_and_vote_at_k`` aggregations, but they treat
every score key as a 0/1 count: PHYBench's ``eed`` (0-100) would be fed to the pass@k estimator as a
number of correct answers, and an unscored attempt (scorer timeout, no value) would not be
separated from a wrong one. So we compute them here, per binary metric, from the per-sample reviews.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from .results import SampleResult, read_reviews, run_datasets

# Metrics that are bookkeeping, not correctness.
NOT_CORRECTNESS = frozenset({'scored'})
KMETRICS_DIR = 'kmetrics'


@dataclass(frozen=True)
class KScore:
    """One pass@k or maj@k figure over the problems that had enough scored attempts."""

    metric: str
    aggregation: str  # 'pass_at_k' or 'vote_at_k', EvalScope's own names
    k: int
    score: float
    num: int
    total: int


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021): 1 - C(n-c, k) / C(n, k), for n >= k attempts with c correct."""
    if not 0 <= c <= n or k < 1 or k > n:
        raise ValueError(f'pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}')
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


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


def k_scores(samples: Sequence[SampleResult], repeats: int) -> List[KScore]:
    """pass@k and maj@k for each binary metric; unscored attempts count neither as right nor wrong."""
    groups: Dict[Tuple[str, str], List[SampleResult]] = defaultdict(list)
    for sample in samples:
        groups[(sample.subset, sample.problem)].append(sample)
    results: List[KScore] = []
    for metric in binary_metrics(samples):
        for k in k_values(repeats):
            passes, votes = [], []
            for attempts in groups.values():
                ordered = sorted(attempts, key=lambda s: s.generation)
                scored = [s.values[metric] for s in ordered if metric in s.values]
                if len(scored) >= k:
                    passes.append(pass_at_k(len(scored), int(sum(scored)), k))
                first_k = [(s.prediction, s.values[metric]) for s in ordered[:k] if metric in s.values]
                if first_k:
                    votes.append(majority_correct(first_k))
            total = len(groups)
            if passes:
                results.append(KScore(metric, 'pass_at_k', k, sum(passes) / len(passes), len(passes), total))
            if votes:
                results.append(KScore(metric, 'vote_at_k', k, sum(votes) / len(votes), len(votes), total))
    return results


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
                'metrics': [{'identity': {'name': s.metric, 'aggregation': s.aggregation, 'dimensions': {'k': s.k}},
                             'score': s.score, 'num': s.num, 'total': s.total} for s in k_scores(samples, repeats)],
            }
            out = run / KMETRICS_DIR / model / f'{dataset}.json'
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.with_suffix('.json.tmp')
            tmp.write_text(json.dumps(payload, indent=2), encoding='utf-8')
            tmp.replace(out)
            written.append(out)
    return written
