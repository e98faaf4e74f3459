"""One rule for every command that calls a judge: failed calls beyond a threshold fail the command.

Why: a judge that did not answer must not produce a result that looks like one (a "clean" pool, a
score, a passed self-test). Each command counts its failed calls per step and asks :func:`check`;
the default threshold is 0 (any failed call on a gating step fails it). Answered calls stay in
the command's cache, so the same command run again asks only the failed ones.
"""
from __future__ import annotations

from typing import Optional

DEFAULT_MAX_FAILURES = 0.0
"""Failed calls tolerated on a gating step: a count (>= 1) or a share of the step's calls (< 1)."""


class JudgeCallsFailed(RuntimeError):
    """Too many judge calls of one step failed; the message names the step, the count and the endpoint."""

    def __init__(self, step: str, failed: int, total: int, endpoint: str, allowed: int) -> None:
        self.step, self.failed, self.total, self.endpoint, self.allowed = step, failed, total, endpoint, allowed
        super().__init__(f'{step}: {failed} of {total} judge call(s) failed at {endpoint} '
                         f'(allowed: {allowed}; --max-judge-failures); results so far are kept, '
                         'run the same command again to retry the failed calls')


def allowed_failures(max_failures: float, total: int) -> int:
    """How many of ``total`` calls may fail: ``max_failures`` as a count, or as a share when below 1."""
    if max_failures < 0:
        raise ValueError(f'--max-judge-failures must be >= 0, not {max_failures}')
    if 0 < max_failures < 1:
        return int(max_failures * total)
    return int(max_failures)


def failure(step: str, failed: int, total: int, endpoint: str,
            max_failures: float = DEFAULT_MAX_FAILURES) -> Optional[JudgeCallsFailed]:
    """The error to raise when ``failed`` of ``total`` calls exceed the threshold, else None."""
    allowed = allowed_failures(max_failures, total)
    return JudgeCallsFailed(step, failed, total, endpoint, allowed) if failed > allowed else None


def check(step: str, failed: int, total: int, endpoint: str, max_failures: float = DEFAULT_MAX_FAILURES) -> None:
    """Raise :class:`JudgeCallsFailed` when ``failed`` of ``total`` calls exceed the threshold."""
    error = failure(step, failed, total, endpoint, max_failures)
    if error is not None:
        raise error
