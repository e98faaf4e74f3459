"""TRL entry point: ``GRPOTrainer(reward_funcs=physics_reward_func, ...)``.

TRL calls a reward function once per step with the step's ``completions`` (strings, or for a
conversational dataset lists of messages) and every other dataset column as a keyword holding one
value per completion. The reference answer is read from the ``solution`` column, or ``ground_truth``
when there is none; :func:`make_physics_reward_func` names another column, the reward mode, a
per-row ``unit``/``tolerance`` column and the format term. The function's ``__name__`` is what
TRL logs the reward under (``rewards/physics_reward_func/mean``).

Nothing here imports TRL: the function only needs the calling convention.
"""
from __future__ import annotations

from typing import Any, List, Mapping, Optional, Sequence

from evalscope_phys.reward.batch import DEFAULT_THREADS, batch_scores
from evalscope_phys.reward.score import ANSWER_DEADLINE, check_options

REFERENCE_COLUMNS = ('solution', 'ground_truth')
"""Columns searched for the reference answer, in order, when no column is named."""
_TRAINER_KEYWORDS = frozenset({'prompts', 'completion_ids', 'trainer_state', 'log_extra', 'log_metric', 'environments'})


def completion_text(completion: Any) -> str:
    """The text of one completion: a string as is; for a conversation, the last assistant message
    (its text parts joined when the content is a list of typed parts)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return _content_text(completion.get('content'))
    if isinstance(completion, Sequence):
        messages = [m for m in completion if isinstance(m, Mapping)]
        replies = [m for m in messages if m.get('role', 'assistant') == 'assistant'] or messages
        return _content_text(replies[-1].get('content')) if replies else ''
    return '' if completion is None else str(completion)


class PhysicsRewardFunc:
    """A TRL reward function over our engine (a class so that it pickles, as TRL may need).

    ``reference_column=None`` searches :data:`REFERENCE_COLUMNS`; ``unit_column`` and
    ``tolerance_column`` are used when the dataset has them. Where TRL passes ``log_metric`` and
    ``log_extra`` (1.x), the share of unscored completions is logged as ``<name>/unscored`` and each
    completion's verdict reason goes into the completions table as ``<name>_reason``.
    """

    def __init__(self, reference_column: Optional[str] = None, *, mode: str = 'binary',
                 unit_column: Optional[str] = 'unit', tolerance_column: Optional[str] = 'tolerance',
                 format_weight: float = 0.0, timeout: float = ANSWER_DEADLINE, threads: int = DEFAULT_THREADS,
                 name: str = 'physics_reward_func'):
        check_options(mode, format_weight)
        self.reference_column, self.mode = reference_column, mode
        self.unit_column, self.tolerance_column = unit_column, tolerance_column
        self.format_weight, self.timeout, self.threads = format_weight, timeout, threads
        self.__name__ = name  # what TRL logs the reward under

    def __call__(self, completions: Sequence[Any], **kwargs: Any) -> List[float]:
        count = len(completions)
        rewards = batch_scores([completion_text(c) for c in completions],
                               _column(kwargs, self.reference_column, count), mode=self.mode,
                               units=_optional_column(kwargs, self.unit_column, count, str),
                               tolerances=_optional_column(kwargs, self.tolerance_column, count, float),
                               format_weight=self.format_weight, timeout=self.timeout, threads=self.threads)
        log_metric, log_extra = kwargs.get('log_metric'), kwargs.get('log_extra')
        if callable(log_metric) and count:
            log_metric(f'{self.__name__}/unscored', rewards.unscored_share)
        if callable(log_extra):
            log_extra(f'{self.__name__}_reason', [r.verdict.reason for r in rewards])
        return [r.score for r in rewards]


def make_physics_reward_func(reference_column: Optional[str] = None, **options: Any) -> PhysicsRewardFunc:
    """A configured reward function: ``make_physics_reward_func('answer', mode='lenient')``."""
    return PhysicsRewardFunc(reference_column, **options)


_DEFAULT = PhysicsRewardFunc()


def physics_reward_func(completions: Sequence[Any], **kwargs: Any) -> List[float]:
    """The default TRL reward: 1.0 for a strictly correct final answer, else 0.0, the reference
    from the ``solution`` or ``ground_truth`` column (see :class:`PhysicsRewardFunc`)."""
    return _DEFAULT(completions, **kwargs)


def _column(kwargs: Mapping[str, Any], name: Optional[str], count: int) -> list:
    names = [name] if name else list(REFERENCE_COLUMNS)
    for candidate in names:
        if candidate in kwargs and kwargs[candidate] is not None:
            values = list(kwargs[candidate])
            if len(values) != count:
                raise ValueError(f'column {candidate!r} has {len(values)} values for {count} completions')
            return values
    present = sorted(k for k in kwargs if k not in _TRAINER_KEYWORDS)
    raise KeyError(f'no reference column {" or ".join(repr(n) for n in names)} in the dataset '
                   f'(columns passed: {", ".join(present) or "none"}); name it with '
                   f'make_physics_reward_func(reference_column=...)')


def _optional_column(kwargs: Mapping[str, Any], name: Optional[str], count: int, kind: type) -> Optional[list]:
    if not name or kwargs.get(name) is None:
        return None
    values = list(kwargs[name])
    if len(values) != count:
        raise ValueError(f'column {name!r} has {len(values)} values for {count} completions')
    return [_cast(v, kind) for v in values]


def _cast(value: Any, kind: type) -> Any:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        return kind(value)
    except (TypeError, ValueError):
        return None


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [p.get('text', '') for p in content if isinstance(p, Mapping) and p.get('type', 'text') == 'text']
        return '\n'.join(p for p in parts if isinstance(p, str))
    return '' if content is None else str(content)
