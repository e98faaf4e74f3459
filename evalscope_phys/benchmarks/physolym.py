"""PhysOlym: open-ended olympiad problems, bilingual, per-level results; PhysOlym-A as Physics-R1 releases it.

Two record layouts load side by side (:mod:`evalscope_phys.benchmarks.physolym_records`): our
documented schema (a short ``answer``) and the PhysOlym-A release (``messages``, a worked
``solution``/``gold``, ``metadata``), whose final answer the engine extracts. Besides our metrics,
``substring_strict`` is Physics-R1's own "strict" (:mod:`evalscope_phys.benchmarks.substring_strict`).
"""
from __future__ import annotations

from collections import defaultdict
from numbers import Number
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

from evalscope.api.benchmark import BenchmarkMeta, DefaultDataAdapter
from evalscope.api.dataset import Sample
from evalscope.api.evaluator import TaskState
from evalscope.api.metric import AggScore, SampleScore, Score
from evalscope.api.metric.semantics import MetricSelector
from evalscope.api.registry import register_benchmark
from evalscope.constants import Tags

from evalscope_phys.benchmarks.base import (
    DatasetUnavailableError,
    Excluded,
    Kept,
    Placement,
    RecordLoader,
    find_data_file,
    locate_dataset,
)
from evalscope_phys.judge.rules_first import RulesFirstJudgeMixin
from evalscope_phys.benchmarks.physolym_records import RELEASE, normalise_record
from evalscope_phys.benchmarks.solutions import no_reference_verdict
from evalscope_phys.benchmarks.substring_strict import substring_strict
from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.metrics import (EED, LENIENT, LENIENT_ALL, SCORED, STRICT, STRICT_ALL, SUBSTRING_STRICT,
                                            verdict_score)

#: Physics-R1's release on the Hugging Face hub (one file, physolym-a.jsonl)
HUB_ID = 'shanyangmie/physolym-a'
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
#: for release records, whose reference is the last answer a worked solution states
RELEASE_PROMPT_TEMPLATE = (
    'Solve the following physics olympiad problem. Reason step by step. Put each final answer inside its '
    'own \\boxed{{}}, in the order the problem asks for them, so that the last box answers the last '
    'question: a number with its unit (for example \\boxed{{4.9\\,\\mathrm{{m/s^2}}}}) or a LaTeX '
    'expression in the variables of the problem.\n\n{question}'
)

DESCRIPTION = """
## Overview

PhysOlym-A is Physics-R1's held-out open-ended olympiad set: 500 problems from Kevin Zhou's handouts,
the Estonian Physics Olympiad (native 1-10 difficulty, an English/Estonian bilingual subset), IPhO,
NBPhO, EuPhO, APhO, USAPhO and INPhO. It loads from the Hugging Face hub (`shanyangmie/physolym-a`,
`--dataset-hub huggingface`) or from `dataset_args.physolym.local_path` (the release's
`physolym-a.jsonl`, or any JSONL file in our documented schema). evalscope-phys ships a sample of its
own problems in our schema (`evalscope_phys/data/demo/physolym_sample.jsonl`, with EN/ET pairs).

## Task Description

- **Input**: a problem statement in text (English or Estonian)
- **Output**: a solution ending in a `\\boxed{}` answer (number with unit, or LaTeX expression)
- **Subsets**: by language (`en`, `et`; a compound tag such as `en-et` goes to its first code); other
  languages are excluded with a logged count unless named in `subset_list`

## Record layouts (one JSON object per line; both may share a file)

- **Our schema**: `id` (required), `problem` (required), `answer` (required: LaTeX string or number,
  or a list for several answers, matched in order), `unit`, `tolerance` (relative, for lenient
  accuracy, default 1e-2), `answer_type` (`numeric`, `expression`, `text`, ...), `difficulty`,
  `language`, `pair_id` (shared by the translations of one problem), `source`, optional `images`.
- **The PhysOlym-A release**: `source`, `messages` (chat messages, possibly JSON-serialised; the first
  user message is the problem; `problem`/`question` work too), `solution` (or `gold`, as Physics-R1's
  evaluation records name it): a worked reference solution, possibly multi-part (a JSON object or list
  of parts), and `metadata` (dict or JSON string: `difficulty`/native difficulty, `language`, `topic`,
  ...). The reference is the **last final answer the solution states**, taken with the engine's answer
  extraction; the prompt asks for one box per answer with the last box answering the last question. A
  solution with no answer the engine can read goes to the judge with the whole solution as reference,
  or stays unscored (`scored = 0`) without a judge; the load log counts these. Records without an id
  are named `<source>#<line>`.
- Rows with images (`images`, `metadata.image_urls`, an `<image>` marker) are excluded with a logged
  count: this is a text benchmark.

## Evaluation Notes

- Primary metric `strict_acc` (numbers within relative 1e-6 after unit conversion, or symbolically
  equal); `lenient_acc` uses the record's `tolerance` (default 1e-2); `eed` (0-100) only for
  expression answers; `scored` is the share the engine could score.
- `substring_strict`: Physics-R1's own "strict" (`judge/judge_olympiad.py`), for comparing with the
  paper: a `\\boxed{}` content that equals the gold or contains it as a substring after their
  normalisation (`\\text{}` unwrapped, whitespace, `$`, `\\,`, `\\!`, `\\;` removed, lower case). The
  gold is the record's `gold`/`solution` text as given (our schema: `answer`, every part of a list).
  A string test: `15 m` passes for `5 m`; a whole worked solution as gold almost never matches.
- Per difficulty level: `strict_acc` and `lenient_acc` again with aggregation `mean_per_difficulty`
  and dimension `difficulty`.
- With `--judge` (models given, strategy `auto` or `llm`), only answers the rules cannot decide go to
  the judge (unreadable answer or reference, text answers, engine timeout); `judged` and
  `cannot_judge` report the shares. See `evalscope_phys/judge/rules_first.py`.
- Metadata `pair_id` and `lang` let `evalscope-phys compare RUN --by-pair` test EN against ET.
"""


@register_benchmark(
    BenchmarkMeta(
        name='physolym',
        pretty_name='PhysOlym',
        dataset_id=HUB_ID,
        hf_dataset_id=HUB_ID,
        tags=[Tags.REASONING, Tags.MATH],
        description=DESCRIPTION,
        paper_url='https://arxiv.org/abs/2605.14040',
        subset_list=SUBSET_LIST,
        metric_list=[STRICT, LENIENT, EED, SCORED, SUBSTRING_STRICT, STRICT_ALL, LENIENT_ALL],
        primary_metric=MetricSelector(name=STRICT, aggregation='mean'),
        eval_split='test',
        prompt_template=PROMPT_TEMPLATE,
    )
)
class PhysOlymAdapter(RecordLoader, RulesFirstJudgeMixin, DefaultDataAdapter):
    """Reads our schema and the PhysOlym-A release; rules score, the judge only sees what they cannot decide."""

    def dataset_files(self) -> Tuple[List[Path], str]:
        try:
            root = locate_dataset(self, allow_file_pattern=['*.jsonl', '*.json'])
        except DatasetUnavailableError as exc:
            if self.dataset_id != HUB_ID or str(self.dataset_hub).lower() == 'huggingface':
                raise
            raise DatasetUnavailableError(f'{exc} PhysOlym-A ({HUB_ID}) is published on Hugging Face: '
                                          'add --dataset-hub huggingface.') from exc
        self._kept_ids: Set[str] = set()  # of this load: a later row with one of them is a duplicate
        path = find_data_file(root, DATA_FILES, 'PhysOlym JSONL')
        return [path], str(path)

    def sort_record(self, record: Any, path: Path, row: int) -> Placement:
        if not isinstance(record, dict):
            return Excluded('not a JSON object', '?')
        problem = normalise_record(record, row)
        rid = problem['id'] or '?'
        tolerance = problem['tolerance']
        release = problem['layout'] == RELEASE
        reasons = [
            (rid == '?', 'no id'),
            (rid in self._kept_ids, 'duplicate id'),
            (not problem['problem'].strip(), 'no problem text'),
            (not release and problem['reference'] in (None, '', []), 'no usable answer'),
            (tolerance is not None and (not isinstance(tolerance, Number) or isinstance(tolerance, bool)
                                        or not 0 <= tolerance < 1), 'tolerance not a number in [0, 1)'),
            (problem['has_images'], 'has images (text-only benchmark)'),
            (problem['language'] not in self.subset_list, 'language not in subset_list'),
        ]
        for failed, reason in reasons:
            if failed:
                return Excluded(reason, rid)
        self._kept_ids.add(rid)
        return Kept(problem['language'], problem)

    def unread_reference(self, record: Dict[str, Any]) -> Optional[str]:
        return record['id'] if record['reference'] is None else None

    def record_to_sample(self, record: Dict[str, Any]) -> Sample:
        reference = record['reference']
        if isinstance(reference, list):
            target = ' ; '.join(reference)
        else:
            target = reference if reference is not None else record['solution']  # the judge's reference
        return Sample(
            input=record['problem'],
            target=target,
            metadata={
                'id': record['id'], 'lang': record['language'], 'language_tag': record['language_tag'],
                'pair_id': record['pair_id'], 'difficulty': record['difficulty'],
                'native_difficulty': record['native_difficulty'], 'topic': record['topic'],
                'answer_type': record['answer_type'], 'source': record['source'], 'layout': record['layout'],
                'unit': record['unit'], 'tolerance': record['tolerance'], 'reference': reference,
                'gold': record['gold'],
            },
        )

    def format_prompt_template(self, sample: Sample) -> str:
        template = self.prompt_template
        if template == PROMPT_TEMPLATE and (sample.metadata or {}).get('layout') == RELEASE:
            template = RELEASE_PROMPT_TEMPLATE  # the reference is the solution's last answer
        return template.format(question=sample.input)

    def match_score(
        self, original_prediction: str, filtered_prediction: str, reference: str, task_state: TaskState
    ) -> Score:
        meta = task_state.metadata
        expression = str(meta.get('answer_type') or '').lower() in EXPRESSION_TYPES
        if meta.get('layout') == RELEASE and meta.get('reference') is None:
            verdict = no_reference_verdict(original_prediction)
        else:
            verdict = score_answer(
                meta.get('reference') or reference, original_prediction, tolerance=meta.get('tolerance'),
                unit=meta.get('unit'), multiple='ordered' if isinstance(meta.get('reference'), list) else None,
                eed=expression,
            )
        score = verdict_score(verdict, original_prediction, metrics=(STRICT, LENIENT, EED), main=STRICT)
        score.value[SUBSTRING_STRICT] = float(substring_strict(original_prediction, meta.get('gold')))
        return score

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
