"""Small EvalScope run dirs written by hand, in the layout and review shape EvalScope 1.14.1 writes.

The shape is the one seen in a real run (``messages``, ``target``, ``sample_score.score.value``,
``score.metadata.verdict``, ``sample_metadata``); the end-to-end test reads a real run as well.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import yaml


def review(index: int, problem: str, prediction: str, values: Dict[str, float], metadata: Dict[str, Any],
           target: str = 'x', reason: str = 'not_equivalent', extracted: Optional[str] = None,
           generation: int = 0) -> Dict[str, Any]:
    return {
        'index': index,
        'target': [target],
        'messages': [{'role': 'user', 'content': [{'type': 'text', 'text': problem},
                                                  {'type': 'image', 'image': 'data:image/png;base64,AAAA'}]},
                     {'role': 'assistant', 'content': prediction}],
        'sample_score': {
            'score': {'value': values, 'status': 'success', 'prediction': prediction,
                      'extracted_prediction': extracted, 'explanation': reason,
                      'metadata': {'verdict': {'reason': reason, 'extracted': extracted}}},
            'sample_id': index, 'group_id': index, 'generation_index': generation, 'sample_metadata': metadata,
        },
    }


def write_run(root: Path, files: Dict[str, Sequence[Dict[str, Any]]], datasets: List[str],
              model: str = 'model-a') -> Path:
    """``files``: review file stem (``<dataset>_<subset>``) -> review dicts."""
    (root / 'configs').mkdir(parents=True, exist_ok=True)
    (root / 'configs' / 'task_config.yaml').write_text(yaml.safe_dump({'datasets': datasets}), encoding='utf-8')
    folder = root / 'reviews' / model
    folder.mkdir(parents=True, exist_ok=True)
    for stem, rows in files.items():
        with (folder / f'{stem}.jsonl').open('a', encoding='utf-8') as handle:
            handle.writelines(json.dumps(r, ensure_ascii=False) + '\n' for r in rows)
    return root
