"""OpenAI-compatible chat calls shared by every LLM judge we run ourselves (audit stage 3, error analysis).

One client with retries and backoff, one append-only reply cache, and one reader of JSON objects
embedded in a reply, so each judge only adds its prompt and its contract.

The names below are loaded on first use: the scorer's routing needs only :mod:`.untrusted`, and
importing the HTTP client with it sat on ``evalscope-phys score``'s start-up path.
"""
from importlib import import_module
from typing import Any

_HOMES = {'JsonlCache': 'cache', 'call_key': 'cache', 'ChatClient': 'client', 'ChatError': 'client',
          'Message': 'client', 'conversation': 'client', 'JudgeEndpoint': 'endpoint',
          'JudgeCallsFailed': 'gate', 'json_objects': 'replies'}

__all__ = ['ChatClient', 'ChatError', 'JsonlCache', 'JudgeCallsFailed', 'JudgeEndpoint', 'Message', 'call_key', 'conversation',
           'json_objects']


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    value = getattr(import_module(f'{__name__}.{home}'), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
