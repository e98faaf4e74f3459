"""OpenAI-compatible chat calls shared by every LLM judge we run ourselves (audit stage 3, error analysis).

One client with retries and backoff, one append-only reply cache, and one reader of JSON objects
embedded in a reply, so each judge only adds its prompt and its contract.
"""
from .cache import JsonlCache, call_key
from .client import ChatClient, ChatError, Message, conversation
from .endpoint import JudgeEndpoint
from .gate import JudgeCallsFailed
from .replies import json_objects

__all__ = ['ChatClient', 'ChatError', 'JsonlCache', 'JudgeCallsFailed', 'JudgeEndpoint', 'Message', 'call_key', 'conversation',
           'json_objects']
