"""OmniPhys: Chinese K-12 to university physics with figures; answer accuracy plus judged process quality.

Metrics as the OmniPhys paper defines them (names in our reports in brackets):

- S1, answer accuracy [``lenient_acc``]: the final answer, decided by our units-aware rules first;
  the LLM judge only sees answers the rules cannot decide (open questions' statements, mostly).
- S2 / S3, process quality of objective / open questions [``process_obj`` / ``process_open``]: the
  judge grades the model's whole solution against the record's reference reasoning chain with our
  rubric (``omniphys_rubric.txt``), 0-10 points reported as 0-1.
- P_obj / P_open, strict mastery [``mastery_obj`` / ``mastery_open``]: 1 when the answer is correct
  *and* the process score is at least :data:`MASTERY_THRESHOLD` (0.8: every key step of the chain, at
  most minor slips, in the rubric's words), else 0.

Process metrics need a judge (``--judge``); without one they are absent, never 0. A sample whose judge
call fails keeps its rule score and has no process metrics (status ``degraded`` in the report).
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from evalscope.api.benchmark import BenchmarkMeta, VisionLanguageAdapter
from evalscope.api.dataset import Sample
from evalscope.api.evaluator import TaskState
from evalscope.api.judge import JudgeCase, JudgeDefinition, JudgeRequest, ReducedVerdict
from evalscope.api.messages import ChatMessageUser
from evalscope.api.metric import Score
from evalscope.api.registry import register_benchmark
from evalscope.constants import Tags
from pydantic import BaseModel, Field

from evalscope_phys.benchmarks.base import (DatasetUnavailableError, Excluded, Kept, Placement, RecordLoader,
                                          category, check_own_dataset_args, find_data_file)
from evalscope_phys.judge.rules_first import (
    CANNOT_JUDGE,
    JUDGE_FAILED,
    JUDGED,
    CaseContract,
    RulesFirstJudgeMixin,
    failed_calls,
    failed_calls_not_correct,
    is_failed,
    judge_call_failed,
    undecided_reason,
)
from evalscope_phys.benchmarks.vision import (
    check_images,
    DEFAULT_MAX_IMAGE_BYTES,
    figure_limits,
    figure_message,
    FigureLimitsMixin,
    image_data_uri,
    image_names,
    MAX_REQUEST_BYTES,
    request_limit_param,
    resolve_image,
)
from evalscope_phys.llm.case_id import case_id, stated_case
from evalscope_phys.llm.untrusted import PREAMBLE, addresses_grader, data_block
from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.metrics import LENIENT, LENIENT_ALL, SCORED, STRICT, STRICT_ALL, verdict_score

PROCESS_OBJ, PROCESS_OPEN = 'process_obj', 'process_open'
MASTERY_OBJ, MASTERY_OPEN = 'mastery_obj', 'mastery_open'
OBJECTIVE, OPEN = 'objective', 'open'
#: process score (0-1) an answer needs, with a correct answer, to count as mastered (rubric: 8/10 points)
MASTERY_THRESHOLD = 0.8
RUBRIC_FILE = Path(__file__).with_name('omniphys_rubric.txt')
PROCESS_CASE = 'process'
#: the judge sees at most this much of a solution (its end, where the reasoning concludes)
MAX_SOLUTION_CHARS = 12000
DATA_FILES = ('omniphys.jsonl', 'OmniPhys.jsonl', 'omniphys.json', 'OmniPhys.json')

#: subset -> record ``level`` spellings (English or Chinese school stage)
LEVELS: Dict[str, Tuple[str, ...]] = {
    'primary': ('primary', 'primary school', 'elementary', '小学'),
    'junior_high': ('junior_high', 'junior high', 'middle school', '初中'),
    'senior_high': ('senior_high', 'senior high', 'high school', '高中'),
    'university': ('university', 'college', 'undergraduate', '大学'),
}
QUESTION_TYPES: Dict[str, Tuple[str, ...]] = {
    OBJECTIVE: (OBJECTIVE, 'choice', 'fill', 'calculation', '选择题', '填空题', '计算题'),
    OPEN: (OPEN, 'open-ended', 'open_ended', 'explanation', '简答题', '开放题'),
}
SUBSET_LIST = list(LEVELS)

PROMPT_TEMPLATE = '{question}\n\n请结合图片解答这道物理题：写出完整的推理过程，最后把最终答案写在一个 \\boxed{{}} 中（数值答案带单位）。'

DESCRIPTION = """
## Overview

OmniPhys is a Chinese multimodal physics benchmark from primary school (K-12) to university, each
problem with figures and a reference reasoning chain. It scores both the final answer and the
solution process. The data is not public: evalscope-phys loads it from a JSONL file you provide.

## Task Description

- **Input**: the figure(s) plus the problem text (Chinese)
- **Output**: a full solution ending in the final answer in `\\boxed{}`
- **Subsets**: the record `level`: primary, junior_high, senior_high, university

## Evaluation Notes

- **S1** `lenient_acc` (primary): answer accuracy. Numbers/expressions by our units-aware rules
  (relative 1e-2 after unit conversion; `strict_acc` at 1e-6); with `--judge`, answers the rules
  cannot decide (statements, unreadable expressions) are judged. Without a judge, an open question's
  statement answer that the rules cannot decide is left out of S1 rather than counted wrong.
- **S2** `process_obj` / **S3** `process_open`: process quality of objective / open questions, 0-1,
  graded by the judge against the reference reasoning chain with the rubric in
  `evalscope_phys/benchmarks/omniphys_rubric.txt` (0-10 points).
- **P_obj** `mastery_obj` / **P_open** `mastery_open`: strict mastery, answer correct and process score
  at least 0.8 (`extra_params.mastery_threshold`).
- Process and mastery metrics need `--judge` models; without them they are absent (never 0).
  `judged` / `cannot_judge` report the share of *answers* sent to / not decided by the judge.
- Data (`dataset_args.omniphys.local_path`: `omniphys.jsonl` or its folder), one JSON object per line:
  `id` (str), `level` (primary/junior_high/senior_high/university or 小学/初中/高中/大学),
  `question_type` (`objective`: choice/fill-in/calculation with a definite answer; `open`: a stated
  conclusion or explanation), `question` (text; `<image>` placeholders are dropped), `images` (list of
  paths relative to the JSONL's folder), `answer` (LaTeX with unit, an option letter, or a statement),
  `reasoning_chain` (list of reference steps), optional `subject`. Rows missing any of these, with an
  unknown level/type, or with a missing/escaping image are excluded and counted in the log.
- Figures are sent inline as base64; figures above `max_image_bytes` (default `5mb`) are shrunk, and a sample over
  `extra_params.max_request_bytes` (default `20mb`) fails with a message naming its files. The judge sees text only.
"""


class ProcessVerdict(BaseModel):
    """The judge's grade of one solution process."""

    case: str = Field('', description='the case id given above, copied exactly')
    reasoning: str = ''
    score: int = Field(ge=0, le=10)


def process_contract(case: str) -> CaseContract:
    """The process grade's contract for the case ``case``: a reply for another solution is a failed call."""
    return CaseContract(schema_model=ProcessVerdict, case_id=case)


def process_case(question: str, reference: str, solution: str) -> str:
    """The id of one process case (problem, reference answer, solution), echoed back by the judge."""
    return case_id('process', question, reference, solution)


def reasoning_steps(value: Any) -> List[str]:
    """A reference chain as a list of non-empty steps (a single string counts as one step)."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [str(step).strip() for step in items if isinstance(step, (str, int, float)) and str(step).strip()]


@lru_cache(maxsize=1)
def _rubric() -> str:
    return RUBRIC_FILE.read_text(encoding='utf-8')


def process_prompt(question: str, reference: str, steps: Sequence[str], solution: str) -> str:
    """The rubric filled for one solution, every text an untrusted data block; placeholders filled once."""
    values = {'preamble': PREAMBLE, 'case': process_case(question, reference, solution),
              'question': data_block('problem', question, MAX_SOLUTION_CHARS),
              'reference_answer': data_block('reference_answer', reference, MAX_SOLUTION_CHARS),
              'reference_steps': data_block('reference_steps', '\n'.join(f'{i}. {s}' for i, s in enumerate(steps, 1)),
                                            MAX_SOLUTION_CHARS),
              'solution': data_block('solution', solution, MAX_SOLUTION_CHARS)}
    return re.sub(r'\{(preamble|case|question|reference_answer|reference_steps|solution)\}',
                  lambda m: values[m.group(1)], _rubric())


def process_metrics(question_type: str, points: int, correct: Optional[float],
                    threshold: float = MASTERY_THRESHOLD) -> Dict[str, float]:
    """S2/S3 and P_obj/P_open values for one sample; mastery is absent when correctness is unknown."""
    score = points / 10.0
    process, mastery = (PROCESS_OBJ, MASTERY_OBJ) if question_type == OBJECTIVE else (PROCESS_OPEN, MASTERY_OPEN)
    out = {process: score}
    if correct is not None:
        out[mastery] = float(bool(correct) and score >= threshold - 1e-9)
    return out


def with_process_case(answer_judge: JudgeDefinition, *, prompt: str, question_type: str,
                      threshold: float, refused: Optional[str] = None) -> JudgeDefinition:
    """The rules-first answer judge plus one process case; both verdicts reduce into one score.

    ``refused`` (the words of a solution that instructs its grader) makes the process 0 points by
    rule, whatever the judge replies.
    """
    base_score = answer_judge.immediate_score  # set when the rules decided the answer
    contract = process_contract(stated_case(prompt) or '')
    cases = [*answer_judge.cases, JudgeCase(case_id=PROCESS_CASE, output_contract=contract)]

    def request(case, placement, completed, context) -> JudgeRequest:
        if case.case_id != PROCESS_CASE:
            return answer_judge.build_request(case, placement, completed, context)
        return JudgeRequest(messages=[ChatMessageUser(content=prompt + case.output_contract.instruction())])

    def reduce(verdicts, context) -> ReducedVerdict:
        answers = [v for v in verdicts if v.case_id != PROCESS_CASE]
        process = next(v for v in verdicts if v.case_id == PROCESS_CASE)
        if base_score is not None:
            reduced = ReducedVerdict(value=dict(base_score.value), metadata={})
        else:
            reduced = answer_judge.reduce_verdicts(answers, context)
        value = dict(reduced.value)
        metadata = dict(reduced.metadata or {})
        if refused:  # the solution addresses its grader: 0 points by rule
            value.update(process_metrics(question_type, 0, value.get(LENIENT), threshold))
            metadata.update(process_points=0, process_reasoning=f'the solution addresses its grader ({refused[:80]!r})')
        elif is_failed(process):  # no grade: process and mastery stay absent, never 0
            metadata['process_points'] = None
        else:
            value.update(process_metrics(question_type, process.value.score, value.get(LENIENT), threshold))
            metadata.update(process_points=process.value.score, process_reasoning=process.value.reasoning)
        value[JUDGE_FAILED] = sum(is_failed(v) for v in verdicts) / len(verdicts)
        return ReducedVerdict(value=failed_calls_not_correct(value), metadata=metadata)

    def finalize(score: Score, review, context) -> Score:
        if answer_judge.finalize is not None:
            score = answer_judge.finalize(score, review, context)
        else:
            score.main_score_name = base_score.main_score_name
            score.explanation = base_score.explanation
            score.metadata = {**(base_score.metadata or {}), **(score.metadata or {})}
        failed = failed_calls(review)
        if failed:
            score.metadata = {**(score.metadata or {}), JUDGE_FAILED: failed}
        return score

    return JudgeDefinition.workflow(cases=cases, request=request, reduce=reduce, finalize=finalize,
                                    fallback=judge_call_failed, main_score_name=answer_judge.main_score_name or LENIENT)


@register_benchmark(
    BenchmarkMeta(
        name='omniphys',
        pretty_name='OmniPhys',
        dataset_id='omniphys',
        tags=[Tags.MULTI_MODAL, Tags.REASONING, Tags.QA],
        description=DESCRIPTION,
        subset_list=SUBSET_LIST,
        metric_list=[LENIENT, STRICT, SCORED, PROCESS_OBJ, PROCESS_OPEN, MASTERY_OBJ, MASTERY_OPEN, JUDGED,
                     CANNOT_JUDGE, JUDGE_FAILED, STRICT_ALL, LENIENT_ALL],
        primary_metric=LENIENT,
        eval_split='test',
        prompt_template=PROMPT_TEMPLATE,
        max_image_bytes=DEFAULT_MAX_IMAGE_BYTES,
        extra_params={
            MAX_REQUEST_BYTES: request_limit_param(),
            'mastery_threshold': {'type': 'float', 'value': MASTERY_THRESHOLD,
                                  'description': 'Process score (0-1) a correct answer needs to count as mastered.'},
        },
    )
)
class OmniPhysAdapter(RecordLoader, FigureLimitsMixin, RulesFirstJudgeMixin, VisionLanguageAdapter):
    """Answers by the engine (judge for the undecided), every solution's process by the judge."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.image_root: Optional[Path] = None

    def dataset_files(self) -> Tuple[List[Path], str]:
        check_own_dataset_args(self)
        unknown = [s for s in self.subset_list if s not in LEVELS]
        if unknown:
            raise ValueError(f'omniphys: unknown subsets {unknown}; choose from {SUBSET_LIST}.')
        if not os.path.exists(self.dataset_id):
            raise DatasetUnavailableError(
                f'omniphys: the OmniPhys data is not public and {self.dataset_id!r} is not a local file or folder. '
                'Set dataset_args.omniphys.local_path to your omniphys.jsonl (or its folder), e.g. '
                '--dataset-args \'{"omniphys": {"local_path": "/data/omniphys"}}\'.')
        path = find_data_file(Path(self.dataset_id), DATA_FILES, 'OmniPhys')
        self.image_root = path.parent
        return [path], str(path)

    def sort_record(self, record: Any, path: Path, row: int) -> Placement:
        problem = self._problem(record)
        if problem is not None:
            return Excluded(problem, str(record.get('id', '?')) if isinstance(record, dict) else '?')
        return Kept(category(record['level'], LEVELS), record)

    def _problem(self, record: Any) -> Optional[str]:
        """Why ``record`` cannot become a sample (the exclusion reason), or None."""
        if not isinstance(record, dict):
            return 'not a JSON object'
        if not str(record.get('id') or '').strip():
            return 'no id'
        for key in ('question', 'answer'):
            if not isinstance(record.get(key), str) or not record[key].strip():
                return f'no {key}'
        if category(record.get('level'), LEVELS) is None:
            return 'unknown level'
        if category(record.get('question_type'), QUESTION_TYPES) is None:
            return 'unknown question_type'
        if not reasoning_steps(record.get('reasoning_chain')):
            return 'no reasoning_chain'
        return check_images(self.image_root, record.get('images'))

    @figure_limits
    def record_to_sample(self, record: Dict[str, Any]) -> Sample:
        figures = [image_data_uri(self, resolve_image(self.image_root, name)) for name in image_names(record['images'])]
        metadata = {'id': str(record['id']), 'level': category(record['level'], LEVELS),
                    'question_type': category(record['question_type'], QUESTION_TYPES), 'subject': record.get('subject'),
                    'reasoning_chain': reasoning_steps(record['reasoning_chain'])}
        text = self.prompt_template.format(question=record['question'].strip())
        return Sample(input=figure_message(text, figures), target=record['answer'].strip(), metadata=metadata)

    def match_score(
        self, original_prediction: str, filtered_prediction: str, reference: str, task_state: TaskState
    ) -> Score:
        verdict = score_answer(reference, original_prediction, eed=False)
        score = verdict_score(verdict, original_prediction, metrics=(STRICT, LENIENT), main=LENIENT)
        is_open = (task_state.metadata or {}).get('question_type') == OPEN
        if is_open and verdict.scored and undecided_reason(verdict, reference) is not None:
            # a statement the rules cannot read: only the judge may call it wrong
            score.value = {k: v for k, v in score.value.items() if k not in (STRICT, LENIENT)}
            score.value[SCORED] = 0.0  # unscored until a judge decides: visible, never a silent 0
            score.explanation = f'{verdict.reason}; open answer left to the judge'
        return score

    def judge_definition(self, context) -> JudgeDefinition:
        answer_judge = super().judge_definition(context)
        metadata = context.task_state.metadata or {}
        prompt = process_prompt(context.task_state.input_text, context.reference,
                                metadata.get('reasoning_chain') or [], context.original_prediction)
        threshold = float(self.extra_params.get('mastery_threshold', MASTERY_THRESHOLD))
        return with_process_case(answer_judge, prompt=prompt, question_type=metadata.get('question_type', OBJECTIVE),
                                 threshold=threshold, refused=addresses_grader(context.original_prediction))
