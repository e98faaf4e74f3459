"""PhysUniBench: undergraduate physics with a figure per problem, open-ended and multiple-choice (English)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from evalscope.api.benchmark import BenchmarkMeta, VisionLanguageAdapter
from evalscope.api.dataset import Sample
from evalscope.api.evaluator import TaskState
from evalscope.api.metric import Score
from evalscope.api.registry import register_benchmark
from evalscope.constants import Tags

from evalscope_phys import compat
from evalscope_phys.benchmarks.base import (DatasetUnavailableError, Excluded, Kept, Placement, RecordLoader,
                                           locate_dataset, read_rows)
from evalscope_phys.judge.rules_first import CANNOT_JUDGE, JUDGE_FAILED, JUDGED, RulesFirstJudgeMixin, record_routes
from evalscope_phys.benchmarks.solutions import no_reference_verdict, reference_final_answer
from evalscope_phys.benchmarks.vision import (
    DEFAULT_MAX_IMAGE_BYTES, MAX_REQUEST_BYTES, FigureLimitsMixin, check_images, figure_limits, figure_message,
    image_data_uri, request_limit_param, resolve_image,
)
from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.metrics import LENIENT, LENIENT_ALL, SCORED, STRICT, STRICT_ALL, verdict_score

OPEN_ENDED, MULTIPLE_CHOICE = 'open_ended', 'multiple_choice'
#: subset -> release file (English)
DATA_FILES = {OPEN_ENDED: 'PhysUnivBench_en_OE.json', MULTIPLE_CHOICE: 'PhysUnivBench_en_MCQ.json'}
FILE_SUBSETS = {name: subset for subset, name in DATA_FILES.items()}
#: figure folders: ``images_full`` in the GitHub release, ``images`` on the Hugging Face hub
IMAGE_DIRS = ('images_full', 'images')
OPTION_LABELS = ('A', 'B', 'C', 'D')
_OPTION_RE = re.compile(r'(?:^|\n)\s*([A-D])[.．:：)]\s*')

PROMPT_TEMPLATE = (
    'Solve the following physics problem using the figure. Reason step by step, then give the final '
    'answer with its unit inside one \\boxed{{}} at the end.\n\n{question}'
)
MCQ_TEMPLATE = (
    'Answer the following multiple-choice physics problem using the figure. Reason step by step; the '
    'last line of your reply must be "ANSWER: X", where X is one of A, B, C, D.\n\n{question}\n\n{options}'
)

DESCRIPTION = """
## Overview

PhysUniBench (PrismaX, 2025) is a multimodal benchmark of undergraduate physics: every problem comes
with a figure. This adapter reads the English open-ended (629) and multiple-choice (393) files.

## Task Description

- **Input**: a figure plus the problem text (and four options for multiple choice)
- **Output**: open-ended: a derivation ending in a boxed answer with its unit; multiple choice: `ANSWER: X`
- **Subsets**: `open_ended`, `multiple_choice`

## Evaluation Notes

- The open-ended reference is a full worked solution. Its final answer is taken with evalscope-phys's
  answer extraction and the reply is scored against it by the units-aware engine: `lenient_acc`
  (primary, relative 1e-2 after unit conversion), `strict_acc`, and `scored`. Where the solution states
  no final answer the engine can read (no boxed/"final answer"/formula, or only prose), the sample goes
  to the LLM judge with the full solution as reference; without a judge it stays unscored
  (`scored = 0`, never a silent 0). The load log says how many such references there are.
- A solution with several parts is compared on its last stated answer only.
- Multiple choice: the option letter from the reply's `ANSWER:` line (EvalScope's parser) against the key.
- With `--judge` models, `judged` is the share of answers sent to the judge, `cannot_judge` the share it
  could not decide.
- Records whose figure is missing or whose image path leaves the dataset folder are excluded and
  counted in the log (the GitHub copy ships figures for the first 150 open-ended and 50 multiple-choice
  rows only). Figures are sent as base64, shrunk to `max_image_bytes` (default `5mb`); a sample whose
  figures exceed `extra_params.max_request_bytes` (default `20mb`) fails with a message naming them.
- Data: `dataset_args.physunibench.local_path` names a folder holding the two JSON files and
  `images_full/` (or `images/`); otherwise the hub copy is used.
"""


def parse_mcq_options(raw: Any) -> Dict[str, str]:
    """``'A. ...\\n\\nB. ...'`` -> ``{'A': '...', ...}``; an empty dict when it is not exactly A-D."""
    if not isinstance(raw, str):
        return {}
    marks = list(_OPTION_RE.finditer(raw))
    options = {m.group(1): raw[m.end():(marks[i + 1].start() if i + 1 < len(marks) else len(raw))].strip()
               for i, m in enumerate(marks)}
    return options if [m.group(1) for m in marks] == list(OPTION_LABELS) else {}


@register_benchmark(
    BenchmarkMeta(
        name='physunibench',
        pretty_name='PhysUniBench',
        dataset_id='PrismaX/PhysUniBench',
        hf_dataset_id='PrismaX/PhysUniBench',
        tags=[Tags.MULTI_MODAL, Tags.REASONING, Tags.QA, Tags.MULTIPLE_CHOICE],
        description=DESCRIPTION,
        paper_url='https://arxiv.org/abs/2506.17667',
        subset_list=[OPEN_ENDED, MULTIPLE_CHOICE],
        metric_list=[LENIENT, STRICT, SCORED, JUDGED, CANNOT_JUDGE, JUDGE_FAILED, STRICT_ALL, LENIENT_ALL],
        primary_metric=LENIENT,
        eval_split='test',
        prompt_template=PROMPT_TEMPLATE,
        max_image_bytes=DEFAULT_MAX_IMAGE_BYTES,
        extra_params={MAX_REQUEST_BYTES: request_limit_param()},
    )
)
class PhysUniBenchAdapter(RecordLoader, FigureLimitsMixin, RulesFirstJudgeMixin, VisionLanguageAdapter):
    """Open-ended answers by the engine (judge for what it cannot decide), multiple choice by letter."""

    unread_reference_kind = 'open-ended reference solution(s)'

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.image_root: Optional[Path] = None

    def dataset_files(self) -> Tuple[List[Path], str]:
        """One release file per chosen subset."""
        root = locate_dataset(self, allow_file_pattern=[*DATA_FILES.values(), *(f'{d}/*' for d in IMAGE_DIRS)])
        if root.is_file():
            root = root.parent
        self.image_root = next((root / d for d in IMAGE_DIRS if (root / d).is_dir()), root)
        unknown = [subset for subset in self.subset_list if subset not in DATA_FILES]
        if unknown:
            raise ValueError(f'Unknown PhysUniBench subset {unknown[0]!r}; choose from {list(DATA_FILES)}.')
        return [root / DATA_FILES[subset] for subset in self.subset_list], str(root)

    def read_file(self, path: Path) -> List[Any]:
        if not path.is_file():
            raise DatasetUnavailableError(f'{self.name}: {path.name} not found in {path.parent}.')
        return read_rows(path)

    def sort_record(self, record: Any, path: Path, row: int) -> Placement:
        subset = FILE_SUBSETS[path.name]
        rid = f'{subset}:{record.get("id", "?")}' if isinstance(record, dict) else f'{subset}:?'
        problem = self._problem(record, subset)
        if problem is not None:
            return Excluded(problem, rid)
        record = {**record, '_subset': subset, '_id': rid}
        if subset == OPEN_ENDED:
            record['_reference'] = reference_final_answer(record['answer'])
        return Kept(subset, record)

    def unread_reference(self, record: Dict[str, Any]) -> Optional[str]:
        return record['_id'] if record['_subset'] == OPEN_ENDED and record['_reference'] is None else None

    def _problem(self, record: Any, subset: str) -> Optional[str]:
        """Why ``record`` cannot become a sample (the exclusion reason), or None."""
        if not isinstance(record, dict):
            return 'not a JSON object'
        if not isinstance(record.get('question'), str) or not record['question'].strip():
            return 'no question text'
        if not isinstance(record.get('answer'), str) or not record['answer'].strip():
            return 'no reference answer'
        if subset == MULTIPLE_CHOICE:
            if not parse_mcq_options(record.get('options')):
                return 'options are not exactly A-D'
            if record['answer'].strip() not in OPTION_LABELS:
                return 'answer is not an option letter'
        return check_images(self.image_root, record.get('image'))

    @figure_limits
    def record_to_sample(self, record: Dict[str, Any]) -> Sample:
        figure = image_data_uri(self, resolve_image(self.image_root, record['image']))
        metadata = {'id': record.get('id'), 'subset': record['_subset'], 'subtopic': record.get('subtopic'),
                    'difficulty': record.get('difficulty'), 'image': record['image']}
        if record['_subset'] == MULTIPLE_CHOICE:
            metadata['solution'] = str(record.get('parsing') or '')  # worked explanation, for error-analysis
            options = parse_mcq_options(record['options'])
            text = MCQ_TEMPLATE.format(question=record['question'].strip(),
                                       options='\n'.join(f'{k}. {v}' for k, v in options.items()))
            return Sample(input=figure_message(text, [figure]), choices=list(options.values()),
                          target=record['answer'].strip(), metadata=metadata)
        reference = record['_reference']
        metadata['reference_from_solution'] = reference is not None
        metadata['solution'] = record['answer']  # the worked solution, for `evalscope-phys error-analysis`
        return Sample(input=figure_message(self.prompt_template.format(question=record['question'].strip()), [figure]),
                      target=reference if reference is not None else record['answer'].strip(),
                      metadata=metadata)

    def match_score(
        self, original_prediction: str, filtered_prediction: str, reference: str, task_state: TaskState
    ) -> Score:
        metadata = task_state.metadata or {}
        if metadata.get('subset') == MULTIPLE_CHOICE:
            return self._choice_score(original_prediction, reference, task_state)
        if not metadata.get('reference_from_solution', True):
            verdict = no_reference_verdict(original_prediction)
        else:
            verdict = score_answer(reference, original_prediction, eed=False)
        return verdict_score(verdict, original_prediction, metrics=(STRICT, LENIENT), main=LENIENT)

    def _choice_score(self, prediction: str, reference: str, task_state: TaskState) -> Score:
        chosen = sorted(compat.parse_choice_answers(task_state, completion=prediction or ''))
        correct = float(chosen == [reference])
        score = Score(prediction=prediction, extracted_prediction=''.join(chosen),
                      value={STRICT: correct, LENIENT: correct, SCORED: 1.0, STRICT_ALL: correct,
                             LENIENT_ALL: correct})
        score.main_score_name = LENIENT
        score.explanation = f'chose {chosen or "nothing"}, key {reference}'
        return score

    def judge_pending(self, rule_score: Score, context) -> Dict[str, Tuple[str, str]]:
        """Multiple choice is decided by its letter and never judged; open-ended as the mixin says."""
        if (context.task_state.metadata or {}).get('subset') == MULTIPLE_CHOICE:
            record_routes(rule_score, {'answer': (False, 'multiple_choice')})
            return {}
        return super().judge_pending(rule_score, context)
