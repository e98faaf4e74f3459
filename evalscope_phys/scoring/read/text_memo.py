"""A process-wide memory for pure functions of short texts.

Why: reading asks the same small questions of the same short strings many times within one job and
across jobs (a left-hand side's name key, whether a piece is prose, where a text splits at top
level): on Yale's 999 o3-mini solutions ``quantity_names.name_key`` alone runs 35k times. The
functions memoised here are pure (their result depends on their text arguments only), so a
remembered result is the result. Only calls whose texts are short are remembered, and the number of
entries is fixed, so the memory is bounded in bytes (entries x characters), whatever the answers.
"""
from __future__ import annotations

from functools import lru_cache, wraps
from typing import Callable, TypeVar

MAX_CHARS = 400
"""Texts longer than this (all text arguments together) are computed every time, never remembered."""
ENTRIES = 8192
"""Entries per function: at most ``ENTRIES * MAX_CHARS`` characters of arguments (about 3 MiB) each."""

F = TypeVar('F', bound=Callable)
_MEMORIES: list = []
"""Every memory made here, so that a benchmark of cold caches can empty them all (:func:`forget`)."""


def short_texts(function: F) -> F:
    """``function`` with its results for short texts remembered (see the module docstring). Its
    arguments must be hashable and its result immutable (a tuple, a string, a bool)."""
    cached = lru_cache(maxsize=ENTRIES)(function)
    _MEMORIES.append(cached)

    @wraps(function)
    def call(*args):
        if sum(len(a) for a in args if isinstance(a, str)) <= MAX_CHARS:
            return cached(*args)
        return function(*args)

    call.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    call.cache_info = cached.cache_info  # type: ignore[attr-defined]
    return call  # type: ignore[return-value]


def forget() -> None:
    """Empty every memory of this module (``scripts/bench_scoring.py`` times pairs with cold caches)."""
    for cached in _MEMORIES:
        cached.cache_clear()
