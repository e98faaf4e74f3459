"""verl entry points: ``custom_reward_function.path`` = this file, ``.name`` = ``compute_score``.

verl loads the file by path under another module name (``custom_module``), so every import here is
absolute. Its reward managers call ``compute_score(data_source=, solution_str=, ground_truth=,
extra_info=)`` once per response (``naive``, ``prime``, ``dapo``) or ``compute_score_batch(data_sources=,
solution_strs=, ground_truths=, extra_infos=)`` once per step (``reward_manager=batch``), with the
config's ``reward_kwargs`` added as keywords. The reward loop (``reward_model.use_reward_loop``) awaits
a coroutine function directly (``compute_score_async``, adding ``reward_router_address`` and
``reward_model_tokenizer``) and runs a plain one in an executor. A dict result is logged key by key, so every key is
present with the same type for every response. ``extra_info`` may carry the row's ``unit`` and
``tolerance``.
"""
from __future__ import annotations

import asyncio
from typing import Any, Dict, List, Mapping, Optional, Sequence

from evalscope_phys.reward.batch import DEFAULT_THREADS, batch_scores
from evalscope_phys.reward.score import ANSWER_DEADLINE, Reference, score_completion


def compute_score(data_source: Any, solution_str: str, ground_truth: Reference,
                  extra_info: Optional[Mapping[str, Any]] = None, *, mode: str = 'binary',
                  format_weight: float = 0.0, timeout: float = ANSWER_DEADLINE, **_: Any) -> Dict[str, Any]:
    """``{"score", "strict", "lenient", "scored", "reason"}`` for one response.

    ``data_source`` is not needed (any physics row is scored the same way); unknown keywords
    from newer verl versions are accepted and ignored.
    """
    unit, tolerance = _row_options(extra_info)
    return score_completion(solution_str, ground_truth, mode=mode, unit=unit, tolerance=tolerance,
                            format_weight=format_weight, timeout=timeout).to_dict()


async def compute_score_async(data_source: Any, solution_str: str, ground_truth: Reference,
                              extra_info: Optional[Mapping[str, Any]] = None, **kwargs: Any) -> Dict[str, Any]:
    """The reward loop's async entry point: :func:`compute_score` in a thread, so the event loop
    keeps serving other samples while this one waits for a scoring worker."""
    return await asyncio.to_thread(compute_score, data_source, solution_str, ground_truth, extra_info, **kwargs)


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[str],
                        ground_truths: Sequence[Reference], extra_infos: Optional[Sequence[Any]] = None, *,
                        mode: str = 'binary', format_weight: float = 0.0, timeout: float = ANSWER_DEADLINE,
                        threads: int = DEFAULT_THREADS, **_: Any) -> List[Dict[str, Any]]:
    """The batch reward manager's entry point: one dict per response, repeats scored once."""
    if extra_infos is None:
        extra_infos = [None] * len(solution_strs)
    options = [_row_options(info) for info in extra_infos]
    rewards = batch_scores(list(solution_strs), [_plain(g) for g in ground_truths], mode=mode,
                           units=[u for u, _ in options], tolerances=[t for _, t in options],
                           format_weight=format_weight, timeout=timeout, threads=threads)
    return [reward.to_dict() for reward in rewards]


def _row_options(extra_info: Any):
    """(unit, tolerance) from a row's ``extra_info``; anything unreadable is left out."""
    if not isinstance(extra_info, Mapping):
        return None, None
    unit = extra_info.get('unit')
    tolerance = extra_info.get('tolerance')
    unit = unit if isinstance(unit, str) and unit.strip() else None
    try:
        tolerance = float(tolerance) if tolerance is not None else None
    except (TypeError, ValueError):
        tolerance = None
    return unit, tolerance


def _plain(ground_truth: Any) -> Any:
    """verl keeps non-tensor columns in numpy object arrays: a list answer may arrive as an array."""
    if hasattr(ground_truth, 'tolist') and not isinstance(ground_truth, str):
        return ground_truth.tolist()
    return ground_truth
