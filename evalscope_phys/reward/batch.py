"""Rewards for a whole batch of completions: what an RL step hands over, scored at once.

Why: a GRPO step scores groups of completions per prompt, many of them identical or ending in the
same answer. Identical (response, reference, unit, tolerance) items are scored once here; distinct
responses with the same final answer hit the engine's verdict cache. The distinct ones fan out over
threads so every scoring worker process stays busy while this process does the string work
(extraction, unit lookup) of the next ones; the engine's hard per-answer deadline still holds for
each of them (from the moment a worker takes it), and waiting for a free worker is not charged to it.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, Hashable, List, Optional, Sequence

from evalscope_phys.reward.score import (DEFAULT_MAX_WAIT, ANSWER_DEADLINE, Reference, Reward, check_options,
                                         count_unscored, score_completion)

DEFAULT_THREADS = 4
"""Callers in flight: two per scoring worker of the default 2-worker pool, so one request waits on
each worker while another is being extracted here (measured by ``scripts/bench_reward.py``)."""


class Rewards(List[Reward]):
    """The rewards of a batch, in order, and how many of them could not be scored."""

    @property
    def unscored(self) -> int:
        """Completions that earned the unscored reward (deadline, size limits, unreadable reference)."""
        return sum(not reward.verdict.scored for reward in self)

    @property
    def unscored_share(self) -> float:
        """``unscored / len``; 0.0 for an empty batch. Log it: a rising share means lost rewards."""
        return self.unscored / len(self) if self else 0.0


def batch_scores(responses: Sequence[Any], references: Sequence[Reference], *, mode: str = 'binary',
                 units: Optional[Sequence[Optional[str]]] = None,
                 tolerances: Optional[Sequence[Optional[float]]] = None, format_weight: float = 0.0,
                 timeout: float = ANSWER_DEADLINE, threads: int = DEFAULT_THREADS,
                 max_wait: float = DEFAULT_MAX_WAIT) -> Rewards:
    """One :class:`Reward` per response, in order, with the unscored share (see :func:`batch_rewards`)."""
    check_options(mode, format_weight)
    count = len(responses)
    _check_length('references', references, count)
    units = _per_item('units', units, count)
    tolerances = _per_item('tolerances', tolerances, count)
    if threads < 1:
        raise ValueError(f'threads must be >= 1, not {threads!r}')

    first: Dict[Hashable, int] = {}
    slot_of: List[int] = []
    for index in range(count):
        key = (_hashable(responses[index]), _hashable(references[index]), units[index], tolerances[index])
        slot_of.append(first.setdefault(key, len(first)))
    unique_items = _first_indices(slot_of, len(first))  # the first batch index carrying each item

    def score(index: int) -> Reward:
        return score_completion(responses[index], references[index], mode=mode, unit=units[index],
                                tolerance=tolerances[index], format_weight=format_weight, timeout=timeout,
                                max_wait=max_wait)

    if threads == 1 or len(unique_items) <= 1:
        scored = [score(i) for i in unique_items]
    else:
        with ThreadPoolExecutor(max_workers=min(threads, len(unique_items)),
                                thread_name_prefix='evalscope-phys-reward') as executor:
            scored = list(executor.map(score, unique_items))
    for index, slot in enumerate(slot_of):
        if unique_items[slot] != index and not scored[slot].verdict.scored:
            count_unscored(scored[slot].verdict)  # every completion counts, repeats too
    return Rewards(scored[slot] for slot in slot_of)


def batch_rewards(responses: Sequence[Any], references: Sequence[Reference], *, mode: str = 'binary',
                  units: Optional[Sequence[Optional[str]]] = None,
                  tolerances: Optional[Sequence[Optional[float]]] = None, format_weight: float = 0.0,
                  timeout: float = ANSWER_DEADLINE, threads: int = DEFAULT_THREADS) -> List[float]:
    """Rewards of ``responses[i]`` against ``references[i]``, in order, as :func:`physics_reward`
    would give them one by one, with repeats scored once and the rest in parallel.

    ``units``/``tolerances`` are per item (None entries, or None for all). Never raises on a bad
    completion; raises ValueError when the lengths or options do not fit together.
    """
    return [r.score for r in batch_scores(responses, references, mode=mode, units=units, tolerances=tolerances,
                                          format_weight=format_weight, timeout=timeout, threads=threads)]


def _first_indices(slot_of: List[int], slots: int) -> List[int]:
    first = [-1] * slots
    for index, slot in enumerate(slot_of):
        if first[slot] < 0:
            first[slot] = index
    return first


def _check_length(name: str, values: Sequence[Any], count: int) -> None:
    if len(values) != count:
        raise ValueError(f'{name} has {len(values)} items for {count} responses; pass one per response')


def _per_item(name: str, values: Optional[Sequence[Any]], count: int) -> List[Any]:
    if values is None:
        return [None] * count
    if isinstance(values, (str, bytes)):
        raise ValueError(f'{name} must be a sequence with one entry per response, not a single string')
    _check_length(name, values, count)
    return list(values)


def _hashable(value: Any) -> Hashable:
    """A dictionary key for a response or reference (lists of reference answers become tuples)."""
    if isinstance(value, list):
        return ('list', tuple(_hashable(v) for v in value))
    try:
        hash(value)
    except TypeError:
        return ('repr', type(value).__name__, repr(value))
    return (type(value).__name__, value)
