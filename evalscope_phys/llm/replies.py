"""Reading structured answers out of a judge's reply text, without guessing from prose."""
from __future__ import annotations

import json
from typing import List

# strict=False: a raw line break inside a string (common in judge replies) is kept, not a reason to refuse
_DECODER = json.JSONDecoder(strict=False)


def json_objects(text: str) -> List[dict]:
    """Every JSON object embedded in ``text`` (decoded from each ``{``; code fences and LaTeX braces are fine)."""
    out, pos = [], (text or '').find('{')
    while pos != -1:
        try:
            obj, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError:
            pos = text.find('{', pos + 1)
            continue
        if isinstance(obj, dict):
            out.append(obj)
        pos = text.find('{', end)
    return out
