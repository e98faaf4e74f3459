"""PhyX open-ended, scored by our units-aware rules first and an LLM judge only for what they cannot decide."""
from __future__ import annotations

from typing import Any, Dict

from evalscope.api.dataset import Sample

from evalscope.api.benchmark import BenchmarkMeta
from evalscope.api.evaluator import TaskState
from evalscope.api.metric import Score
from evalscope.api.registry import register_benchmark
from evalscope.constants import Tags

from evalscope_phys import compat
from evalscope_phys.judge.rules_first import CANNOT_JUDGE, JUDGE_FAILED, JUDGED, RulesFirstJudgeMixin
from evalscope_phys.benchmarks.phyx_loading import PhyXLocalLoading
from evalscope_phys.benchmarks.vision import (DEFAULT_MAX_IMAGE_BYTES, MAX_REQUEST_BYTES, FigureLimitsMixin,
                                             figure_limits, request_limit_param)
from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.metrics import LENIENT, LENIENT_ALL, SCORED, STRICT, STRICT_ALL, verdict_score

PHYX = compat.phyx_upstream()

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
        subset_list=PHYX.subset_list,
        metric_list=[LENIENT, STRICT, SCORED, JUDGED, CANNOT_JUDGE, JUDGE_FAILED, STRICT_ALL, LENIENT_ALL],
        primary_metric=LENIENT,
        eval_split=PHYX.full_split,
        prompt_template=PROMPT_TEMPLATE,
        max_image_bytes=DEFAULT_MAX_IMAGE_BYTES,
        extra_params={MAX_REQUEST_BYTES: request_limit_param()},
    )
)
class PhyXOERulesAdapter(FigureLimitsMixin, RulesFirstJudgeMixin, PhyXLocalLoading, PHYX.oe_adapter):
    """Upstream PhyX-OE data and prompts (either folder layout); answers scored by the engine, undecided ones judged."""

    @figure_limits
    def record_to_sample(self, record: Dict[str, Any]) -> Sample:
        return super().record_to_sample(record)

    def build_question(self, record: Dict[str, Any], options: Dict[str, str]) -> str:
        question = PHYX.build_oe_question(record['question_simply'], record['question'])
        return self.prompt_template.format(question=question) if self.prompt_template else question

    def match_score(
        self, original_prediction: str, filtered_prediction: str, reference: str, task_state: TaskState
    ) -> Score:
        verdict = score_answer(reference.strip(), original_prediction, eed=False)
        return verdict_score(verdict, original_prediction, metrics=(STRICT, LENIENT), main=LENIENT)
