"""Per-problem 0/1 outcomes from run dirs, paired across two runs or across items sharing a pair id.

A problem is identified by its dataset, subset and ``sample_metadata[id_key]`` (falling back to its
position in the subset). With ``repeats`` only generation 0 is used, so each problem contributes one
paired observation; unscored samples are left out and counted, never treated as wrong.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Tuple

from .results import RunDirError, SampleResult, read_reviews, sub_runs

ProblemKey = Tuple[str, str, str]


@dataclass(frozen=True)
class PairedOutcomes:
    """Aligned outcomes: ``keys[i]`` was ``a[i]`` in A and ``b[i]`` in B."""

    keys: Tuple[str, ...]
    a: Tuple[int, ...]
    b: Tuple[int, ...]
    label_a: str
    label_b: str
    unmatched: int  # problems present on one side only
    unscored: int  # samples without a value for the metric


def select_run(path: Path, seed: Optional[int] = None) -> Path:
    """The single EvalScope run inside ``path``; a suite dir with several seeds needs ``seed``."""
    runs = sub_runs(Path(path))
    if seed is not None:
        chosen = [run for s, run in runs if s == seed]
        if not chosen:
            raise RunDirError(f'{path}: no seed_{seed}/ sub-run (have {[s for s, _ in runs]})')
        return chosen[0]
    if len(runs) > 1:
        raise RunDirError(f'{path}: holds seeds {[s for s, _ in runs]}; choose one with --seed')
    return runs[0][1]


def _first_generations(run: Path, dataset: Optional[str], id_key: str) -> List[SampleResult]:
    return [s for s in read_reviews(run, id_key=id_key, dataset=dataset) if s.generation == 0]


def _binary(value: float, metric: str, where: str) -> int:
    if value not in (0.0, 1.0):
        raise ValueError(f'{where}: metric {metric!r} has value {value}; paired tests need a 0/1 metric')
    return int(value)


def problem_outcomes(run: Path, metric: str, dataset: Optional[str] = None,
                     id_key: str = 'id') -> Tuple[Dict[ProblemKey, int], Set[ProblemKey]]:
    """``({(dataset, subset, problem): 0/1}, {unscored problems})`` for one run."""
    outcomes: Dict[ProblemKey, int] = {}
    unscored: Set[ProblemKey] = set()
    for sample in _first_generations(run, dataset, id_key):
        key = (sample.dataset, sample.subset, sample.problem)
        if key in outcomes or key in unscored:
            raise RunDirError(f'{run}: problem {key} appears twice; pass --id-key naming a unique id field')
        if metric not in sample.values:
            unscored.add(key)
            continue
        outcomes[key] = _binary(sample.values[metric], metric, f'{run} {key}')
    return outcomes, unscored


def pair_runs(run_a: Path, run_b: Path, metric: str, dataset: Optional[str] = None,
              id_key: str = 'id') -> PairedOutcomes:
    """Align two runs on the problems both scored."""
    a, unscored_a = problem_outcomes(run_a, metric, dataset, id_key)
    b, unscored_b = problem_outcomes(run_b, metric, dataset, id_key)
    shared = sorted(set(a) & set(b))
    if not shared:
        raise RunDirError(f'{run_a} and {run_b} share no scored problems for {metric!r}')
    return PairedOutcomes(keys=tuple('/'.join(k) for k in shared), a=tuple(a[k] for k in shared),
                          b=tuple(b[k] for k in shared), label_a=str(run_a), label_b=str(run_b),
                          unmatched=len((set(a) | unscored_a) ^ (set(b) | unscored_b)),
                          unscored=len(unscored_a | unscored_b))


def pair_within(run: Path, metric: str, pair_key: str = 'pair_id', side_key: str = 'lang',
                sides: Optional[Sequence[str]] = None, dataset: Optional[str] = None) -> PairedOutcomes:
    """Align items of one run that share ``metadata[pair_key]``, sides told apart by ``metadata[side_key]``."""
    grouped: Dict[str, Dict[str, Optional[int]]] = {}
    for sample in _first_generations(run, dataset, 'id'):
        pair, side = sample.metadata.get(pair_key), sample.metadata.get(side_key)
        if pair is None or side is None:
            continue
        value = sample.values.get(metric)
        slot = grouped.setdefault(str(pair), {})
        if str(side) in slot:
            raise RunDirError(f'{run}: pair {pair!r} has two items on side {side!r}')
        slot[str(side)] = None if value is None else _binary(value, metric, f'{run} pair {pair}')
    if not grouped:
        raise RunDirError(f'{run}: no samples carry both {pair_key!r} and {side_key!r} in their metadata')
    found = sorted({side for slot in grouped.values() for side in slot})
    sides = list(sides) if sides else found
    if len(sides) != 2:
        raise RunDirError(f'{run}: {side_key!r} takes values {found}; name the two to compare with --sides')
    keys, a, b, unmatched, unscored = [], [], [], 0, 0
    for pair in sorted(grouped):
        slot = grouped[pair]
        if sides[0] not in slot or sides[1] not in slot:
            unmatched += 1
            continue
        if slot[sides[0]] is None or slot[sides[1]] is None:
            unscored += 1
            continue
        keys.append(pair)
        a.append(slot[sides[0]])
        b.append(slot[sides[1]])
    if not keys:
        raise RunDirError(f'{run}: no complete scored pairs for sides {sides}')
    return PairedOutcomes(tuple(keys), tuple(a), tuple(b), f'{side_key}={sides[0]}', f'{side_key}={sides[1]}',
                          unmatched, unscored)
