"""Which configuration values are credentials, and a copy of a config with them masked.

Why: configs are written to disk (``suite.json``, EvalScope's ``configs/task_config.yaml``) and logged,
and a key that reaches a file or a terminal has leaked. Keys come as ``api_key`` fields and as HTTP
headers (``Authorization``, Azure's ``api-key``, ``X-Goog-Api-Key``, ``X-Auth-Token`` ...), so a header
is a credential by the shape of its name, not by a fixed list.
"""
from __future__ import annotations

import re
from typing import Any

MASK = '***'
#: header names that carry credentials: any ``authorization``, ``api-key``/``api_key``/``apikey``,
#: ``token``, ``secret``, ``password`` or ``cookie`` inside the name, case-insensitive
SECRET_HEADER_RE = re.compile(r'authorization|api[-_]?key|token|secret|password|cookie', re.IGNORECASE)
#: config keys whose value is a credential wherever they appear
SECRET_KEYS = frozenset({'api_key', 'judge_api_key'})


def is_secret_header(name: Any) -> bool:
    """True for a header name that looks like a credential (``Authorization``, ``api-key``, ``x-token``)."""
    return bool(SECRET_HEADER_RE.search(str(name)))


def is_header_map(key: Any) -> bool:
    """True for a config key that holds HTTP headers (``extra_headers``, ``default_headers``)."""
    return str(key).lower().replace('-', '_').endswith('headers')


def redact(config: Any, in_headers: bool = False) -> Any:
    """A copy of ``config`` with ``api_key`` values and credential-looking headers masked.

    Header names are judged only inside a mapping named ``*headers`` (``extra_headers``,
    ``default_headers``, see :func:`is_header_map`), so ordinary keys such as ``max_tokens`` stay readable.
    """
    if isinstance(config, dict):
        out = {}
        for key, value in config.items():
            secret = key in SECRET_KEYS or (in_headers and is_secret_header(key))
            if secret and value not in (None, '') and not isinstance(value, (dict, list)):
                out[key] = MASK
            else:
                out[key] = redact(value, in_headers=is_header_map(key))
        return out
    if isinstance(config, list):
        return [redact(value, in_headers) for value in config]
    return config
