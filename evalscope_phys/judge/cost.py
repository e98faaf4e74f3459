"""What the judge cost for one sample: calls made and failed, prompt and completion tokens.

Why: a judge is paid per token and EvalScope 1.14.1 reports judge coverage but not tokens. Every
judge request EvalScope makes is kept as one ``judge_attempts`` entry in the sample's score
metadata (``JudgeExecutor.build_score``), with the provider's ``usage`` inside its
``model_output``; this module sums them into per-sample metric values, so a report's mean times its
``num`` is the run's total (``scripts/score_reports.sh`` prints those totals as ``judge_*`` rows).

A request that failed in transport has no ``model_output`` and so no tokens (the provider may
still have billed it); retries inside the HTTP client are invisible to EvalScope and not counted.
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, Mapping

JUDGE_CALLS = 'judge_calls'
JUDGE_FAILED_CALLS = 'judge_failed_calls'
JUDGE_PROMPT_TOKENS = 'judge_prompt_tokens'
JUDGE_COMPLETION_TOKENS = 'judge_completion_tokens'
COST_METRICS = (JUDGE_CALLS, JUDGE_FAILED_CALLS, JUDGE_PROMPT_TOKENS, JUDGE_COMPLETION_TOKENS)


def _tokens(usage: Any, key: str) -> int:
    value = usage.get(key) if isinstance(usage, Mapping) else getattr(usage, key, None)
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else 0


def judge_usage(attempts: Iterable[Any]) -> Dict[str, float]:
    """Sum calls, failed calls and token usage over ``judge_attempts`` (dicts or ``JudgeAttempt`` objects)."""
    totals = dict.fromkeys(COST_METRICS, 0.0)
    for attempt in attempts or ():
        get = attempt.get if isinstance(attempt, Mapping) else lambda key, a=attempt: getattr(a, key, None)
        totals[JUDGE_CALLS] += 1
        status = get('status')
        if str(getattr(status, 'value', status)) != 'success':
            totals[JUDGE_FAILED_CALLS] += 1
        output = get('model_output')
        usage = output.get('usage') if isinstance(output, Mapping) else getattr(output, 'usage', None)
        if usage is not None:
            totals[JUDGE_PROMPT_TOKENS] += _tokens(usage, 'input_tokens')
            totals[JUDGE_COMPLETION_TOKENS] += _tokens(usage, 'output_tokens')
    return totals
