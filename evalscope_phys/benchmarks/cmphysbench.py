"""CMPhysBench: graduate condensed-matter problems, scored with SEED (0-100) and the engine's verdicts."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from evalscope.api.benchmark import BenchmarkMeta, DefaultDataAdapter
from evalscope.api.dataset import Sample
from evalscope.api.evaluator import TaskState
from evalscope.api.metric import Score
from evalscope.api.registry import register_benchmark
from evalscope.constants import Tags

from evalscope_phys.benchmarks.base import Excluded, Kept, Placement, RecordLoader, find_data_file, locate_dataset
from evalscope_phys.judge.rules_first import RulesFirstJudgeMixin
from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.metrics import EED, LENIENT, LENIENT_ALL, SCORED, SEED, STRICT, STRICT_ALL, verdict_score
from evalscope_phys.scoring.cmphysbench_seed import (DEFAULT_BANDS, ENGINE_TYPE_CODES, NUMERIC_BANDS, SEED_TYPES,
                                                     seed_score, seed_type)

#: the six topics of the paper, as report subsets
SUBSET_LIST = ['magnetism', 'superconductivity', 'strongly_correlated_systems', 'semiconductors',
               'theoretical_foundations', 'others']
#: a word of the record's ``topic`` -> subset
TOPIC_WORDS = (('magnet', 'magnetism'), ('superconduct', 'superconductivity'), ('correlat', 'strongly_correlated_systems'),
               ('semiconduct', 'semiconductors'), ('theor', 'theoretical_foundations'), ('other', 'others'))
DATA_FILES = ('CMPhysBench*.json', 'CMPhysBench*.jsonl', '*.json', '*.jsonl')

PROMPT_TEMPLATE = (
    'Solve the following condensed matter physics problem step by step, writing the result only in the '
    'symbols the problem defines (introduce no new ones). Give the final answer as one LaTeX formula '
    'inside \\boxed{{}} at the end.\n\n{question}'
)

DESCRIPTION = """
## Overview

CMPhysBench (Wang et al., 2025, arXiv 2508.18124) has 520 graduate-level calculation problems in
condensed matter physics, from 17 textbooks: magnetism, superconductivity, strongly correlated
systems, semiconductors, theoretical foundations and others. Each answer is typed: `Expression`,
`Equation`, `Tuple`, `Interval` or `Numeric`.

## Task Description

- **Input**: the problem's `context` and `question`, and its list of symbols (`symbol`)
- **Output**: a derivation ending in one `\\boxed{}` LaTeX formula
- **Subsets**: the six topics (the record `topic`)

## Evaluation Notes

- `seed` (primary, 0-100): CMPhysBench's SEED, computed by evalscope-phys's engine
  (`evalscope_phys/scoring/cmphysbench_seed.py`): expressions and equations 100 when equivalent, else their
  expression edit distance; tuples entry by entry; intervals with brackets as tree nodes; numbers
  converted to the reference unit (pint) and credited 100/90/80 within relative 0.5%/1%/2%
  (`extra_params.seed_bands: paper`, the default; `release` uses the 1%/2%/4% of the scorer since
  October 2025), 0 for the opposite sign.
- `strict_acc` / `lenient_acc`: the engine's verdicts (equal, or within relative 1e-2); `eed` the
  PHYBench EED; `scored` the share the engine could score (a timeout is never a 0). With `--judge`,
  answers the rules cannot decide go to the judge for `strict_acc`/`lenient_acc`; `seed` stays the rules'.
- The official evaluation scores the first `final_answer` against the first `\\boxed{}`; the engine
  reads the last box (the final one). Rows with no answer, an unknown answer type or topic are
  excluded with a logged count.
- Data: `dataset_args.cmphysbench.local_path` may be the hub's `CMPhysBench.json`, a JSONL file of
  the same records (`id`, `context`, `question`, `symbol`, `final_answer`, `topic`, `answer_type`) or a
  folder holding one; otherwise `weidawang/CMPhysBench` is downloaded.
"""


def topic_subset(topic: object) -> Optional[str]:
    """``'Strongly Correlated Systems'`` -> ``'strongly_correlated_systems'``; None for an unknown topic."""
    slug = re.sub(r'[^a-z0-9]+', '_', str(topic or '').lower()).strip('_')
    if slug in SUBSET_LIST:
        return slug
    return next((subset for word, subset in TOPIC_WORDS if word in slug), None)


def normalise_record(record: Any) -> Dict[str, Any]:
    """One problem in one shape (``broken`` says why a row cannot be one)."""
    if not isinstance(record, dict):
        return {'id': '?', 'broken': 'not a JSON object'}
    answers = record.get('final_answer')
    answers = [answers] if isinstance(answers, str) else answers if isinstance(answers, list) else []
    return {
        'id': str(record.get('id', '?')),
        'context': str(record.get('context') or '').strip(),
        'question': str(record.get('question') or '').strip(),
        'symbol': str(record.get('symbol') or '').strip(),
        'answer': str(answers[0]).strip() if answers and answers[0] is not None else '',
        'answer_type': seed_type(record.get('answer_type')),
        'raw_type': str(record.get('answer_type') or ''),
        'topic': str(record.get('topic') or ''),
        'subset': topic_subset(record.get('topic')),
    }


@register_benchmark(
    BenchmarkMeta(
        name='cmphysbench',
        pretty_name='CMPhysBench',
        dataset_id='weidawang/CMPhysBench',
        hf_dataset_id='weidawang/CMPhysBench',
        tags=[Tags.REASONING, Tags.MATH],
        description=DESCRIPTION,
        paper_url='https://arxiv.org/abs/2508.18124',
        subset_list=SUBSET_LIST,
        metric_list=[SEED, STRICT, LENIENT, EED, SCORED, STRICT_ALL, LENIENT_ALL],
        primary_metric=SEED,
        eval_split='train',
        prompt_template=PROMPT_TEMPLATE,
        extra_params={'seed_bands': {'type': 'str', 'value': DEFAULT_BANDS, 'choices': sorted(NUMERIC_BANDS),
                                     'description': 'Numeric credit bands of SEED: paper (0.5%/1%/2%, default) or '
                                                    'release (1%/2%/4%, the official scorer since 2025-10).'}},
    )
)
class CMPhysBenchAdapter(RecordLoader, RulesFirstJudgeMixin, DefaultDataAdapter):
    """Reads the released records; SEED and the engine's verdicts for each answer."""

    def dataset_files(self) -> Tuple[List[Path], Path]:
        path = find_data_file(locate_dataset(self, allow_file_pattern=['*.json', '*.jsonl']), DATA_FILES, 'CMPhysBench')
        return [path], path

    def sort_record(self, record: Any, path: Path, row: int) -> Placement:
        problem = normalise_record(record)
        reason = self._exclusion(problem)
        return Excluded(reason, problem['id']) if reason else Kept(problem['subset'], problem)

    def _exclusion(self, problem: Dict[str, Any]) -> Optional[str]:
        if problem.get('broken'):
            return problem['broken']
        if not (problem['question'] or problem['context']):
            return 'no question text'
        if not problem['answer']:
            return 'no final_answer'
        if problem['answer_type'] is None:
            return f'answer_type not one of {list(SEED_TYPES)}'
        if problem['subset'] is None:
            return 'unknown topic'
        if problem['subset'] not in self.subset_list:
            return 'topic not in subset_list'
        return None

    def record_to_sample(self, record: Dict[str, Any]) -> Sample:
        text = '\n\n'.join(p for p in (record['context'], record['question']) if p)
        if record['symbol']:
            text += f'\n\nSymbols: {record["symbol"]}'
        return Sample(input=text, target=record['answer'],
                      metadata={'id': record['id'], 'topic': record['topic'], 'answer_type': record['answer_type']})

    def format_prompt_template(self, sample: Sample) -> str:
        return self.prompt_template.format(question=sample.input)

    def match_score(
        self, original_prediction: str, filtered_prediction: str, reference: str, task_state: TaskState
    ) -> Score:
        kind = task_state.metadata['answer_type']
        verdict = score_answer(reference, original_prediction, answer_type=ENGINE_TYPE_CODES[kind])
        score = verdict_score(verdict, original_prediction, metrics=(EED, STRICT, LENIENT), main=SEED)
        seed = seed_score(reference, original_prediction, kind, bands=self._bands())
        if seed.scored:
            score.value[SEED] = seed.score
        score.metadata['seed'] = seed.to_dict()
        score.explanation = f'{verdict.reason}; seed {seed.score} ({seed.reason})'
        return score

    def _bands(self) -> str:
        bands = str(self.extra_params.get('seed_bands') or DEFAULT_BANDS)
        if bands not in NUMERIC_BANDS:
            raise ValueError(f'cmphysbench: seed_bands must be one of {sorted(NUMERIC_BANDS)}, not {bands!r}')
        return bands
