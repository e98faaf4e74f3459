"""PHYSICS (Yale) text-only and PHYSICS-Verified: multi-part problems, each reference answer scored on its own."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from evalscope.api.benchmark import BenchmarkMeta, DefaultDataAdapter
from evalscope.api.dataset import Sample
from evalscope.api.evaluator import TaskState
from evalscope.api.metric import Score
from evalscope.api.registry import register_benchmark
from evalscope.constants import ScoreStatus, Tags

from evalscope_phys import compat
from evalscope_phys.benchmarks.base import DatasetUnavailableError, Excluded, Kept, Placement, RecordLoader, \
    locate_dataset
from evalscope_phys.judge.rules_first import FAILED, Decision, RulesFirstJudgeMixin, record_routes
from evalscope_phys.judge.routing import needs_judge, refuse_grader_address
from evalscope_phys.benchmarks.multipart import score_parts
from evalscope_phys.scoring.metrics import ANSWER, LENIENT, LENIENT_ALL, PARTIAL, SCORED, STRICT, STRICT_ALL

#: report subsets: the six PHYSICS domains (file names of the release, ``domain`` of PHYSICS-Verified)
SUBSET_LIST = ['atomic', 'electro', 'mechanics', 'optics', 'quantum', 'statistics']
#: words in a domain name (or a file name, or an id prefix) -> subset, the first that occurs wins:
#: 'Quantum Mechanics' is quantum and 'Statistical Mechanics' statistics, not mechanics
DOMAIN_WORDS = (('atom', 'atomic'), ('quantum', 'quantum'), ('statist', 'statistics'), ('thermo', 'statistics'),
                ('optic', 'optics'), ('electr', 'electro'), ('magnet', 'electro'), ('mechanic', 'mechanics'))
SPLITS = ('all', 'validation', 'test')
#: a release folder: the text-only files when present (the full release also has figure problems)
TEXT_ONLY_FILES = '*textonly*.jsonl'
DATA_FILES = ('*.jsonl', '*.json')

PROMPT_TEMPLATE = (
    'Solve the following physics problem. Reason step by step. End with the final answer of every result '
    'the question asks for, each in its own \\boxed{{}} and in the order asked; when the question labels '
    'its parts, start each box with the label, for example \\boxed{{(a)\\ v = \\sqrt{{2 g h}}}} '
    '\\boxed{{(b)\\ 4.9\\,\\mathrm{{m/s^2}}}}. Give units where the answer has them.\n\n{question}'
)

DESCRIPTION = """
## Overview

PHYSICS (Feng et al., 2025, arXiv 2503.21821, Yale NLP) has 1,297 PhD-qualifying-exam problems in six
domains (atomic, electromagnetism, mechanics, optics, quantum, statistical physics); its text-only
release has 999 of them with 2,575 final answers. PHYSICS-Verified (`yale-nlp/physics-verified`) is
its audited successor: 1,109 problems, ~2,800 answers, each answer labelled (`(a)`, `(b)(ii)`, or an
ordinal) and typed (`numeric`, `symbolic`, `text`).

## Task Description

- **Input**: the problem text (problems that need a figure are excluded: this adapter is text-only)
- **Output**: one `\\boxed{}` final answer per requested result, in order, labelled when the question is
- **Subsets**: `atomic`, `electro`, `mechanics`, `optics`, `quantum`, `statistics`

## Evaluation Notes

- Every reference answer is scored on its own by the evalscope-phys engine: the response's labelled
  parts are paired with the reference answers when it labels as many, else the answers are matched
  in order (boxes or list items); a missing one is `no_answer`.
- Per problem (PHYSICS-Verified's metrics): `strict_acc` (primary) is 1 when every answer is strictly
  correct; `lenient_acc` the same within relative 1e-2 (PHYSICS-Verified's 1% numeric rule; its
  "same significant figures" clause is not applied); `partial` is the share of its answers that are
  correct; `answer_acc` is answer-level accuracy (weighted by answers, aggregation `weighted_mean`);
  `scored` is the share of a problem's answers the engine could score. A problem with an unscored
  answer drops out of `strict_acc`/`lenient_acc`/`partial` (never a silent 0); `strict_acc_all`/
  `lenient_acc_all` count it as wrong.
- With `--judge`, each answer the rules cannot decide (prose, an unknown unit, several candidate
  values in one labelled part) goes to the judge on its own; `judged`/`cannot_judge` report shares.
- `extra_params.split`: `all` (default), `validation` or `test` -- PHYSICS-Verified's split files.
- Data: `dataset_args.physics_yale.local_path` may be the PHYSICS release folder (its
  `PHYSICS-textonly/*.jsonl` are used when present), PHYSICS-Verified's JSONL files, or one file.
  Records are PHYSICS (`id`, `questions`, `final_answers`, `graphs`) or PHYSICS-Verified (`id`,
  `domain`, `questions`, `final_answers`, `answer_labels`, `answer_types`, `figures`); rows with no
  question or answer, with figures, or with an unknown domain are excluded with a logged count.
"""


def domain_subset(*names: object) -> Optional[str]:
    """The subset of the first name that tells the domain (``'Optics'``, ``'optics/2-68'``, a file name)."""
    for name in names:
        text = str(name or '').lower()
        for word, subset in DOMAIN_WORDS:
            if word in text:
                return subset
    return None


def _answers(value: Any) -> List[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    return [str(a) if not isinstance(a, str) else a for a in value]


def normalise_record(record: Any, source: str) -> Dict[str, Any]:
    """One problem in one shape, from a PHYSICS or a PHYSICS-Verified row (``broken`` says why not)."""
    if not isinstance(record, dict):
        return {'id': '?', 'broken': 'not a JSON object'}
    problem_id = str(record.get('id') or record.get('problem_id') or '?')
    answers = _answers(record.get('final_answers', record.get('final_answer')))
    labels = [str(x) for x in record.get('answer_labels') or []]
    types = [str(x) for x in record.get('answer_types') or []]
    question = record.get('questions', record.get('question'))
    problem = {
        'id': problem_id,
        'question': str(question or '').replace('\ufeff', '').strip(),
        'answers': answers,
        'labels': labels if len(labels) == len(answers) else [],
        'types': types if len(types) == len(answers) else [],
        # the release's file names are its domains; its id prefixes mix in longer names ('Quantum Mechanics/...')
        'domain': domain_subset(record.get('domain'), source, problem_id.split('/')[0] if '/' in problem_id else ''),
        'figures': bool(record.get('graphs') or record.get('figures') or record.get('images')),
    }
    return problem


def data_files(root: Path, split: str) -> List[Path]:
    """The JSON/JSONL files to read under ``root`` (or ``root`` itself), honouring ``split``."""
    if root.is_file():
        return [root]
    files = sorted(root.rglob(TEXT_ONLY_FILES)) or sorted(p for pattern in DATA_FILES for p in root.rglob(pattern))
    files = [p for p in files if not p.name.startswith('.')]
    if not files:
        raise DatasetUnavailableError(f'No PHYSICS file ({TEXT_ONLY_FILES}, {", ".join(DATA_FILES)}) found under {root}.')
    if split != 'all':
        chosen = [p for p in files if split in p.name.lower()]
        if not chosen:
            raise DatasetUnavailableError(f'physics_yale: no {split!r} file under {root} '
                                          f'(found {", ".join(p.name for p in files[:6])}); use split "all".')
        files = chosen
    return files


def answer_metrics_and_weights(subs: Sequence[Dict[str, Any]]) -> Tuple[Dict[str, float], Dict[str, int]]:
    """Per-problem metric values and their weights from the answers' verdicts (strict, lenient, scored).

    ``answer_acc`` is over the scored answers (weight: their number, so the report's mean is
    answer-level); ``scored`` is the problem's share of scored answers; ``strict_acc``,
    ``lenient_acc`` and ``partial`` need every answer scored.
    """
    n = len(subs)
    scored = [s for s in subs if s.get('scored')]
    values = {SCORED: len(scored) / n, STRICT_ALL: float(all(s.get('strict') for s in subs)),
              LENIENT_ALL: float(all(s.get('lenient') for s in subs))}
    weights = {}
    if scored:
        values[ANSWER] = sum(bool(s.get('strict')) for s in scored) / len(scored)
        weights[ANSWER] = len(scored)
    if len(scored) == n:
        values[STRICT] = float(all(s.get('strict') for s in subs))
        values[LENIENT] = float(all(s.get('lenient') for s in subs))
        values[PARTIAL] = sum(bool(s.get('strict')) for s in subs) / n
    return values, weights


@register_benchmark(
    BenchmarkMeta(
        name='physics_yale',
        pretty_name='PHYSICS (Yale)',
        dataset_id='yale-nlp/physics-verified',
        hf_dataset_id='yale-nlp/physics-verified',
        tags=[Tags.REASONING, Tags.MATH],
        description=DESCRIPTION,
        paper_url='https://arxiv.org/abs/2503.21821',
        subset_list=SUBSET_LIST,
        metric_list=[STRICT, LENIENT, ANSWER, PARTIAL, SCORED, STRICT_ALL, LENIENT_ALL],
        primary_metric=STRICT,
        aggregation='weighted_mean',
        eval_split='test',
        prompt_template=PROMPT_TEMPLATE,
        extra_params={'split': {'type': 'str', 'description': f'Which split files to read: one of {list(SPLITS)}.',
                                'value': 'all', 'choices': list(SPLITS)}},
    )
)
class PhysicsYaleAdapter(RecordLoader, RulesFirstJudgeMixin, DefaultDataAdapter):
    """Scores each reference answer through the engine; the judge (optional) sees only undecided ones."""

    def dataset_files(self) -> Tuple[List[Path], Path]:
        split = str(self.extra_params.get('split') or 'all').lower()
        if split not in SPLITS:
            raise ValueError(f'physics_yale: unknown split {split!r}; choose from {list(SPLITS)}')
        root = locate_dataset(self, allow_file_pattern=list(DATA_FILES))
        files = data_files(root, split)
        return files, files[0] if len(files) == 1 else root

    def sort_record(self, record: Any, path: Path, row: int) -> Placement:
        problem = normalise_record(record, path.stem)
        reason = self._exclusion(problem)
        return Excluded(reason, problem['id']) if reason else Kept(problem['domain'], problem)

    def _exclusion(self, problem: Dict[str, Any]) -> Optional[str]:
        if problem.get('broken'):
            return problem['broken']
        if not problem['question']:
            return 'no question text'
        if not problem['answers'] or not all(a.strip() for a in problem['answers']):
            return 'no final answer (or an empty one)'
        if problem['figures']:
            return 'needs a figure (this adapter is text-only)'
        if problem['domain'] not in self.subset_list:
            return 'domain not in subset_list'
        return None

    def record_to_sample(self, record: Dict[str, Any]) -> Sample:
        return Sample(
            input=record['question'],
            target=json.dumps(record['answers'], ensure_ascii=False),
            metadata={'id': record['id'], 'domain': record['domain'], 'answers': record['answers'],
                      'labels': record['labels'], 'types': record['types']},
        )

    def format_prompt_template(self, sample: Sample) -> str:
        return self.prompt_template.format(question=sample.input)

    def match_score(
        self, original_prediction: str, filtered_prediction: str, reference: str, task_state: TaskState
    ) -> Score:
        matched = score_parts(task_state.metadata['answers'], original_prediction, question=task_state.input_text,
                              labels=task_state.metadata.get('labels') or ())
        subs = [p.to_dict() for p in matched.parts]
        values, weights = answer_metrics_and_weights(subs)
        score = Score(prediction=original_prediction,
                      extracted_prediction=' ; '.join(s['extracted'] or '' for s in subs))
        score.main_score_name = STRICT
        score.value = values
        score.explanation = f'{matched.matched_by}: ' + ', '.join(f'({i}) {s["reason"]}' for i, s in enumerate(subs, 1))
        score.metadata = {'sub_verdicts': subs, 'matched_by': matched.matched_by, compat.metric_weights_key(): weights}
        if not any(s['scored'] for s in subs):
            score.status = ScoreStatus.DEGRADED
        return score

    def judge_pending(self, rule_score: Score, context) -> Dict[str, Tuple[str, str]]:
        """Answers the routing sends (scope as configured), and every labelled part that offers several values."""
        references = context.task_state.metadata['answers']
        labelled = rule_score.metadata.get('matched_by') == 'label'
        routes, pending = {}, {}
        for i, (ref, sub) in enumerate(zip(references, rule_score.metadata['sub_verdicts']), 1):
            key = f'part_{i}'
            flag, why = needs_judge(sub, ref, self.judge_scope)
            if not flag and labelled and sub.get('reason') == 'count_mismatch':
                flag, why = True, 'multi_part_answer'  # a labelled part offering several values: which one?
            flag, why = refuse_grader_address(flag, why, sub.get('extracted') or '')
            sub.update(needs_judge=flag, judge_reason=why)
            routes[key] = (flag, why)
            if flag:
                pending[key] = (ref, sub.get('extracted') or '')
        record_routes(rule_score, routes)
        return pending

    def judge_resolve(self, rule_score: Score, decisions: Dict[str, Decision]) -> Dict[str, float]:
        """Judge decisions replace the undecided answers' verdicts; problem values and weights are recomputed."""
        subs = [dict(s) for s in rule_score.metadata['sub_verdicts']]
        for key, decision in decisions.items():
            sub = subs[int(key.split('_')[1]) - 1]
            if decision == FAILED:  # the judge call failed: unscored, never the rule's 0
                sub.update(strict=None, lenient=None, scored=False)
            elif decision is not None:
                sub.update(strict=decision, lenient=decision, scored=True)
        values, weights = answer_metrics_and_weights(subs)
        # the final Score takes its metadata (and so these weights) from the rule score
        rule_score.metadata[compat.metric_weights_key()] = weights
        return values
