"""PHYBench: 500 original physics problems whose answers are single symbolic expressions."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Tuple

from evalscope.api.benchmark import BenchmarkMeta, DefaultDataAdapter
from evalscope.api.dataset import Sample
from evalscope.api.evaluator import TaskState
from evalscope.api.metric import Score
from evalscope.api.registry import register_benchmark
from evalscope.constants import Tags

from evalscope_phys.benchmarks.base import Excluded, Kept, Placement, RecordLoader, find_data_file, locate_dataset
from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.metrics import EED, LENIENT, LENIENT_ALL, SCORED, STRICT, STRICT_ALL, verdict_score

#: release files, most useful first: ``fullques`` holds the 100 problems with public answers
DATA_FILES = ('PHYBench-fullques_v1.json', 'PHYBench-questions_v1.json')
#: the record ``tag`` (physics domain) -> subset name
TAG_TO_SUBSET = {
    'MECHANICS': 'mechanics',
    'ELECTRICITY': 'electricity',
    'THERMODYNAMICS': 'thermodynamics',
    'OPTICS': 'optics',
    'MODERN': 'modern',
    'ADVANCED': 'advanced',
}
SUBSET_LIST = list(TAG_TO_SUBSET.values())

PROMPT_TEMPLATE = (
    'Solve the following physics problem. Reason step by step, then give the final answer as a single '
    'symbolic LaTeX expression in the variables of the problem, inside one \\boxed{{}} at the end of your '
    'reply (for example \\boxed{{\\frac{{m g}}{{k}}}}). Do not put units or an equation in the box.\n\n'
    '{question}'
)

DESCRIPTION = """
## Overview

PHYBench (Eureka-Lab, 2025) has 500 original physics problems, from high-school exercises to
olympiad level, each with a single symbolic expression as its answer. The 100 problems with public
answers are scored here.

## Task Description

- **Input**: a problem statement in text
- **Output**: a derivation ending in one `\\boxed{}` LaTeX expression
- **Subsets**: the record `tag` domains: mechanics, electricity, thermodynamics, optics, modern, advanced

## Evaluation Notes

- Primary metric `eed`: the Expression Edit Distance score (0-100) computed by evalscope-phys's own
  engine (equivalent forms score 100, `\\left(` and friends handled, runs safely in worker threads).
- `strict_acc`: symbolically equivalent (or equal within relative 1e-6); `lenient_acc`: equal within
  relative 1e-2. `scored`: the share of answers the engine could score (a timeout is never a 0).
- Problems without a reference answer (the 400 `onlyques` rows) are excluded, with a logged count.
- Data: `dataset_args.phybench.local_path` may name `PHYBench-fullques_v1.json`,
  `PHYBench-questions_v1.json` or a folder holding one of them; otherwise the hub copy is used.
"""


@register_benchmark(
    BenchmarkMeta(
        name='phybench',
        pretty_name='PHYBench',
        dataset_id='Eureka-Lab/PHYBench',
        hf_dataset_id='Eureka-Lab/PHYBench',
        tags=[Tags.REASONING, Tags.MATH],
        description=DESCRIPTION,
        paper_url='https://arxiv.org/abs/2504.16074',
        subset_list=SUBSET_LIST,
        metric_list=[EED, STRICT, LENIENT, SCORED, STRICT_ALL, LENIENT_ALL],
        primary_metric=EED,
        eval_split='test',
        prompt_template=PROMPT_TEMPLATE,
    )
)
class PHYBenchAdapter(RecordLoader, DefaultDataAdapter):
    """Reads the release JSON and scores every answer through the evalscope-phys engine."""

    def dataset_files(self) -> Tuple[List[Path], Path]:
        path = find_data_file(locate_dataset(self, allow_file_pattern=[f'*{name}' for name in DATA_FILES]),
                              DATA_FILES, 'PHYBench')
        return [path], path

    def sort_record(self, record: Any, path: Path, row: int) -> Placement:
        if not isinstance(record, dict):
            return Excluded('not a JSON object', '?')
        rid = str(record.get('id', '?'))
        subset = TAG_TO_SUBSET.get(str(record.get('tag', '')).upper())
        if subset is None:
            return Excluded('unknown tag', rid)
        if not str(record.get('content') or '').strip():
            return Excluded('no problem text', rid)
        if not str(record.get('answer') or '').strip():
            return Excluded('no reference answer', rid)
        return Kept(subset, record)

    def record_to_sample(self, record: Dict[str, Any]) -> Sample:
        return Sample(
            input=record['content'],
            target=record['answer'],
            # the worked solution rides along for `evalscope-phys error-analysis` (never shown to the model)
            metadata={'id': str(record['id']), 'tag': record['tag'], 'solution': str(record.get('solution') or '')},
        )

    def format_prompt_template(self, sample: Sample) -> str:
        return self.prompt_template.format(question=sample.input)

    def match_score(
        self, original_prediction: str, filtered_prediction: str, reference: str, task_state: TaskState
    ) -> Score:
        verdict = score_answer(reference, original_prediction)
        return verdict_score(verdict, original_prediction, metrics=(EED, STRICT, LENIENT), main=EED)
