"""OlympiadBench-Physics: olympiad physics problems scored with each record's tolerance, unit and answer list."""
from __future__ import annotations

import base64
import functools
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any, Dict, List, Tuple

from evalscope.api.benchmark import BenchmarkMeta, VisionLanguageAdapter
from evalscope.api.dataset import Sample
from evalscope.api.evaluator import TaskState
from evalscope.api.messages import ChatMessageUser, ContentImage, ContentText
from evalscope.api.metric import Score
from evalscope.api.registry import register_benchmark
from evalscope.constants import Tags

from evalscope_phys import compat
from evalscope_phys.benchmarks.base import (
    EN_ZH, DatasetUnavailableError, Excluded, Kept, Placement, RecordLoader, chosen_languages, languages_param,
    locate_dataset,
)
from evalscope_phys.benchmarks.vision import (
    DEFAULT_MAX_IMAGE_BYTES, MAX_REQUEST_BYTES, FigureLimitsMixin, figure_limits, request_limit_param,
)
from evalscope_phys.benchmarks.typed_answers import (
    AnswerPart, absolute_to_relative, build_parts, parse_answer_types, score_typed_parts, split_labels,
)
from evalscope_phys.scoring.metrics import EED, LENIENT, LENIENT_ALL, SCORED, STRICT, STRICT_ALL, verdict_score
from evalscope_phys.scoring.verdict import Verdict

#: the original release's file (``data.zip``); hub copies hold one file per subset instead
RELEASE_FILES = ('English_Olympiad_Physics.json', 'Chinese_Olympiad_Physics.json')
DATA_SUFFIXES = ('.json', '.jsonl', '.parquet')
TEXT_ONLY, WITH_IMAGES = 'text_only', 'with_images'
SUBSET_LIST = [TEXT_ONLY, WITH_IMAGES]
LANGUAGES = EN_ZH
#: answer types that name no checkable final answer
HUMAN_ONLY_TYPES = ('need_human_evaluate',)
_MARKDOWN_IMAGE_RE = re.compile(r'!\[[^\]]*\]\(\s*(https?://[^)\s]+)\s*\)')
_IMAGE_TAG_RE = re.compile(r'<image_(\d+)>')
TYPE_HINTS = {'NV': 'a numerical value', 'EX': 'an expression', 'EQ': 'an equation', 'IN': 'an interval',
              'TF': 'yes or no', 'MC': 'an option letter'}

PROMPT_TEMPLATE = (
    'Solve the following physics olympiad problem. Reason step by step, then give the final answer '
    'inside one \\boxed{{}} at the end of your reply. {answer_hint}\n\n{question}'
)

DESCRIPTION = """
## Overview

OlympiadBench (He et al., 2024) collects olympiad and entrance-exam problems in mathematics and
physics; this benchmark is its physics part, scored with each record's own tolerance, unit and
answer list, which the upstream `olympiad_bench` adapter has no notion of.

## Task Description

- **Input**: an olympiad physics problem (with its shared context, when the hub layout has one)
- **Output**: a derivation ending in one `\\boxed{}` (several answers separated by commas)
- **Subsets**: `text_only` (default) and `with_images` (problems that show a figure; the image is
  sent as a URL or base64 picture, so it needs a vision model)

## Evaluation Notes

- Each answer part is compared through evalscope-phys's engine: `lenient_acc` (primary) within the
  record's `error` (an absolute tolerance, turned into a relative one at the reference value; the
  engine's 1e-2 when a record has none), `strict_acc` within relative 1e-6, units converted via the
  record's `unit`. Multiple answers are matched in any order; a record with several `final_answer`
  alternatives is correct when one of them is. `eed` is reported for expression answers.
- Excluded with a logged count: theorem-proving rows (no final answer), rows whose answer type is
  `Need_human_evaluate` (prose answers no rule can check), rows without question or answer, and
  rows whose answer types do not match the answer's parts.
- `extra_params.languages`: `["en", "zh"]` (default) or one of them.
- Data: `dataset_args.olympiadbench_physics.local_path` may name `English_Olympiad_Physics.json`
  (the original release), a hub file (`OE_TO_physics_en_COMP.parquet`/`.json`/`.jsonl`) or a
  folder holding them; otherwise the hub copy is downloaded.
"""


@register_benchmark(
    BenchmarkMeta(
        name='olympiadbench_physics',
        pretty_name='OlympiadBench-Physics',
        dataset_id='AI-ModelScope/OlympiadBench',
        hf_dataset_id='Hothan/OlympiadBench',
        tags=[Tags.REASONING, Tags.MATH],
        description=DESCRIPTION,
        paper_url='https://arxiv.org/abs/2402.14008',
        subset_list=[TEXT_ONLY],
        metric_list=[LENIENT, STRICT, EED, SCORED, STRICT_ALL, LENIENT_ALL],
        primary_metric=LENIENT,
        eval_split='train',
        prompt_template=PROMPT_TEMPLATE,
        max_image_bytes=DEFAULT_MAX_IMAGE_BYTES,
        extra_params={'languages': languages_param(LANGUAGES), MAX_REQUEST_BYTES: request_limit_param()},
    )
)
class OlympiadBenchPhysicsAdapter(RecordLoader, FigureLimitsMixin, VisionLanguageAdapter):
    """Reads the original release JSON or the hub files; scores with each record's tolerance and unit."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.languages = chosen_languages(self, LANGUAGES)
        unknown = set(self.subset_list) - set(SUBSET_LIST)
        if unknown:
            raise ValueError(f'olympiadbench_physics: unknown subsets {sorted(unknown)}; choose from {SUBSET_LIST}')

    def dataset_files(self) -> Tuple[List[Path], str]:
        root = locate_dataset(self, allow_file_pattern=['*physics*'])
        return data_files(root), str(root)

    def sort_record(self, record: Any, path: Path, row: int) -> Placement:
        if not isinstance(record, dict):
            return Excluded('not a JSON object', '?')
        language = record_language(record, path)
        rid = str(record.get('id', '?'))
        if language not in self.languages:
            return None
        kind = f"{record.get('label') or ''} {record.get('question_type') or ''}".lower()
        if 'theorem' in kind or 'proof' in kind:
            return Excluded('theorem proving (no final answer to score)', rid)
        if str(record.get('answer_type') or '').strip().lower() in HUMAN_ONLY_TYPES:
            return Excluded('answer needs human evaluation', rid)
        if not str(record.get('question') or '').strip():
            return Excluded('no question text', rid)
        subset = WITH_IMAGES if has_images(record) else TEXT_ONLY
        if subset not in self.subset_list:
            return None
        try:
            alternatives = record_alternatives(record)
        except ValueError as exc:
            return Excluded('no final answer' if 'no final answer' in str(exc) else 'answer types do not match the answer',
                            rid)
        return Kept(subset, {**record, '_id': rid, '_language': language, '_subset': subset,
                             '_alternatives': alternatives})

    @figure_limits
    def record_to_sample(self, record: Dict[str, Any]) -> Sample:
        alternatives: List[List[AnswerPart]] = record['_alternatives']
        question = question_text(record)
        prompt = self.prompt_template.format(question=question, answer_hint=answer_hint(alternatives[0]))
        content: List[Any] = [ContentText(text=prompt)]
        if record['_subset'] == WITH_IMAGES:
            content += [ContentImage(image=image) for image in record_images(record, functools.partial(compat.image_bytes_to_base64, self))]
        return Sample(
            input=[ChatMessageUser(content=content)],
            target=', '.join(p.reference for p in alternatives[0]),
            metadata={
                'id': record['_id'],
                'subfield': record.get('subfield', ''),
                'source': record.get('source', ''),
                'language': record['_language'],
                'answer_types': [p.answer_type for p in alternatives[0]],
                'alternatives': [[asdict(p) for p in parts] for parts in alternatives],
            },
        )

    def match_score(
        self, original_prediction: str, filtered_prediction: str, reference: str, task_state: TaskState
    ) -> Score:
        alternatives = [[AnswerPart(**p) for p in parts] for parts in task_state.metadata['alternatives']]
        verdict = best_verdict([score_typed_parts(parts, original_prediction, ordered=False, eed=True)
                                for parts in alternatives])
        return verdict_score(verdict, original_prediction, metrics=(EED, STRICT, LENIENT), main=LENIENT)


def best_verdict(verdicts: List[Verdict]) -> Verdict:
    """The alternative that scores best: strict, then lenient, then EED; unscored only if all are."""
    scored = [v for v in verdicts if v.scored]
    if not scored:
        return verdicts[0]
    return max(scored, key=lambda v: (bool(v.strict), bool(v.lenient), v.eed or 0.0))


def data_files(root: Path) -> List[Path]:
    """The release file(s) under ``root``, else every physics data file (hub layout)."""
    if root.is_file():
        return [root]
    release = [p for name in RELEASE_FILES for p in sorted(root.rglob(name))]
    if release:
        return release
    hub = [p for p in sorted(root.rglob('*')) if p.suffix in DATA_SUFFIXES and 'physics' in p.name.lower()]
    if not hub:
        raise DatasetUnavailableError(f'olympiadbench_physics: no physics data file ({", ".join(RELEASE_FILES)} '
                                      f'or *physics*.parquet/.json/.jsonl) under {root}.')
    return hub


def flag(value: Any) -> bool:
    """The release mixes booleans and ``"True"``/``"False"`` strings."""
    return value is True or str(value).strip().lower() == 'true'


def record_language(record: Dict[str, Any], path: Path) -> str:
    text = f"{record.get('language') or ''} {record.get('classification') or ''} {path.name}".lower()
    return 'zh' if ('chinese' in text or '_zh' in text) else 'en'


def question_text(record: Dict[str, Any]) -> str:
    """The question, after the shared context when the hub layout gives one."""
    question = str(record.get('question') or '').strip()
    context = str(record.get('context') or '').strip()
    return f'{context}\n\n{question}' if context and context.lower() != 'none' else question


def has_images(record: Dict[str, Any]) -> bool:
    text = question_text(record)
    return bool(_MARKDOWN_IMAGE_RE.search(text) or _IMAGE_TAG_RE.search(text)
                or any(record.get(f'image_{i}') for i in range(1, 10)))


def record_images(record: Dict[str, Any], to_data_uri: Any) -> List[str]:
    """Image URLs from the release's markdown, or the hub's ``image_N`` pictures as base64 data URIs."""
    images = _MARKDOWN_IMAGE_RE.findall(question_text(record))
    for i in range(1, 10):
        value = record.get(f'image_{i}')
        if isinstance(value, dict) and value.get('bytes'):
            images.append(to_data_uri(value['bytes']))
        elif isinstance(value, (bytes, bytearray)):
            images.append(to_data_uri(bytes(value)))
        elif isinstance(value, str) and value.startswith(('http://', 'https://', 'data:image')):
            images.append(value)
        elif isinstance(value, str) and len(value) > 100:  # bare base64
            images.append(to_data_uri(base64.b64decode(value)))
    return images


def record_alternatives(record: Dict[str, Any]) -> List[List[AnswerPart]]:
    """Each ``final_answer`` entry as typed parts with their units and tolerances."""
    finals = record.get('final_answer')
    finals = [finals] if isinstance(finals, str) else list(finals or [])
    types = parse_answer_types(record.get('answer_type'))
    multiple = flag(record.get('is_multiple_answer'))
    alternatives, problems = [], []
    for final in finals:
        text = str(final).strip()
        if not text:
            continue
        try:
            parts = build_parts(text, types, multiple=multiple, units=record.get('unit'))
        except ValueError as exc:  # one malformed alternative does not sink the others
            problems.append(str(exc))
            continue
        errors = split_labels(record.get('error'), len(parts))
        alternatives.append([AnswerPart(p.reference, p.answer_type, p.unit,
                                        absolute_to_relative(p.reference, e) if p.answer_type == 'NV' else None)
                             for p, e in zip(parts, errors)])
    if not alternatives:
        raise ValueError(problems[0] if problems else 'no final answer')
    return alternatives


def answer_hint(parts: List[AnswerPart]) -> str:
    """What kind of answer to give, how many, and in which unit."""
    kinds = ', '.join(TYPE_HINTS.get(p.answer_type, 'an expression') for p in parts)
    units = [p.unit for p in parts if p.unit]
    if len(parts) == 1:
        text = f'The answer is {kinds}.'
    else:
        text = f'There are {len(parts)} answers ({kinds}); put all of them, separated by commas, in one \\boxed{{}}.'
    if units:
        text += f' Unit of the answer: {", ".join(units)}.' if len(parts) == 1 else f' Units: {", ".join(units)}.'
    return text
