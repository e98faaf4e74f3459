"""Where a judge we call ourselves is and how hard to try: one settings type for every such judge."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from .client import ChatClient


@dataclass(frozen=True)
class JudgeEndpoint:
    """An OpenAI-compatible judge endpoint with its retry policy; each judge sets its own prompt."""

    base_url: str
    """OpenAI-compatible base URL, e.g. ``http://127.0.0.1:8000/v1``."""
    model: str
    api_key: Optional[str] = None
    concurrency: int = 4
    """Calls in flight at once."""
    max_retries: int = 4
    """Retries after the first attempt on 429/5xx, timeouts and connection errors (not of invalid replies)."""
    backoff: float = 1.0
    """Seconds before the first retry; doubles each retry (with jitter), capped at 60 s."""
    timeout: float = 120.0
    max_tokens: int = 1024
    max_failures: float = 0.0
    """Failed calls tolerated before the command fails (:mod:`evalscope_phys.llm.gate`): a count, or a share < 1."""
    prompt_path: Optional[Path] = None
    """The judge's prompt file; each judge's subclass names its own."""

    def client(self) -> 'ChatClient':
        """A chat client for this endpoint with its retry policy and reply budget."""
        from .client import ChatClient

        return ChatClient(self.base_url, self.model, self.api_key, max_retries=self.max_retries,
                          backoff=self.backoff, timeout=self.timeout, max_tokens=self.max_tokens)
