"""The wrongly answered samples of an EvalScope run, read back from ``reviews/<model>/<dataset>_<subset>.jsonl``.

A review holds what the judge needs: the prompt the model saw, its whole reply, the score our adapter
gave (``strict_acc``, ``eed``, the engine's reason and extracted answer) and the sample metadata,
where our adapters keep the record's worked solution (``solution``), its domain and difficulty.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from evalscope_phys.serve.records import message_text
from evalscope_phys.suite.results import (SEED_DIR, RunDirError, review_records, run_datasets, sample_id,
                                          split_review_name)

#: sample-metadata keys that name a problem's domain, first found wins (PHYBench ``tag``,
#: PhysUniBench ``subtopic``, UGPhysics/SeePhys ``subject``)
DOMAIN_KEYS = ('tag', 'subtopic', 'subject', 'domain')
DIFFICULTY_KEYS = ('difficulty', 'level')


@dataclass(frozen=True)
class WrongSample:
    """One wrongly answered generation and everything the judge is shown about it."""

    model: str
    dataset: str
    subset: str
    index: int
    generation: int
    sample_id: str
    problem: str
    """The prompt the model answered (text parts; figures are not passed on)."""
    solution: str
    """The model's whole reply."""
    reference_answer: str
    reference_solution: Optional[str]
    domain: Optional[str]
    difficulty: Optional[str]
    scorer: Dict[str, Any] = field(default_factory=dict)
    """What the scorer said: ``strict``, ``eed``, ``reason``, ``extracted``."""

    @property
    def key(self) -> str:
        """Where the sample sits in the run; stable across reruns of the analysis."""
        return f'{self.model}/{self.dataset}/{self.subset}/{self.index}/{self.generation}'

    def scorer_note(self) -> str:
        """The scorer's verdict in one sentence, for the judge (it decides whether ``none`` applies)."""
        parts = [f'it read the final answer as `{self.scorer.get("extracted") or "(nothing)"}`']
        if self.scorer.get('reason'):
            parts.append(f'reason: {self.scorer["reason"]}')
        if self.scorer.get('eed') is not None:
            parts.append(f'EED {self.scorer["eed"]:.1f} of 100')
        return '; '.join(parts) + '.'


@dataclass
class ReviewScan:
    """The wrong samples of one dataset in a run, and how many of the others there were."""

    dataset: str
    models: List[str]
    wrong: List[WrongSample] = field(default_factory=list)
    right: int = 0
    unscored: int = 0
    """Samples with neither ``strict_acc`` nor ``eed``: the scorer reached no verdict, so they are not analysed."""
    unreadable: List[str] = field(default_factory=list)
    """``file:line`` of review lines that are not review records (a torn write), skipped."""

    @property
    def total(self) -> int:
        return len(self.wrong) + self.right + self.unscored


def scan_reviews(run: Path, dataset: str, model: Optional[str] = None) -> ReviewScan:
    """Every reviewed generation of ``dataset`` in one EvalScope run dir, split into wrong / right / unscored."""
    run = Path(run)
    if not run.is_dir():
        raise RunDirError(f'{run}: not a directory')
    if not (run / 'reviews').is_dir():
        seeds = sorted(p.name for p in run.iterdir() if p.is_dir() and SEED_DIR.match(p.name))
        hint = f'; this is a suite dir, pass one of its runs, e.g. {run / seeds[0]}' if seeds else ''
        raise RunDirError(f'{run}: no reviews/ folder, so not an EvalScope run dir{hint}')
    datasets = run_datasets(run) or [dataset]
    if dataset not in datasets:
        raise RunDirError(f'{run}: the run has no dataset {dataset!r}; it has {", ".join(datasets)}')
    models = sorted(p.name for p in (run / 'reviews').iterdir() if p.is_dir() and (model is None or p.name == model))
    if not models:
        raise RunDirError(f'{run}: no reviews/{model or "<model>"}/ folder')
    scan = ReviewScan(dataset=dataset, models=models)
    for name in models:
        for path in sorted((run / 'reviews' / name).glob('*.jsonl')):
            found, subset = _dataset_of(path, datasets)
            if found == dataset:
                _scan_file(path, name, dataset, subset, scan)
    if not scan.total and not scan.unreadable:
        raise RunDirError(f'{run}: no reviews of {dataset!r} under reviews/{model or "*"}/')
    return scan


def _dataset_of(path: Path, datasets: List[str]) -> Tuple[Optional[str], str]:
    try:
        return split_review_name(path.stem, datasets)
    except RunDirError:
        return None, ''


def _scan_file(path: Path, model: str, dataset: str, subset: str, scan: ReviewScan) -> None:
    for number, review in review_records(path, strict=False):
        if review is None:
            scan.unreadable.append(f'{path}:{number}')
            continue
        verdict = is_wrong(review['sample_score']['score'].get('value') or {})
        if verdict is None:
            scan.unscored += 1
        elif not verdict:
            scan.right += 1
        else:
            scan.wrong.append(wrong_sample(review, model, dataset, subset))


def is_wrong(values: Dict[str, Any]) -> Optional[bool]:
    """Wrong when not strictly right or EED below 100; None when the scorer gave neither (unscored)."""
    strict, eed = _number(values.get('strict_acc')), _number(values.get('eed'))
    if strict is None and eed is None:
        return None
    return (strict is not None and strict < 1) or (eed is not None and eed < 100)


def wrong_sample(review: Dict[str, Any], model: str, dataset: str, subset: str) -> WrongSample:
    """The judge's view of one review record."""
    sample_score = review['sample_score']
    score = sample_score['score']
    metadata = sample_score.get('sample_metadata') or {}
    values = score.get('value') or {}
    verdict = (score.get('metadata') or {}).get('verdict') or {}
    target = review.get('target')
    reference = '\n'.join(map(str, target)) if isinstance(target, list) else str(target or '')
    solution = metadata.get('solution')
    return WrongSample(
        model=model, dataset=dataset, subset=subset,
        index=int(review.get('index', sample_score.get('sample_id', 0)) or 0),
        generation=int(sample_score.get('generation_index') or 0),
        sample_id=sample_id(review),
        problem=_problem_text(review.get('messages')),
        solution=str(score.get('prediction') or ''),
        reference_answer=reference,
        reference_solution=str(solution) if isinstance(solution, str) and solution.strip() else None,
        domain=_first(metadata, DOMAIN_KEYS, lower=True),
        difficulty=_first(metadata, DIFFICULTY_KEYS),
        scorer={'strict': _number(values.get('strict_acc')), 'eed': _number(values.get('eed')),
                'reason': verdict.get('reason') or score.get('explanation'),
                'extracted': score.get('extracted_prediction') or verdict.get('extracted')},
    )


def _problem_text(messages: Any) -> str:
    if not isinstance(messages, list):
        return ''
    users = [m for m in messages if isinstance(m, dict) and m.get('role') == 'user']
    return message_text(users[-1]) if users else ''


def _first(metadata: Dict[str, Any], keys: Tuple[str, ...], lower: bool = False) -> Optional[str]:
    for key in keys:
        value = metadata.get(key)
        if value is not None and str(value).strip():
            return str(value).strip().lower() if lower else str(value).strip()
    return None


def _number(value: Any) -> Optional[float]:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
