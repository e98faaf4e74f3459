"""PhysOlym: open-ended olympiad problems in a documented JSONL schema, bilingual, per-level results.

PhysOlym-A (Physics-R1's held-out set) is not public, so this adapter reads any file in its schema
through ``local_path``; we ship a small sample of our own problems for the demo and tests.
"""
from __future__ import annotations

import os
from collections import defaultdict
from numbers import Number
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from evalscope.api.benchmark import BenchmarkMeta, DefaultDataAdapter
from evalscope.api.dataset import DatasetDict, Sample
from evalscope.api.evaluator import TaskState
from evalscope.api.metric import AggScore, SampleScore, Score
from evalscope.api.metric.semantics import MetricSelector
from evalscope.api.registry import register_benchmark
from evalscope.constants import Tags

from evalscope_phys.benchmarks.base import (
    DatasetUnavailableError,
    find_data_file,
    log_skipped,
    read_records,
    records_dataset,
)
from evalscope_phys.benchmarks.judging import RulesFirstJudgeMixin
from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.metrics import EED, LENIENT, SCORED, STRICT, verdict_score

DATA_FILES = ('physolym*.jsonl', 'physolym*.json', '*.jsonl')
SUBSET_LIST = ['en', 'et']
#: answer types whose answer is an expression, so EED is meaningful
EXPRESSION_TYPES = frozenset({'expression', 'equation', 'symbolic'})
#: metrics also reported per difficulty level (aggregation ``mean_per_difficulty``)
PER_LEVEL_METRICS = (STRICT, LENIENT)
PER_LEVEL_AGGREGATION = 'mean_per_difficulty'

PROMPT_TEMPLATE = (
    'Solve the following physics olympiad problem. Reason step by step, then give the final answer '
    'inside one \\boxed{{}} at the end of your reply: a number with its unit (for example '
    '\\boxed{{4.9\\,\\mathrm{{m/s^2}}}}) or a LaTeX expression in the variables of the problem. If the '
    'problem asks for several quantities, put them in the box separated by semicolons, in the order asked.'
    '\n\n{question}'
)

DESCRIPTION = """
## Overview

PhysOlym is the schema of Physics-R1's held-out open-ended olympiad set (PhysOlym-A: 500 problems,
native difficulty labels, an English/Estonian bilingual subset). PhysOlym-A is not public, so it loads
only through `dataset_args.physolym.local_path`; evalscope-phys ships a small sample of its own problems
in the same schema (`evalscope_phys/data/demo/physolym_sample.jsonl`, with EN/ET pairs).

## Task Description

- **Input**: a problem statement in text (English or Estonian)
- **Output**: a solution ending in one `\\boxed{}` answer (number with unit, or LaTeX expression)
- **Subsets**: by `language` (`en`, `et`); other languages are excluded with a logged count unless
  named in `subset_list`

## Schema (one JSON object per line)

`id` (required), `problem` (required), `answer` (required: LaTeX string or number, or a list for
several answers, matched in order), `unit` (the answer's unit, e.g. `m/s`, or null), `tolerance`
(relative tolerance for lenient accuracy, default 1e-2), `answer_type` (`numeric`, `expression`,
`text`, ...), `difficulty` (any label, reported per level), `language` (subset), `pair_id` (shared
by the translations of one problem), `source`, optional `images` (rows with images are excluded,
with a logged count: this is a text benchmark).

## Evaluation Notes

- Primary metric `strict_acc` (numbers within relative 1e-6 after unit conversion, or symbolically
  equal); `lenient_acc` uses the record's `tolerance` (default 1e-2); `eed` (0-100) only for
  expression answers; `scored` is the share the engine could score.
- Per difficulty level: `strict_acc` and `lenient_acc` again with aggregation `mean_per_difficulty`
  and dimension `difficulty`.
- With `--judge` (models given, strategy `auto` or `llm`), only answers the rules cannot decide go to
  the judge (unreadable answer or reference, text answers, engine timeout); `judged` and
  `cannot_judge` report the shares. See `evalscope_phys/benchmarks/judging.py`.
- Metadata `pair_id` and `lang` let `evalscope-phys compare RUN --by-pair` test EN against ET.
"""


def reference_of(record: Dict[str, Any]) -> Any:
    """The record's answer as the engine takes it: a string, or a list of strings."""
    answer = record.get('answer')
    if isinstance(answer, list):
        return [str(a) for a in answer]
    return str(answer) if isinstance(answer, (str, Number)) and not isinstance(answer, bool) else None


@register_benchmark(
    BenchmarkMeta(
        name='physolym',
        pretty_name='PhysOlym',
        dataset_id='physolym/PhysOlym-A',
        hf_dataset_id='physolym/PhysOlym-A',
        tags=[Tags.REASONING, Tags.MATH],
        description=DESCRIPTION,
        subset_list=SUBSET_LIST,
        metric_list=[STRICT, LENIENT, EED, SCORED],
        primary_metric=MetricSelector(name=STRICT, aggregation='mean'),
        eval_split='test',
        prompt_template=PROMPT_TEMPLATE,
    )
)
class PhysOlymAdapter(RulesFirstJudgeMixin, DefaultDataAdapter):
    """Reads the PhysOlym JSONL schema; rules score, the judge only sees what they cannot decide."""

    def load(self) -> Tuple[DatasetDict, None]:
        if not os.path.exists(self.dataset_id):
            raise DatasetUnavailableError(
                f'physolym: {self.dataset_id!r} is not a local file or folder. PhysOlym-A is not public; set '
                'dataset_args.physolym.local_path to a JSONL file in the PhysOlym schema (a sample ships in '
                'evalscope_phys/data/demo/physolym_sample.jsonl).')
        path = find_data_file(Path(self.dataset_id), DATA_FILES, 'PhysOlym JSONL')
        record_map: Dict[str, List[Dict[str, Any]]] = {subset: [] for subset in self.subset_list}
        skipped: Dict[str, List[str]] = defaultdict(list)
        seen = set()
        for record in read_records(path):
            problem = self._problem_of(record, skipped, seen)
            if problem is not None:
                record_map[problem['language']].append(problem)
        log_skipped(self.name, skipped)
        return records_dataset(self, record_map, str(path), skipped=skipped)

    def _problem_of(self, record: Any, skipped: Dict[str, List[str]], seen: set) -> Optional[Dict[str, Any]]:
        """The record if it can become a sample, else None with the reason counted."""
        if not isinstance(record, dict):
            skipped['not a JSON object'].append('?')
            return None
        rid = str(record.get('id') or '?')
        language = str(record.get('language') or '').strip().lower()
        tolerance = record.get('tolerance')
        reasons = [
            (rid == '?', 'no id'),
            (rid in seen, 'duplicate id'),
            (not str(record.get('problem') or '').strip(), 'no problem text'),
            (reference_of(record) in (None, '', []), 'no usable answer'),
            (tolerance is not None and (not isinstance(tolerance, Number) or isinstance(tolerance, bool)
                                        or not 0 <= tolerance < 1), 'tolerance not a number in [0, 1)'),
            (bool(record.get('images')), 'has images (text-only benchmark)'),
            (language not in self.subset_list, 'language not in subset_list'),
        ]
        for failed, reason in reasons:
            if failed:
                skipped[reason].append(rid)
                return None
        seen.add(rid)
        return {**record, 'id': rid, 'language': language}

    def record_to_sample(self, record: Dict[str, Any]) -> Sample:
        reference = reference_of(record)
        return Sample(
            input=record['problem'],
            target=' ; '.join(reference) if isinstance(reference, list) else reference,
            metadata={
                'id': record['id'], 'lang': record['language'], 'pair_id': record.get('pair_id'),
                'difficulty': None if record.get('difficulty') is None else str(record['difficulty']),
                'answer_type': record.get('answer_type'), 'source': record.get('source'),
                'unit': record.get('unit') or None, 'tolerance': record.get('tolerance'), 'reference': reference,
            },
        )

    def format_prompt_template(self, sample: Sample) -> str:
        return self.prompt_template.format(question=sample.input)

    def match_score(
        self, original_prediction: str, filtered_prediction: str, reference: str, task_state: TaskState
    ) -> Score:
        meta = task_state.metadata
        expression = str(meta.get('answer_type') or '').lower() in EXPRESSION_TYPES
        verdict = score_answer(
            meta.get('reference') or reference, original_prediction, tolerance=meta.get('tolerance'),
            unit=meta.get('unit'), multiple='ordered' if isinstance(meta.get('reference'), list) else None,
            eed=expression,
        )
        return verdict_score(verdict, original_prediction, metrics=(STRICT, LENIENT, EED), main=STRICT)

    def aggregate_scores(self, sample_scores: List[SampleScore]) -> List[AggScore]:
        """The usual means, plus strict/lenient accuracy per difficulty level."""
        results = super().aggregate_scores(sample_scores)
        by_level: Dict[Tuple[str, str], List[Tuple[float, Any]]] = defaultdict(list)
        for sample in sample_scores:
            level = (sample.sample_metadata or {}).get('difficulty')
            for name in PER_LEVEL_METRICS:
                if level is not None and name in sample.score.value:
                    by_level[(name, level)].append((sample.score.value[name], sample.sample_id))
        for (name, level), values in sorted(by_level.items()):
            results.append(AggScore(
                score=sum(v for v, _ in values) / len(values), metric_name=name, aggregation=PER_LEVEL_AGGREGATION,
                dimensions={'difficulty': level}, num=len(values), ids=[i for _, i in values],
            ))
        return results
