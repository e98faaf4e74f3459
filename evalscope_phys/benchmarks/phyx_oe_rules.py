"""PhyX open-ended, scored by our units-aware rules first and an LLM judge only for what they cannot decide."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from evalscope.api.dataset import DatasetDict, Sample
from evalscope.api.evaluator import TaskState
from evalscope.api.metric import Score
from evalscope.api.registry import register_benchmark
from evalscope.api.benchmark import BenchmarkMeta
from evalscope.benchmarks.phyx.phyx_adapter import (
    CATEGORY_TO_SUBSET,
    DATA_DIR,
    FULL_SPLIT,
    IMAGE_DIR,
    MINI_SIZE,
    MINI_SPLIT,
    RECORD_FILE,
    SUBSET_LIST,
    PhyXOEAdapter,
)
from evalscope.benchmarks.phyx.utils import OPTION_LABELS, build_oe_question, parse_options
from evalscope.constants import Tags

from evalscope_phys.benchmarks.base import find_data_file, locate_dataset, log_skipped, read_records, records_dataset
from evalscope_phys.benchmarks.judging import CANNOT_JUDGE, JUDGE_FAILED, JUDGED, RulesFirstJudgeMixin
from evalscope_phys.benchmarks.vision import (
    check_images,
    DEFAULT_MAX_IMAGE_BYTES,
    figure_limits,
    FigureLimitsMixin,
    image_data_uri,
    MAX_REQUEST_BYTES,
    request_limit_param,
    resolve_image,
)
from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.metrics import LENIENT, LENIENT_ALL, SCORED, STRICT, STRICT_ALL, verdict_score

#: the official open-ended prompt, plus one sentence asking for a boxed answer the rules can read;
#: set ``prompt_template: '{question}'`` in dataset_args for the official prompt verbatim
PROMPT_TEMPLATE = '{question} Give the final answer, with its unit, in \\boxed{{}} at the end.'

DESCRIPTION = """
## Overview

PhyX open-ended (3,000 university-level problems, each grounded in a figure, 6 domain subsets) as
upstream `phyx_oe` loads it, scored by evalscope-phys's units-aware rules: a reply of `46300 N` for a
ground truth of `46.3 kN` is right, `15 m` for `5 m` is wrong. An LLM judge only sees the answers the
rules cannot decide (text answers such as a direction, unreadable expressions, engine timeouts).

## Task Description

- **Input**: a figure plus the problem description and question (upstream's *Text-DeRedundancy* style)
- **Output**: a derivation ending in the final answer with its unit in `\\boxed{}`
- **Subsets**: mechanics, electromagnetism, thermodynamics, waves_acoustics, optics, modern_physics;
  `eval_split='test_mini'` selects the official 1,000-problem testmini set

## Evaluation Notes

- Primary metric `lenient_acc`: equal within relative 1e-2 after unit conversion (ground truths are
  rounded values); `strict_acc`: symbolically equal or within relative 1e-6. `scored` is the share the
  engine could score (a timeout is never a silent 0).
- With `--judge` models configured (strategy `auto` or `llm`), undecided answers go to the judge and
  `judged` reports the share of answers judged, `cannot_judge` the share the judge could not decide.
  Without a judge (or with `judge.strategy='rule'`) the rules' verdict stands.
- The prompt adds one sentence to the official one, asking for a boxed answer; set
  `prompt_template: '{question}'` for the official prompt verbatim.
- Data is on hubs only (`evalscope/PhyX`, `Cloudriver/PhyX`). Offline, point
  `dataset_args.phyx_oe_rules.local_path` at a folder in PhyX's layout: `PhyX_test.jsonl` next to
  `test_image/` (directly or under `test/`). Records with an unknown category, options other than A-D
  or a missing/escaping figure are excluded and counted in the log.
- Figures are sent inline as base64; figures above `max_image_bytes` (default `5mb`) are shrunk, and a sample over
  `extra_params.max_request_bytes` (default `20mb`) fails with a message naming its files.
"""


@register_benchmark(
    BenchmarkMeta(
        name='phyx_oe_rules',
        pretty_name='PhyX-OE (rules first)',
        dataset_id='evalscope/PhyX',
        hf_dataset_id='Cloudriver/PhyX',
        tags=[Tags.MULTI_MODAL, Tags.REASONING, Tags.QA],
        description=DESCRIPTION,
        paper_url='https://arxiv.org/abs/2505.15929',
        subset_list=SUBSET_LIST,
        metric_list=[LENIENT, STRICT, SCORED, JUDGED, CANNOT_JUDGE, JUDGE_FAILED, STRICT_ALL, LENIENT_ALL],
        primary_metric=LENIENT,
        eval_split=FULL_SPLIT,
        prompt_template=PROMPT_TEMPLATE,
        max_image_bytes=DEFAULT_MAX_IMAGE_BYTES,
        extra_params={MAX_REQUEST_BYTES: request_limit_param()},
    )
)
class PhyXOERulesAdapter(FigureLimitsMixin, RulesFirstJudgeMixin, PhyXOEAdapter):
    """Upstream PhyX-OE loading and prompts; answers scored by the engine, undecided ones judged."""

    def load(self) -> Tuple[DatasetDict, None]:
        if self.eval_split not in (FULL_SPLIT, MINI_SPLIT):
            raise ValueError(f"Unknown PhyX eval_split {self.eval_split!r}: use '{FULL_SPLIT}' or '{MINI_SPLIT}'.")
        unknown = [subset for subset in self.subset_list if subset not in SUBSET_LIST]
        if unknown:
            raise ValueError(f'Unknown PhyX subsets {unknown}. Valid subsets are: {SUBSET_LIST}')
        root = locate_dataset(self, allow_file_pattern=[f'{DATA_DIR}/{RECORD_FILE}', f'{DATA_DIR}/{IMAGE_DIR}/*'])
        path = find_data_file(root, [RECORD_FILE], 'PhyX')
        self.image_root = str(path.parent / IMAGE_DIR)
        record_map: Dict[str, List[Dict[str, Any]]] = {subset: [] for subset in self.subset_list}
        skipped: Dict[str, List[str]] = {}
        for record in read_records(path):
            if not isinstance(record, dict):
                skipped.setdefault('not a JSON object', []).append('?')
                continue
            problem = self._problem(record)
            if problem is not None:
                skipped.setdefault(problem, []).append(str(record.get('index', '?')))
                continue
            if self.eval_split == MINI_SPLIT and int(record['index']) >= MINI_SIZE:
                continue
            subset = CATEGORY_TO_SUBSET[record['category']]
            if subset in record_map:
                record_map[subset].append(record)
        log_skipped(self.name, skipped)
        return records_dataset(self, record_map, str(path))

    def _problem(self, record: Dict[str, Any]) -> Optional[str]:
        """Why ``record`` cannot become a sample (the exclusion reason), or None."""
        try:
            int(record.get('index'))
        except (TypeError, ValueError):
            return 'no integer index'
        if record.get('category') not in CATEGORY_TO_SUBSET:
            return 'unknown category'
        if not all(isinstance(record.get(key), str) for key in ('question', 'question_simply', 'options')):
            return 'question or options missing'
        options = parse_options(record['options'])
        if set(options) != set(OPTION_LABELS) or record.get('answer') not in options:
            return 'options are not exactly A-D with the answer among them'
        return check_images(Path(self.image_root), record.get('image'))

    @figure_limits
    def record_to_sample(self, record: Dict[str, Any]) -> Sample:
        return super().record_to_sample(record)

    def _load_figure(self, image_name: str) -> str:
        return image_data_uri(self, resolve_image(Path(self.image_root), image_name))

    def build_question(self, record: Dict[str, Any], options: Dict[str, str]) -> str:
        question = build_oe_question(record['question_simply'], record['question'])
        return self.prompt_template.format(question=question) if self.prompt_template else question

    def match_score(
        self, original_prediction: str, filtered_prediction: str, reference: str, task_state: TaskState
    ) -> Score:
        verdict = score_answer(reference.strip(), original_prediction, eed=False)
        return verdict_score(verdict, original_prediction, metrics=(STRICT, LENIENT), main=LENIENT)
