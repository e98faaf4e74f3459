"""One completion's reward: the scoring engine's verdict turned into a number an RL trainer can use.

Why binary by default: Physics-R1 trains with 1.0 for a strictly correct final answer and 0.0
otherwise, and recommends it over its dense reward (variance-optimal under group-normalised
advantages, nothing for the policy to game through units or format). ``lenient`` and ``eed`` are
there for ablations, as is the optional format term.

An answer the engine cannot score (deadline fired, size limits, unreadable reference) earns
:data:`UNSCORED_REWARD` and is counted in :func:`unscored_counts`, with one warning per reason, so
a run never crashes on one bad completion and never hides that some were not scored.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence, Union

from evalscope_phys.scoring import Verdict, extract_final_answer, score_answer
from evalscope_phys.scoring.run.limits import ANSWER_DEADLINE

logger = logging.getLogger(__name__)

MODES = ('binary', 'lenient', 'eed')
"""``binary``: 1.0 iff strict; ``lenient``: 1.0 iff lenient; ``eed``: PHYBench EED / 100."""
UNSCORED_REWARD = 0.0
"""Reward of an unscored answer: never above a wrong one, so a policy gains nothing by producing
answers that time out or overflow the size limits. The count is kept in :func:`unscored_counts`."""
DEFAULT_MAX_WAIT = 300.0
"""Bound on one completion's whole wait (queue, a retry, another thread scoring the same text)."""
RETRIED_REASONS = ('timeout', 'worker_crashed')
"""Unscored verdicts tried once more with a fresh budget (a loaded machine, a killed worker)."""

Reference = Union[str, Sequence[str]]

_counts: Counter = Counter()
_counts_lock = threading.Lock()


@dataclass(frozen=True)
class Reward:
    """A reward with the verdict behind it (what verl logs beside the score)."""

    score: float
    """The number handed to the trainer."""
    verdict: Verdict
    """The engine's verdict on the completion's final answer."""
    boxed: Optional[bool] = None
    """Whether the final answer was in ``\\boxed{}``; only looked at when the format term is on."""

    def to_dict(self) -> Dict[str, Any]:
        """Flat, same-typed fields for every completion (verl stacks each key into one array)."""
        return {
            'score': self.score,
            'strict': bool(self.verdict.strict),
            'lenient': bool(self.verdict.lenient),
            'scored': self.verdict.scored,
            'reason': self.verdict.reason,
        }


def check_options(mode: str, format_weight: float) -> None:
    """Raise ValueError on a misconfigured reward (a config error, unlike a bad completion)."""
    if mode not in MODES:
        raise ValueError(f'mode must be one of {", ".join(MODES)}, not {mode!r}')
    if not 0.0 <= format_weight <= 1.0:
        raise ValueError(f'format_weight must be between 0 and 1, not {format_weight!r}')


def correctness(verdict: Verdict, mode: str) -> Optional[float]:
    """The verdict as a number in [0, 1] under ``mode``; None when the answer was not scored."""
    if not verdict.scored:
        return None
    if mode == 'binary':
        return 1.0 if verdict.strict else 0.0
    if mode == 'lenient':
        return 1.0 if verdict.lenient else 0.0
    return (verdict.eed or 0.0) / 100.0


def reward_from_verdict(verdict: Verdict, response: Any, *, mode: str = 'binary',
                        format_weight: float = 0.0) -> Reward:
    """Combine correctness and the optional format term; count the verdict when it is unscored.

    With ``format_weight = w`` the reward is ``(1 - w) * correctness + w * boxed`` (an ablation:
    Physics-R1's dense reward has a format part; off by default). An unscored answer earns
    :data:`UNSCORED_REWARD` whatever its format.
    """
    value = correctness(verdict, mode)
    if value is None:
        count_unscored(verdict)
        return Reward(UNSCORED_REWARD, verdict)
    if not format_weight:
        return Reward(value, verdict)
    boxed = _is_boxed(response)
    return Reward((1.0 - format_weight) * value + format_weight * float(boxed), verdict, boxed)


def score_completion(response: Any, reference: Reference, *, mode: str = 'binary', unit: Optional[str] = None,
                     tolerance: Optional[float] = None, format_weight: float = 0.0,
                     timeout: float = ANSWER_DEADLINE, max_wait: float = DEFAULT_MAX_WAIT) -> Reward:
    """The :class:`Reward` of one completion (score and verdict); never raises on bad input.

    ``timeout`` is the completion's scoring budget from the moment a worker takes it; an answer
    left unscored by it (or by a crashed worker) is tried once more with a fresh budget; ``max_wait``
    bounds the whole call.
    """
    check_options(mode, format_weight)
    verdict = _verdict(response, reference, mode=mode, unit=unit, tolerance=tolerance, timeout=timeout,
                       max_wait=max_wait)
    return reward_from_verdict(verdict, response, mode=mode, format_weight=format_weight)


def physics_reward(response: Any, reference: Reference, *, mode: str = 'binary', unit: Optional[str] = None,
                   tolerance: Optional[float] = None, format_weight: float = 0.0,
                   timeout: float = ANSWER_DEADLINE, max_wait: float = DEFAULT_MAX_WAIT) -> float:
    """Reward of one completion against its reference: 1.0/0.0 by default (strict correctness).

    ``unit`` is the reference's unit when the dataset keeps it apart, ``tolerance`` the lenient
    relative tolerance. Safe from any thread; an unscored answer returns
    :data:`UNSCORED_REWARD` and is counted, it never raises.
    """
    return score_completion(response, reference, mode=mode, unit=unit, tolerance=tolerance,
                            format_weight=format_weight, timeout=timeout, max_wait=max_wait).score


def unscored_counts() -> Dict[str, int]:
    """How many completions this process could not score, by reason (``timeout``, ...)."""
    with _counts_lock:
        return dict(_counts)


def reset_unscored_counts() -> None:
    """Start counting afresh (e.g. once per training step)."""
    with _counts_lock:
        _counts.clear()


def _verdict(response: Any, reference: Reference, *, mode: str, unit: Optional[str],
             tolerance: Optional[float], timeout: float, max_wait: float = DEFAULT_MAX_WAIT) -> Verdict:
    end = time.perf_counter() + max_wait
    try:
        verdict = score_answer(reference, response, tolerance=tolerance, unit=unit, eed=mode == 'eed',
                               timeout=timeout, wait=max_wait)
        left = end - time.perf_counter()
        if verdict.reason in RETRIED_REASONS and left > 0:
            verdict = score_answer(reference, response, tolerance=tolerance, unit=unit, eed=mode == 'eed',
                                   timeout=timeout, wait=left)
        return verdict
    except Exception as exc:  # the facade never raises on bad input; anything else is our failure
        logger.exception('scoring failed; the completion earns the unscored reward')
        return Verdict.unscored('error', f'{type(exc).__name__}: {exc}'[:300])


def _is_boxed(response: Any) -> bool:
    if not isinstance(response, str):
        return False
    try:
        return extract_final_answer(response).source == 'boxed'
    except RecursionError:
        return False


def count_unscored(verdict: Verdict) -> None:
    """Count one unscored completion (the batch API counts each repeat of one it scored once)."""
    with _counts_lock:
        first = verdict.reason not in _counts
        _counts[verdict.reason] += 1
    if first:
        logger.warning('a completion could not be scored (%s: %s); it earns %.1f, and '
                       'evalscope_phys.reward.unscored_counts() keeps the count',
                       verdict.reason, verdict.detail or 'no detail', UNSCORED_REWARD)
