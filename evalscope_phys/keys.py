"""Which keys a user's settings may carry: unknown keys are refused with the closest known one, and
credential-looking keys or values never come from a file (a header name is a credential by
:func:`evalscope_phys.redact.is_secret_header`, the rule that masks it in outputs).

Why: EvalScope drops a ``dataset_args`` key it does not know (``localpath`` silently falls back to
the hub) and a suite's ``generation.max_token`` would reach the task config untouched; a header such
as ``Authorization: Bearer sk-...`` in a committed YAML is a leaked key. One home for both rules, used
by the suite loader and by every adapter of ours at load time (``evalscope eval`` included).
"""
from __future__ import annotations

import dataclasses
import difflib
import re
from typing import Any, Iterable, Mapping, Optional

from evalscope_phys.redact import is_header_map, is_secret_header

#: a value that is a credential whatever its key: a bearer/basic scheme, or an OpenAI-style key
CREDENTIAL_VALUE = re.compile(r'^\s*(bearer|basic|token)\s+\S{8,}|\bsk-[A-Za-z0-9_-]{8,}', re.IGNORECASE)
#: dataset_args keys EvalScope handles itself beside BenchmarkMeta's fields
DATASET_ARGS_EXTRA = frozenset({'local_path'})
#: our own per-benchmark key (rules-first adapters): ``dataset_args.<name>.judge.scope``
OUR_DATASET_ARGS = frozenset({'judge'})


def unknown_keys(keys: Iterable[str], known: Iterable[str], where: str) -> Optional[str]:
    """The refusal for keys outside ``known`` (with the closest match for each), or None when all are known."""
    known = sorted(set(known))
    bad = sorted(str(k) for k in keys if k not in known)
    if not bad:
        return None
    hints = []
    for key in bad:
        close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
        hints.append(f'{key!r} (did you mean {close[0]}?)' if close else repr(key))
    return f'unknown key(s) in {where}: {", ".join(hints)}; known keys: {", ".join(known)}'


def dataset_args_keys() -> frozenset:
    """Keys ``dataset_args.<name>`` may carry: EvalScope's BenchmarkMeta fields, ``local_path``, and ours."""
    from evalscope.api.benchmark import BenchmarkMeta
    return frozenset(f.name for f in dataclasses.fields(BenchmarkMeta)) | DATASET_ARGS_EXTRA | OUR_DATASET_ARGS


def check_dataset_args(name: str, args: Mapping[str, Any]) -> Optional[str]:
    """The refusal for ``dataset_args.<name>`` keys no benchmark reads, or None."""
    return unknown_keys(args, dataset_args_keys(), f'dataset_args.{name}')


def credential_in(data: Any, where: str = '', in_headers: bool = False) -> Optional[str]:
    """Where in ``data`` a credential-looking header name or value is (``generation.extra_headers.Authorization``)."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            path = f'{where}{key}'
            if in_headers and is_secret_header(key):
                return path
            found = credential_in(value, path + '.', in_headers or is_header_map(key))
            if found:
                return found
    elif isinstance(data, (list, tuple)):
        for i, value in enumerate(data):
            found = credential_in(value, f'{where}{i}.', in_headers)
            if found:
                return found
    elif isinstance(data, str) and CREDENTIAL_VALUE.search(data):
        return where.rstrip('.') or '(value)'
    return None
