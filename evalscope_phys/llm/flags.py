"""The judge-endpoint flags, declared once for every command that calls a judge (from :class:`JudgeEndpoint`).

Why: ``audit``, ``error-analysis``, ``judge-selftest`` and ``suite run`` had three vocabularies
(``--judge-url`` vs ``--judge-api-url``, ``--concurrency`` vs ``--judge-concurrency``). The
spellings below are the only documented ones; the old ones keep working for one release and print a
one-line notice naming the new spelling.
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Type, TypeVar

from .endpoint import JudgeEndpoint

E = TypeVar('E', bound=JudgeEndpoint)

ENV_JUDGE_MODEL = 'EVALSCOPE_PHYS_JUDGE_MODEL'
ENV_JUDGE_API_URL = 'EVALSCOPE_PHYS_JUDGE_API_URL'
ENV_JUDGE_API_KEY = 'EVALSCOPE_PHYS_JUDGE_API_KEY'

#: old spelling -> the flag it is an alias of (kept for one release)
OLD_SPELLINGS: Dict[str, str] = {
    '--judge-url': '--judge-api-url', '--concurrency': '--judge-concurrency', '--retries': '--judge-retries',
    '--backoff': '--judge-backoff', '--timeout': '--judge-timeout', '--max-tokens': '--judge-max-tokens',
    '--prompt': '--judge-prompt', '--workers': '--judge-concurrency',
}
#: the flags a command can ask for (``--judge-model``, ``--judge-api-url`` and the key are always declared)
OPTIONAL = ('concurrency', 'retries', 'backoff', 'timeout', 'max_tokens', 'prompt')


class _Notice(argparse.Action):
    """Store the value; an old spelling also prints a one-line notice on stderr."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        new = OLD_SPELLINGS.get(option_string or '')
        if new:
            print(f'{parser.prog}: {option_string} is now {new} (the old spelling works for one more release)',
                  file=sys.stderr)
        setattr(namespace, self.dest, values)


def _names(new: str, old: Sequence[str]) -> list:
    return [new] + [o for o, n in OLD_SPELLINGS.items() if n == new and o in old]


def add_judge_arguments(parser: argparse.ArgumentParser, defaults: JudgeEndpoint, *, optional: Sequence[str] = OPTIONAL,
                        old: Sequence[str] = (), key_env: str = ENV_JUDGE_API_KEY, env_fallback: bool = False,
                        required: bool = False, title: str = 'judge endpoint') -> None:
    """Declare the judge flags on ``parser``; ``old`` lists the old spellings this command accepted."""
    env = f' (or {{}})' if env_fallback else ''
    g = parser.add_argument_group(title)
    g.add_argument('--judge-model', required=required, help='judge model name' + env.format(ENV_JUDGE_MODEL))
    g.add_argument(*_names('--judge-api-url', old), dest='judge_api_url', action=_Notice, metavar='URL',
                   required=required, help='OpenAI-compatible base URL (…/v1)' + env.format(ENV_JUDGE_API_URL))
    g.add_argument('--judge-api-key-env', default=key_env, metavar='VAR',
                   help=f'environment variable holding the judge key (default {key_env})')
    if env_fallback:
        g.add_argument('--judge-api-key', help=f'judge key by value (prefer {key_env}: a command line is visible '
                       'to other users of the machine)')
    spec = {'concurrency': (int, defaults.concurrency, 'judge calls in flight'),
            'retries': (int, defaults.max_retries, 'retries of a failed call on 429/5xx/timeouts'),
            'backoff': (float, defaults.backoff, 'first retry delay in s, doubling'),
            'timeout': (float, defaults.timeout, 'seconds per call'),
            'max_tokens': (int, defaults.max_tokens, 'judge reply budget'),
            'prompt': (Path, defaults.prompt_path, 'prompt file')}
    for name in optional:
        kind, default, text = spec[name]
        flag = '--judge-' + name.replace('_', '-')
        shown = f'the bundled {default.name}' if isinstance(default, Path) else default
        g.add_argument(*_names(flag, old), dest='judge_' + name, action=_Notice, type=kind, default=default,
                       help=f'{text} (default {shown})')
    g.add_argument('--max-judge-failures', type=float, default=defaults.max_failures, metavar='N',
                   help='failed judge calls tolerated before the command exits non-zero: a count, or a share '
                        'when below 1 (default 0: any failed call fails the command)')


def judge_values(args: argparse.Namespace, env_fallback: bool = False) -> Dict[str, Optional[str]]:
    """model, base_url and api_key from the flags (and the environment when the command reads it)."""
    model, url = args.judge_model, args.judge_api_url
    key = getattr(args, 'judge_api_key', None) or os.environ.get(args.judge_api_key_env) or None
    if env_fallback:
        model = model or os.environ.get(ENV_JUDGE_MODEL)
        url = url or os.environ.get(ENV_JUDGE_API_URL)
    return {'model': model, 'base_url': url, 'api_key': key}


def endpoint_from_args(args: argparse.Namespace, cls: Type[E] = JudgeEndpoint, env_fallback: bool = False,
                       **overrides: Any) -> E:
    """The endpoint the flags describe, as ``cls`` (flags a command did not declare keep ``cls``'s defaults)."""
    values: Dict[str, Any] = judge_values(args, env_fallback)
    names = {f.name for f in fields(cls)}
    for flag, field_name in (('judge_concurrency', 'concurrency'), ('judge_retries', 'max_retries'),
                             ('judge_backoff', 'backoff'), ('judge_timeout', 'timeout'),
                             ('judge_max_tokens', 'max_tokens'), ('judge_prompt', 'prompt_path'),
                             ('max_judge_failures', 'max_failures')):
        if hasattr(args, flag) and field_name in names:
            values[field_name] = getattr(args, flag)
    values.update(overrides)
    return cls(**values)
