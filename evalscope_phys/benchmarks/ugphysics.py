"""UGPhysics: undergraduate physics problems in 13 subjects, English and Chinese, with typed answers."""
from __future__ import annotations

import re
from dataclasses import asdict
from pathlib import Path
from typing import Any, Dict, List, Tuple

from evalscope.api.benchmark import BenchmarkMeta, DefaultDataAdapter
from evalscope.api.dataset import Sample
from evalscope.api.evaluator import TaskState
from evalscope.api.metric import Score
from evalscope.api.registry import register_benchmark
from evalscope.constants import Tags

from evalscope_phys.benchmarks.base import (
    EN_ZH, DatasetUnavailableError, Excluded, Kept, Placement, RecordLoader, chosen_languages, languages_param,
    locate_dataset,
)
from evalscope_phys.benchmarks.typed_answers import AnswerPart, build_parts, parse_answer_types, score_typed_parts
from evalscope_phys.scoring.metrics import EED, LENIENT, LENIENT_ALL, SCORED, STRICT, STRICT_ALL, verdict_score

#: the official evaluator's relative tolerance for numbers
TOLERANCE = 1e-2
#: subject (the hub config name) -> domain, which becomes the report category
SUBJECT_DOMAINS = {
    'ClassicalMechanics': 'Mechanics and Thermodynamics',
    'TheoreticalMechanics': 'Mechanics and Thermodynamics',
    'Relativity': 'Mechanics and Thermodynamics',
    'Thermodynamics': 'Mechanics and Thermodynamics',
    'StatisticalMechanics': 'Mechanics and Thermodynamics',
    'ClassicalElectromagnetism': 'Electromagnetism',
    'Electrodynamics': 'Electromagnetism',
    'GeometricalOptics': 'Electromagnetism',
    'WaveOptics': 'Electromagnetism',
    'AtomicPhysics': 'Modern Physics',
    'QuantumMechanics': 'Modern Physics',
    'SemiconductorPhysics': 'Modern Physics',
    'Solid-StatePhysics': 'Modern Physics',
}
SUBSET_LIST = list(SUBJECT_DOMAINS)
LANGUAGES = EN_ZH
TYPE_WORDS = {
    'en': {'NV': 'a number', 'EX': 'an expression', 'EQ': 'an equation', 'IN': 'an interval',
           'TF': 'Yes or No', 'MC': 'the letter of one option'},
    'zh': {'NV': '数值', 'EX': '表达式', 'EQ': '方程', 'IN': '区间', 'TF': '"是"或"否"', 'MC': '选项字母'},
}

PROMPT_TEMPLATE = (
    'Solve the following undergraduate physics problem. Reason step by step, then give the final answer '
    'inside one \\boxed{{}} at the end of your reply. {answer_hint}\n\n{question}'
)
PROMPT_TEMPLATE_ZH = '请解答下面的大学物理题。逐步推理，最后把最终答案写在回答末尾的一个 \\boxed{{}} 中。{answer_hint}\n\n{question}'

DESCRIPTION = """
## Overview

UGPhysics (Xu et al., 2025) has 5,520 undergraduate physics problems in 13 subjects, each in English
and Chinese, with typed final answers: numbers (`NV`), expressions (`EX`), equations (`EQ`),
intervals (`IN`), yes/no (`TF`) and multiple choice (`MC`), often several per problem.

## Task Description

- **Input**: a problem statement in English or Chinese
- **Output**: a derivation ending in one `\\boxed{}` (several answers separated by commas)
- **Subsets**: the 13 subjects (the hub configs); report categories are the three domains

## Evaluation Notes

- Every answer part is compared by its type through evalscope-phys's engine: numbers within
  relative 1e-2 as the official evaluator (`lenient_acc`, primary) and 1e-6 (`strict_acc`), units
  converted; expressions symbolically; equations by both sides; intervals by brackets and end
  points; yes/no and option letters by meaning. A problem is correct when all its parts are, in
  order. `eed` is reported for problems whose answers are all expressions; `scored` is the share
  the engine could score (a timeout is never a 0).
- `extra_params.languages`: `["en", "zh"]` (default) or one of them, read from each record's `language`.
- Records with no problem text, no answer or answer types that do not match the answer's parts are
  excluded with a logged count.
- Data: `dataset_args.ugphysics.local_path` may name the release folder (`<Subject>/en.jsonl`,
  `<Subject>/zh.jsonl`) or one JSONL file; otherwise the hub copy is used.
"""


@register_benchmark(
    BenchmarkMeta(
        name='ugphysics',
        pretty_name='UGPhysics',
        dataset_id='UGPhysics/ugphysics',
        hf_dataset_id='UGPhysics/ugphysics',
        tags=[Tags.REASONING, Tags.MATH],
        description=DESCRIPTION,
        paper_url='https://arxiv.org/abs/2502.00334',
        subset_list=SUBSET_LIST,
        metric_list=[LENIENT, STRICT, EED, SCORED, STRICT_ALL, LENIENT_ALL],
        primary_metric=LENIENT,
        eval_split='en',
        prompt_template=PROMPT_TEMPLATE,
        extra_params={'languages': languages_param(LANGUAGES)},
    )
)
class UGPhysicsAdapter(RecordLoader, DefaultDataAdapter):
    """Reads the release JSONL files; every answer part is scored by its type through the engine."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.category_map = {subject: [domain] for subject, domain in SUBJECT_DOMAINS.items()}
        self.languages = chosen_languages(self, LANGUAGES)

    def dataset_files(self) -> Tuple[List[Path], str]:
        root = locate_dataset(self, allow_file_pattern=['*/en.jsonl', '*/zh.jsonl'])
        files = [root] if root.is_file() else sorted(root.rglob('*.jsonl'))
        if not files:
            raise DatasetUnavailableError(f'ugphysics: no <Subject>/<language>.jsonl files under {root}.')
        return files, str(root)

    def sort_record(self, record: Any, path: Path, row: int) -> Placement:
        if not isinstance(record, dict):
            return Excluded('not a JSON object', '?')
        subject = subject_name(record, path)
        language = record_language(record, path)
        rid = f"{subject}-{language}-{record.get('index', '?')}"
        if language not in self.languages or (subject in SUBJECT_DOMAINS and subject not in self.subset_list):
            return None
        if subject not in SUBJECT_DOMAINS:
            return Excluded('unknown subject', rid)
        if not str(record.get('problem') or '').strip():
            return Excluded('no problem text', rid)
        if not str(record.get('answers') or '').strip():
            return Excluded('no reference answer', rid)
        try:
            parts = record_parts(record)
        except ValueError:
            return Excluded('answer types do not match the answer', rid)
        return Kept(subject, {**record, '_id': rid, '_subject': subject, '_language': language, '_parts': parts})

    def record_to_sample(self, record: Dict[str, Any]) -> Sample:
        parts: List[AnswerPart] = record['_parts']
        return Sample(
            input=record['problem'],
            target=', '.join(p.reference for p in parts),
            metadata={
                'id': record['_id'],
                'subject': record['_subject'],
                'domain': record.get('domain', ''),
                'topic': record.get('topic', ''),
                'level': record.get('level', ''),
                'language': record['_language'],
                'answer_types': [p.answer_type for p in parts],
                'parts': [asdict(p) for p in parts],
            },
        )

    def format_prompt_template(self, sample: Sample) -> str:
        meta = sample.metadata
        parts = [AnswerPart(**p) for p in meta['parts']]
        template = PROMPT_TEMPLATE_ZH if meta['language'] == 'zh' else self.prompt_template
        return template.format(question=sample.input, answer_hint=answer_hint(parts, meta['language']))

    def match_score(
        self, original_prediction: str, filtered_prediction: str, reference: str, task_state: TaskState
    ) -> Score:
        parts = [AnswerPart(**p) for p in task_state.metadata['parts']]
        verdict = score_typed_parts(parts, original_prediction, ordered=True, eed=True)
        return verdict_score(verdict, original_prediction, metrics=(EED, STRICT, LENIENT), main=LENIENT)


def subject_name(record: Dict[str, Any], path: Path) -> str:
    """The hub config name: the record's ``subject`` without spaces, else the folder name."""
    subject = re.sub(r'\s+', '', str(record.get('subject') or ''))
    return subject if subject in SUBJECT_DOMAINS else path.parent.name


def record_language(record: Dict[str, Any], path: Path) -> str:
    """``en``/``zh`` from the record (the release mixes both in one file), else from the file name."""
    language = str(record.get('language') or '').strip().lower()
    return language if language in LANGUAGES else path.stem.lower()


def record_parts(record: Dict[str, Any]) -> List[AnswerPart]:
    """Typed reference parts of one record; ``ValueError`` says why a record cannot be scored."""
    types = parse_answer_types(record.get('answer_type'))
    multiple = str(record.get('is_multiple_answer')).strip().lower() == 'true'  # a bool, or its string
    return build_parts(str(record.get('answers') or ''), types, multiple=multiple, units=record.get('unit'),
                       tolerance=TOLERANCE)


def answer_hint(parts: List[AnswerPart], language: str) -> str:
    """What kind of answer to give, how many, and in which unit."""
    words = TYPE_WORDS['zh' if language == 'zh' else 'en']
    if language == 'zh':
        kinds = '、'.join(words[p.answer_type] for p in parts)
        text = f'答案是{kinds}。' if len(parts) == 1 else f'本题有 {len(parts)} 个答案（{kinds}），按顺序用逗号隔开写在同一个 \\boxed{{}} 中。'
        units = [p.unit for p in parts if p.unit]
        return text + (f'数值答案的单位：{", ".join(units)}。' if units else '')
    kinds = ', '.join(words[p.answer_type] for p in parts)
    if len(parts) == 1:
        text = f'The answer is {kinds}.'
    else:
        text = f'There are {len(parts)} answers ({kinds}); give them in this order, separated by commas, in one \\boxed{{}}.'
    units = [p.unit for p in parts if p.unit]
    return text + (f' Units of the numerical answers: {", ".join(units)}.' if units else '')
