"""Synthetic EvalScope run directories with known numbers, shaped like 1.14.1's output."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence, Tuple

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / 'scripts' / 'report_schema.json').read_text())
PRIMARY = {name: spec['primary'] for name, spec in SCHEMA['benchmarks'].items()}


def report(dataset: str, metrics: Mapping[str, Tuple[float, int]], model: str = 'm', requested: int = 10,
           errored: int = 0, incomplete: bool = False, judge: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """A schema-v2 report dict; ``metrics`` maps name -> (score, num)."""
    primary = PRIMARY.get(dataset, 'strict_acc')
    return {
        'schema_version': 2, 'name': f'{model}@{dataset}', 'dataset_name': dataset, 'model_name': model,
        'metrics': [{'identity': {'name': name, 'aggregation': 'mean', 'dimensions': {}}, 'num': num, 'score': score,
                     'macro_score': score, 'categories': []} for name, (score, num) in metrics.items()],
        'primary_metric_identity': {'name': primary, 'aggregation': 'mean', 'dimensions': {}},
        'judge_summary': judge,
        'execution_summary': {'requested': requested, 'succeeded': requested - errored, 'errored': errored,
                              'incomplete': incomplete, 'subsets': {}},
    }


def write_report(run: Path, payload: Dict[str, Any]) -> Path:
    """Write ``run/reports/<model>/<dataset>.json``."""
    path = run / 'reports' / payload['model_name'] / f"{payload['dataset_name']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload), encoding='utf-8')
    return path


def review_line(index: int, values: Mapping[str, float], prediction: str = '', group: Optional[int] = None,
                generation: int = 0, metadata: Optional[Dict[str, Any]] = None) -> str:
    """One reviews JSONL line with the fields our readers use."""
    return json.dumps({'index': index, 'target': [], 'messages': [], 'sample_score': {
        'score': {'value': dict(values), 'status': 'success', 'extracted_prediction': prediction,
                  'prediction': prediction, 'metadata': {}},
        'sample_id': index, 'group_id': index if group is None else group, 'generation_index': generation,
        'sample_metadata': metadata or {}}})


def write_reviews(run: Path, dataset: str, subset: str, lines: Iterable[str], model: str = 'm',
                  datasets: Sequence[str] = ()) -> Path:
    """Write a reviews file and the task config that names the run's datasets."""
    path = run / 'reviews' / model / f'{dataset}_{subset}.jsonl'
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('\n'.join(lines) + '\n', encoding='utf-8')
    config = run / 'configs' / 'task_config.yaml'
    config.parent.mkdir(parents=True, exist_ok=True)
    names = list(datasets) or [dataset]
    config.write_text('datasets:\n' + ''.join(f'- {n}\n' for n in names), encoding='utf-8')
    return path
