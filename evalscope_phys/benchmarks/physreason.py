"""PhysReason: multi-part physics problems; every sub-answer is scored, a problem scores their share."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from evalscope.api.benchmark import BenchmarkMeta, DefaultDataAdapter
from evalscope.api.dataset import Sample
from evalscope.api.evaluator import TaskState
from evalscope.api.metric import Score
from evalscope.api.registry import register_benchmark
from evalscope.constants import ScoreStatus, Tags

from evalscope_phys.benchmarks.base import (Excluded, Kept, Placement, RecordLoader, find_data_file, locate_dataset,
                                           read_rows)
from evalscope_phys.judge.rules_first import FAILED, Decision, RulesFirstJudgeMixin, route_answers
from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.metrics import EED, LENIENT, LENIENT_ALL, SCORED, STRICT, STRICT_ALL

ALL_CORRECT = 'all_correct'
SUBSET_LIST = ['knowledge', 'easy', 'medium', 'hard']
#: a released folder holds one ``<problem_id>/problem.json`` per problem; converted copies are one file
PROBLEM_FILE = 'problem.json'
DATA_FILES = ('physreason*.json', 'physreason*.jsonl', '*.json', '*.jsonl')

PROMPT_TEMPLATE = (
    'Solve the following physics problem, which has {count} sub-questions. Reason step by step. For each '
    'sub-question give its final answer in its own \\boxed{{}}, in the order of the sub-questions, with units '
    'where the answer has them (for example \\boxed{{4.9\\,\\mathrm{{m/s^2}}}} or \\boxed{{\\frac{{m g}}{{k}}}}).'
    '\n\n{question}'
)

DESCRIPTION = """
## Overview

PhysReason (ACL 2025) has 1,200 physics problems from college-entrance exams and competitions, each
with several sub-questions, at four levels: knowledge, easy, medium, hard. 81% have a diagram; the
release gives a text caption for each, which the prompt includes, so this text adapter scores all rows.

## Task Description

- **Input**: the problem context, the figure caption, and the numbered sub-questions
- **Output**: one `\\boxed{}` final answer per sub-question, in order
- **Subsets**: `knowledge`, `easy`, `medium`, `hard` (the record `difficulty`)

## Evaluation Notes

- Every sub-answer is scored by the evalscope-phys engine. Per problem: `strict_acc` and
  `lenient_acc` are the share of its sub-answers that are correct (the answer-level score), primary
  `strict_acc`; `all_correct` is 1 only when every sub-answer is strictly correct; `eed` is the mean
  EED of the sub-answers; `scored` is the share of sub-answers the engine could score (unscored ones
  drop out of the shares, never count as 0).
- Boxes are matched to sub-questions in order; with more boxes than sub-questions the last ones count,
  with fewer the missing sub-answers count as not answered.
- With `--judge` (models given), only sub-answers the rules cannot decide go to the judge, one judge
  case each; `judged` and `cannot_judge` report the shares.
- Data: `dataset_args.physreason.local_path` may be a release folder (`<id>/problem.json` files, e.g.
  `PhysReason_full/` or `PhysReason-mini/`) or one JSON/JSONL file of records, in the release's form
  (`question_structure`, `answer` list, `difficulty`) or the converted form with `all_fields`.
  Records whose answers do not match their sub-questions are excluded with a logged count.
"""


def normalise_record(record: Dict[str, Any], problem_id: Optional[str] = None) -> Dict[str, Any]:
    """One problem in a single shape (id, context, sub_questions, answers, difficulty, caption)."""
    fields = record.get('all_fields') if isinstance(record.get('all_fields'), dict) else record
    answers = record.get('answer')
    if isinstance(answers, dict):
        answers = answers.get('value')
    structure = fields.get('question_structure') if isinstance(fields.get('question_structure'), dict) else {}
    keys = sorted((k for k in structure if k.startswith('sub_question_')), key=_number)
    return {
        'id': str(problem_id or record.get('problem_id') or fields.get('problem_id') or '?'),
        'context': str(structure.get('context') or '').strip(),
        'sub_questions': [str(structure[k]).strip() for k in keys],
        'answers': [str(a) for a in answers] if isinstance(answers, list) else [],
        'difficulty': str(fields.get('difficulty') or '').strip().lower(),
        'caption': str(fields.get('image_captions') or '').strip(),
        'solution': worked_solution(fields.get('explanation_steps')),
    }


def worked_solution(steps: Any) -> str:
    """The release's ``explanation_steps`` (sub-question -> step -> text) as one text, in order ('' if absent)."""
    if not isinstance(steps, dict):
        return ''
    blocks = []
    for sub in sorted(steps, key=_number):
        body = steps[sub]
        texts = [body[k] for k in sorted(body, key=_number)] if isinstance(body, dict) else [body]
        lines = [str(text).strip() for text in texts]
        label = f'Sub-question {_number(sub)}' if _number(sub) < 10**6 else str(sub)
        blocks.append(f'{label}:\n' + '\n'.join(line for line in lines if line))
    return '\n\n'.join(blocks)


def _number(key: str) -> int:
    tail = str(key).rsplit('_', 1)[-1]
    return int(tail) if tail.isdigit() else 10**6


def release_problem(path: Path) -> Dict[str, Any]:
    """One ``<problem_id>/problem.json`` of a release folder as a problem (``broken`` says why not)."""
    try:
        return normalise_record(json.loads(path.read_text(encoding='utf-8')), path.parent.name)
    except (OSError, ValueError, AttributeError) as exc:
        return {'id': path.parent.name, 'broken': f'unreadable problem.json ({exc})'}


def _mean(values: List[float]) -> Optional[float]:
    return sum(values) / len(values) if values else None


def sub_answer_metrics(subs: List[Dict[str, Any]]) -> Dict[str, float]:
    """Per-problem metrics from its sub-answer verdicts (dicts with strict, lenient, eed, scored).

    A problem whose sub-answers were all scored gets ``strict_acc``/``lenient_acc``/``eed`` (the
    share of correct sub-answers) and ``all_correct``. One with unscored sub-answers gets only
    ``scored`` (the share that was) and the over-all accuracies ``strict_acc_all``/``lenient_acc_all``
    (correct sub-answers out of all of them): one right and three unscored is never a 1.0.
    """
    scored = [s for s in subs if s['scored']]
    value = {SCORED: len(scored) / len(subs),
             STRICT_ALL: sum(bool(s.get('strict')) for s in subs) / len(subs),
             LENIENT_ALL: sum(bool(s.get('lenient')) for s in subs) / len(subs)}
    if len(scored) == len(subs):
        for name, key in ((STRICT, 'strict'), (LENIENT, 'lenient'), (EED, 'eed')):
            mean = _mean([float(s[key]) for s in subs if s.get(key) is not None])
            if mean is not None:
                value[name] = mean
        value[ALL_CORRECT] = float(all(s['strict'] for s in subs))
    return value


@register_benchmark(
    BenchmarkMeta(
        name='physreason',
        pretty_name='PhysReason',
        dataset_id='zhibei1204/PhysReason',
        hf_dataset_id='zhibei1204/PhysReason',
        tags=[Tags.REASONING, Tags.MATH],
        description=DESCRIPTION,
        paper_url='https://arxiv.org/abs/2502.12054',
        subset_list=SUBSET_LIST,
        metric_list=[STRICT, LENIENT, ALL_CORRECT, EED, SCORED, STRICT_ALL, LENIENT_ALL],
        primary_metric=STRICT,
        eval_split='test',
        prompt_template=PROMPT_TEMPLATE,
    )
)
class PhysReasonAdapter(RecordLoader, RulesFirstJudgeMixin, DefaultDataAdapter):
    """Scores each sub-answer through the engine; the judge (optional) sees only undecided ones."""

    def dataset_files(self) -> Tuple[List[Path], str]:
        """A release folder's ``problem.json`` files, else one JSON/JSONL file of records."""
        root = locate_dataset(self, allow_file_pattern=['*.json', '*.jsonl'])
        files = sorted(root.rglob(PROBLEM_FILE)) if root.is_dir() else []
        self._release_folder = bool(files)
        if files:
            return files, str(root)
        path = find_data_file(root, DATA_FILES, 'PhysReason')
        return [path], str(path)

    def read_file(self, path: Path) -> List[Dict[str, Any]]:
        if self._release_folder:
            return [release_problem(path)]
        return [normalise_record(r) if isinstance(r, dict) else {'id': '?', 'broken': 'not a JSON object'}
                for r in read_rows(path)]

    def sort_record(self, record: Dict[str, Any], path: Path, row: int) -> Placement:
        reason = self._exclusion(record)
        return Excluded(reason, record['id']) if reason else Kept(record['difficulty'], record)

    def _exclusion(self, problem: Dict[str, Any]) -> Optional[str]:
        if problem.get('broken'):
            return problem['broken']
        if not problem['sub_questions']:
            return 'no sub-questions'
        if len(problem['answers']) != len(problem['sub_questions']) or not all(a.strip() for a in problem['answers']):
            return 'answers do not match the sub-questions'
        if problem['difficulty'] not in self.subset_list:
            return 'difficulty not in subset_list'
        return None

    def record_to_sample(self, record: Dict[str, Any]) -> Sample:
        parts = [record['context']]
        if record['caption']:
            parts.append(f'Figure description: {record["caption"]}')
        parts += [f'({i}) {q}' for i, q in enumerate(record['sub_questions'], 1)]
        return Sample(
            input='\n\n'.join(p for p in parts if p),
            target=json.dumps(record['answers'], ensure_ascii=False),
            metadata={'id': record['id'], 'difficulty': record['difficulty'], 'answers': record['answers'],
                      'solution': record.get('solution', '')},  # for `evalscope-phys error-analysis`
        )

    def format_prompt_template(self, sample: Sample) -> str:
        return self.prompt_template.format(count=len(sample.metadata['answers']), question=sample.input)

    def match_score(
        self, original_prediction: str, filtered_prediction: str, reference: str, task_state: TaskState
    ) -> Score:
        references = task_state.metadata['answers']
        verdict = score_answer(references, original_prediction, multiple='ordered')
        if verdict.parts:
            subs = [p.to_dict() for p in verdict.parts]
        else:  # the whole answer was unscored (timeout, unreadable reference): every part is
            subs = [verdict.to_dict() for _ in references]
        score = Score(prediction=original_prediction, extracted_prediction=' ; '.join(s['extracted'] or '' for s in subs))
        score.main_score_name = STRICT
        score.value = sub_answer_metrics(subs)
        score.explanation = ', '.join(f'({i}) {s["reason"]}' for i, s in enumerate(subs, 1))
        score.metadata = {'sub_verdicts': subs}
        if not any(s['scored'] for s in subs):
            score.status = ScoreStatus.DEGRADED
        return score

    def judge_pending(self, rule_score: Score, context) -> Dict[str, Tuple[str, str]]:
        """One judge case per sub-answer the routing sends (by default: the rules cannot decide it)."""
        references = context.task_state.metadata['answers']
        subs = (rule_score.metadata or {}).get('sub_verdicts') or []
        answers = {f'sub_{i}': (sub, ref, sub.get('extracted') or '')
                   for i, (ref, sub) in enumerate(zip(references, subs), 1)}
        return route_answers(rule_score, answers, self.judge_scope)

    def judge_resolve(self, rule_score: Score, decisions: Dict[str, Decision]) -> Dict[str, float]:
        """Judge decisions replace the undecided sub-answers' verdicts; problem metrics are recomputed."""
        subs = [dict(s) for s in rule_score.metadata['sub_verdicts']]
        for key, decision in decisions.items():
            sub = subs[int(key.split('_')[1]) - 1]
            if decision == FAILED:  # the judge call failed: unscored, never the rule's 0
                sub.update(strict=None, lenient=None, eed=None, scored=False)
            elif decision is not None:
                sub.update(strict=decision, lenient=decision, scored=True)
        return sub_answer_metrics(subs)
