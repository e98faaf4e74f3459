"""Which configuration values are credentials, and a copy of a config with them masked.

Why: configs are written to disk (``suite.json``, EvalScope's ``configs/task_config.yaml``) and logged,
and a key that reaches a file or a terminal has leaked. Keys come as ``api_key`` fields, as HTTP headers
(``Authorization``, Azure's ``api-key``, ``Ocp-Apim-Subscription-Key``, ``X-Portkey-Virtual-Key`` ...),
inside a URL's userinfo (``https://user:pass@host``) and as query parameters (``?key=...``). So a
credential is recognised by a rule on its name, never by a list of known names: any name containing
``key``, ``auth``, ``token``, ``secret``, ``password``, ``cookie`` or ``session`` (also ``pass``/``pwd``/
``sig`` for query parameters), case-insensitive.
"""
from __future__ import annotations

import re
from typing import Any

MASK = '***'
#: header (and query parameter) names that carry credentials, case-insensitive, anywhere in the name
SECRET_HEADER_RE = re.compile(r'key|auth|token|secret|passw|cookie|session', re.IGNORECASE)
#: further query parameter names that carry credentials (``pwd=``, ``sig=`` of a signed URL)
SECRET_PARAM_RE = re.compile(r'key|auth|token|secret|pass|pwd|cookie|session|sig|credential', re.IGNORECASE)
#: config keys whose value is a credential wherever they appear
SECRET_KEYS = frozenset({'api_key', 'judge_api_key'})
#: ``scheme://userinfo@`` in a URL anywhere in a string (userinfo has no ``/``, ``@`` or space)
_USERINFO_RE = re.compile(r'(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<userinfo>[^/@\s?#]+)@')
#: ``name=value`` in a URL query or fragment
_PARAM_RE = re.compile(r'(?P<lead>[?&;#])(?P<name>[^=&;#\s]+)=(?P<value>[^&;#\s]*)')


def is_secret_header(name: Any) -> bool:
    """True for a header name that looks like a credential (``Authorization``, ``api-key``, ``X-Custom-Auth``)."""
    return bool(SECRET_HEADER_RE.search(str(name)))


def is_header_map(key: Any) -> bool:
    """True for a config key that holds HTTP headers (``extra_headers``, ``default_headers``)."""
    return str(key).lower().replace('-', '_').endswith('headers')


def mask_text(text: str) -> str:
    """``text`` with URL userinfo and credential-named query parameters masked (everything else kept)."""
    if '://' not in text and '=' not in text:
        return text
    text = _USERINFO_RE.sub(lambda m: m.group('scheme') + MASK + '@', text)

    def param(m: 're.Match[str]') -> str:
        if m.group('value') and SECRET_PARAM_RE.search(m.group('name')):
            return f'{m.group("lead")}{m.group("name")}={MASK}'
        return m.group(0)

    return _PARAM_RE.sub(param, text) if '?' in text or '#' in text else text


def mask_urls(value: Any) -> Any:
    """A copy of ``value`` with :func:`mask_text` applied to every string in it (keys kept as they are)."""
    if isinstance(value, dict):
        return {key: mask_urls(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [mask_urls(item) for item in value]
    return mask_text(value) if isinstance(value, str) else value


def redact(config: Any, in_headers: bool = False) -> Any:
    """A copy of ``config`` with ``api_key`` values, credential headers and credentials in URLs masked.

    Header names are judged only inside a mapping named ``*headers`` (``extra_headers``,
    ``default_headers``, see :func:`is_header_map`), so ordinary keys such as ``max_tokens`` stay
    readable; every string is passed through :func:`mask_text`.
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
    if isinstance(config, (list, tuple)):
        return [redact(value, in_headers) for value in config]
    if isinstance(config, str):
        return mask_text(config)
    return config
