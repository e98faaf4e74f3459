"""Read an EvalScope run directory back: reports and per-sample reviews.

The reports hold aggregates only; paired tests and pass@k need per-problem correctness, which lives
in ``reviews/<model>/<dataset>_<subset>.jsonl``. A suite work dir holds one run per seed
(``seed_<n>/``); a plain EvalScope output dir is one run.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import yaml

from evalscope_phys.safe_yaml import YamlLimitError, load_limited

SEED_DIR = re.compile(r'^seed_(-?\d+)$')


class RunDirError(ValueError):
    """A run directory that cannot be read; the message names the file."""


@dataclass(frozen=True)
class SampleResult:
    """One scored generation of one problem."""

    dataset: str
    subset: str
    problem: str
    generation: int
    values: Dict[str, float]
    prediction: Optional[str]
    metadata: Dict[str, Any] = field(default_factory=dict)


def sub_runs(path: Path) -> List[Tuple[Optional[int], Path]]:
    """``[(seed, dir)]`` for a suite dir (``seed_*`` children) or ``[(None, path)]`` for one EvalScope run."""
    path = Path(path)
    if not path.is_dir():
        raise RunDirError(f'{path}: not a directory')
    seeded = sorted(((int(m.group(1)), child) for child in path.iterdir()
                     if child.is_dir() and (m := SEED_DIR.match(child.name))), key=lambda item: item[0])
    if seeded:
        return seeded
    if (path / 'reviews').is_dir() or (path / 'reports').is_dir():
        return [(None, path)]
    raise RunDirError(f'{path}: neither an EvalScope run (reviews/, reports/) nor a suite dir (seed_*/)')


def run_datasets(run: Path) -> List[str]:
    """Dataset names the run was configured with (from ``configs/task_config.yaml``, else its reports)."""
    config = run / 'configs' / 'task_config.yaml'
    if config.is_file():
        try:  # a run dir may be handed over: the same limits as a suite file (an alias bomb is refused)
            data = load_limited(config) or {}
        except (YamlLimitError, yaml.YAMLError, UnicodeDecodeError) as exc:
            raise RunDirError(f'{config}: refused: {str(exc).splitlines()[0][:200]}') from None
        datasets = data.get('datasets') if isinstance(data, dict) else None
        if isinstance(datasets, list) and datasets:
            return [str(name) for name in datasets]
    return sorted({p.stem for p in run.glob('reports/*/*.json')})


def split_review_name(stem: str, datasets: List[str]) -> Tuple[str, str]:
    """``phyx_oe_rules_mechanics`` -> (``phyx_oe_rules``, ``mechanics``): the longest run dataset name wins."""
    for name in sorted(datasets, key=len, reverse=True):
        if stem.startswith(name + '_'):
            return name, stem[len(name) + 1:]
    raise RunDirError(f'review file {stem}.jsonl matches none of the run datasets {datasets}')


def sample_id(review: Dict[str, Any], id_key: str = 'id') -> str:
    """The problem a review record answers: its ``id_key`` metadata, else ``#<group>`` (shared by repeats)."""
    score = review.get('sample_score') or {}
    metadata = score.get('sample_metadata') or {}
    if metadata.get(id_key) is not None:
        return str(metadata[id_key])
    return f'#{score.get("group_id", review.get("index"))}'


def review_records(path: Path, strict: bool = True) -> Iterator[Tuple[int, Optional[Dict[str, Any]]]]:
    """``(line number, review)`` for every non-blank line of one ``reviews/<model>/*.jsonl`` file.

    A review is a JSON object with ``sample_score.score`` an object. The caller chooses the policy for a
    line that is not one: ``strict`` raises :class:`RunDirError` naming it (statistics must not skip
    rows), tolerant yields ``(number, None)`` so it can be counted (error analysis reads what it can).
    """
    # split on '\n' only: str.splitlines() also breaks at U+2028 inside JSON strings
    text = path.read_text(encoding='utf-8', errors='strict' if strict else 'replace')
    for number, line in enumerate(text.split('\n'), 1):
        if not line.strip():
            continue
        try:
            review = json.loads(line)
            if not isinstance(review['sample_score']['score'], dict):
                raise TypeError('sample_score.score is not an object')
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            if strict:
                raise RunDirError(f'{path}:{number}: not a review record ({exc})') from None
            yield number, None
            continue
        yield number, review


def read_reviews(run: Path, id_key: str = 'id', dataset: Optional[str] = None,
                 model: Optional[str] = None) -> Iterator[SampleResult]:
    """Yield every scored generation of a single EvalScope run directory."""
    datasets = run_datasets(run)
    files = sorted(run.glob(f'reviews/{model or "*"}/*.jsonl'))
    if not files:
        raise RunDirError(f'{run}: no reviews/*/*.jsonl files')
    for path in files:
        name, subset = split_review_name(path.stem, datasets)
        if dataset is not None and name != dataset:
            continue
        for _, review in review_records(path):
            sample_score = review['sample_score']
            score = sample_score['score']
            metadata = sample_score.get('sample_metadata') or {}
            values = {k: float(v) for k, v in (score.get('value') or {}).items()
                      if isinstance(v, (int, float)) and not isinstance(v, bool)}
            yield SampleResult(
                dataset=name, subset=subset, problem=sample_id(review, id_key),
                generation=int(sample_score.get('generation_index') or 0), values=values,
                prediction=score.get('extracted_prediction'), metadata=metadata)


def read_report(path: Path) -> Dict[str, Any]:
    """Load one ``reports/<model>/<dataset>.json``."""
    try:
        with open(path, encoding='utf-8') as handle:
            return json.load(handle)
    except (OSError, json.JSONDecodeError) as exc:
        raise RunDirError(f'{path}: unreadable report ({exc})') from None
