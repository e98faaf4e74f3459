"""Every judge prompt names its case, and a judge reply must name it back; one that does not is a failed call.

Why: a judge that answers the previous question (a mixed-up batch, a stale cache or proxy, a reply
routed to the wrong request) gives a well-formed verdict for another case. Without an echo it passed
unnoticed (phyx_oe_rules 0.750 -> 0.875, ``failures: {}``). So every judge path we own (the adapters'
equivalence judge, the OmniPhys process rubric, error analysis, audit stage 3, and ``judge-selftest``
through the adapters' path) writes ``Case id: <id>`` into its prompt and asks for a ``"case"`` key
in the reply; a reply without it, or with another id, is a failed call (counted, the sample
unscored), never a verdict.

The id is a digest of what the case is about (the problem, the reference, the judged text), not a
random nonce: the same case asked twice (repeats, a panel, a resumed run, a recorded replay) has the
same id, so caches and replays stay valid, while a reply for any other case names another id.
What is not guaranteed: a judge that copies the id of the case in front of it but gives the
verdict of another one is not caught.
"""
from __future__ import annotations

import hashlib
import re
from typing import Any, Optional

#: how a prompt states its case (the line a judge copies from, and a stand-in judge echoes)
CASE_LINE = 'Case id: '
#: the JSON key a reply names its case under
CASE_KEY = 'case'
_STATED = re.compile(re.escape(CASE_LINE) + r'(c[0-9a-f]{10})\b')


def case_id(*parts: Optional[str]) -> str:
    """A short id of one judge case, from the texts that make it (``c`` + 10 hex digits)."""
    digest = hashlib.sha256('\x00'.join(part or '' for part in parts).encode('utf-8', 'replace'))
    return 'c' + digest.hexdigest()[:10]


def stated_case(prompt: str) -> Optional[str]:
    """The case id a prompt states (its first ``Case id:`` line), or None."""
    found = _STATED.search(prompt or '')
    return found.group(1) if found else None


def case_problem(stated: Any, expected: str) -> Optional[str]:
    """Why a reply naming ``stated`` is not a reply for case ``expected`` (None when it is)."""
    text = stated.strip() if isinstance(stated, str) else ''
    if not text:
        return f'reply names no case (asked {expected!r}: a reply must copy the case id)'
    if text != expected:
        return f'reply is for another case ({text[:40]!r}, asked {expected!r})'
    return None
