"""SeePhys: vision-based physics from middle school to PhD qualifying exams, scored rules first."""
from __future__ import annotations

import math
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
from evalscope_phys.benchmarks.base import (Excluded, Kept, Placement, RecordLoader, category, find_data_file,
                                            locate_dataset)
from evalscope_phys.judge.rules_first import CANNOT_JUDGE, JUDGE_FAILED, JUDGED, RulesFirstJudgeMixin
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
from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.metrics import LENIENT, LENIENT_ALL, SCORED, STRICT, STRICT_ALL, verdict_score
from evalscope_phys.scoring.read.words import CJK_RE

#: record files looked for under ``local_path``, most specific first (JSON/JSONL with image paths,
#: or the hub's parquet with the figures embedded)
DATA_FILES = ('SeePhys.jsonl', 'SeePhys.json', 'seephys.jsonl', 'seephys.json', 'total.json', '*.parquet')

#: subset name -> the spellings of the record ``level`` it covers (compared lower-case, punctuation dropped)
LEVELS: Dict[str, Tuple[str, ...]] = {
    'middle_school': ('mid', 'middle', 'middle school', 'junior high', 'junior high school'),
    'high_school': ('high', 'high school', 'senior high', 'senior high school'),
    'beginner_olympiad': ('bo', 'beginner olympiad', 'olympiad beginner'),
    'advanced_olympiad': ('ao', 'advanced olympiad', 'olympiad advanced'),
    'undergraduate': ('ug', 'undergraduate', 'undergrad'),
    'senior_undergraduate': ('sug', 'senior undergraduate', 'senior undergrad'),
    'master': ('ma', 'master', 'masters', 'master s', 'graduate'),
    'phd': ('phd', 'ph d', 'phd qualifying', 'phd qualifying exam', 'doctoral'),
}
LANGUAGES: Dict[str, Tuple[str, ...]] = {'en': ('en', 'english'), 'zh': ('zh', 'chinese', 'cn', '中文')}
VISION: Dict[str, Tuple[str, ...]] = {
    'essential': ('essential', 'vision essential', 've'),
    'optional': ('optional', 'vision optional', 'vo'),
}
#: ``extra_params.subset_by`` -> (the record's normalised label key, subsets)
GROUPINGS = {'level': ('_level', LEVELS), 'language': ('_language', LANGUAGES),
             'vision_relevance': ('_vision', VISION)}
SUBSET_LIST = list(LEVELS)
_ANSWER_TAG_RE = re.compile(r'<answer>(.*?)</answer>', re.S | re.I)

PROMPT_TEMPLATE = (
    '{question}\n\nSolve this physics problem using the figure. Reason step by step, then give the final '
    'answer, with its unit, inside one \\boxed{{}} at the end.{sig_figs}'
)
PROMPT_TEMPLATE_ZH = '{question}\n\n请结合图片解答这道物理题。逐步推理，最后把最终答案（带单位）写在一个 \\boxed{{}} 中。{sig_figs}'
SIG_FIGS = {'en': ' The final answer should keep {n} significant figures.', 'zh': '最终答案应保留{n}位有效数字。'}

DESCRIPTION = """
## Overview

SeePhys (Xiang et al., 2025) has 2,000 physics problems with 2,245 diagrams, from middle school to
PhD qualifying exams, in 7 fields and 21 diagram types; 75% are *vision-essential* (the figure holds
information the text does not). Answers are values, expressions or short statements.

## Task Description

- **Input**: the figure(s) plus the question (vision-only rows carry the whole problem in the figure)
- **Output**: a derivation ending in the final answer with its unit in `\\boxed{}` (an `<answer>` tag,
  as the official prompt asks for, is read too)
- **Subsets** (`extra_params.subset_by`): `level` (default): middle_school, high_school,
  beginner_olympiad, advanced_olympiad, undergraduate, senior_undergraduate, master, phd;
  `language`: en, zh; `vision_relevance`: essential, optional

## Evaluation Notes

- Primary metric `lenient_acc`: equal within relative 1e-2 after unit conversion; `strict_acc`:
  symbolically equal or within 1e-6; `scored`: the share the engine could score (never a silent 0).
- With `--judge` models (strategy `auto`/`llm`), only answers the rules cannot decide (text answers,
  unreadable expressions, engine timeouts) go to the judge; `judged` is their share, `cannot_judge`
  the share the judge could not decide. Without a judge the rules' verdict stands.
- A record's `sig_figs` is added to the prompt, as the official prompt does.
- Data: `dataset_args.seephys.local_path` names a file or folder holding the records, one JSON object
  per problem: `index` (or `id`), `question`, `image_path` (a path or list of paths relative to the
  record file's folder; `images` is read too, and the hub parquet's embedded image bytes), `answer`,
  `level`, `language` (English/Chinese; inferred from the text when absent), `subject`,
  `vision_relevance` (essential/optional), optional `img_category`, `sig_figs`, `caption`
  (`extra_params.use_caption` appends it). Otherwise the hub copy `SeePhys/SeePhys` is used.
- Rows without an answer, with an unknown level/language/vision label, with no figure, or whose image
  path is missing or leaves the dataset folder are excluded and counted in the log.
- Figures are sent inline as base64; figures above `max_image_bytes` (default `5mb`) are shrunk, and a sample over
  `extra_params.max_request_bytes` (default `20mb`) fails with a message naming its files.
"""


def record_language(record: Dict[str, Any]) -> Optional[str]:
    """The record's language subset; inferred from CJK characters when the field is absent."""
    if record.get('language') not in (None, ''):
        return category(record['language'], LANGUAGES)
    return 'zh' if CJK_RE.search(str(record.get('question') or '')) else 'en'


def sig_figs(value: Any) -> Optional[int]:
    """A positive significant-figure count, or None for blank/NaN/nonsense values."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return int(number) if math.isfinite(number) and number >= 1 and number == int(number) else None


def question_text(record: Dict[str, Any]) -> str:
    """The question, '' for vision-only rows (the release stores NaN/'nan' there)."""
    question = record.get('question')
    return '' if not isinstance(question, str) or question.strip().lower() == 'nan' else question.strip()


def answer_part(prediction: str) -> str:
    """The last ``<answer>`` tag's content when the reply uses the official format without a box."""
    tags = _ANSWER_TAG_RE.findall(prediction or '')
    if tags and '\\boxed' not in prediction:
        return tags[-1]
    return prediction or ''


@register_benchmark(
    BenchmarkMeta(
        name='seephys',
        pretty_name='SeePhys',
        dataset_id='SeePhys/SeePhys',
        hf_dataset_id='SeePhys/SeePhys',
        tags=[Tags.MULTI_MODAL, Tags.REASONING, Tags.QA],
        description=DESCRIPTION,
        paper_url='https://arxiv.org/abs/2505.19099',
        subset_list=SUBSET_LIST,
        metric_list=[LENIENT, STRICT, SCORED, JUDGED, CANNOT_JUDGE, JUDGE_FAILED, STRICT_ALL, LENIENT_ALL],
        primary_metric=LENIENT,
        eval_split='test',
        prompt_template=PROMPT_TEMPLATE,
        max_image_bytes=DEFAULT_MAX_IMAGE_BYTES,
        extra_params={
            MAX_REQUEST_BYTES: request_limit_param(),
            'subset_by': {'type': 'str', 'value': 'level', 'choices': list(GROUPINGS),
                          'description': 'Record field the subsets follow: level, language or vision_relevance.'},
            'use_caption': {'type': 'bool', 'value': False,
                            'description': "Append the record's figure caption to the question."},
        },
    )
)
class SeePhysAdapter(RecordLoader, FigureLimitsMixin, RulesFirstJudgeMixin, VisionLanguageAdapter):
    """Records -> figure messages; answers by the engine, the judge only for undecided ones."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.image_root: Optional[Path] = None

    def dataset_files(self) -> Tuple[List[Path], str]:
        """The record file; a parquet one stands for every parquet shard beside it."""
        grouping = self.extra_params.get('subset_by') or 'level'
        if grouping not in GROUPINGS:
            raise ValueError(f'seephys: subset_by must be one of {list(GROUPINGS)}, not {grouping!r}.')
        table = GROUPINGS[grouping][1]
        if grouping != 'level' and list(self.subset_list) == SUBSET_LIST:
            self.subset_list = list(table)
        unknown = [s for s in self.subset_list if s not in table]
        if unknown:
            raise ValueError(f'seephys: unknown subsets {unknown} for subset_by={grouping!r}; choose from {list(table)}.')
        root = locate_dataset(self, allow_file_pattern=['*.json', '*.jsonl', '*.parquet', '*.png', '*.jpg', '*.jpeg'])
        path = find_data_file(root, DATA_FILES, 'SeePhys')
        self.image_root = path.parent
        self._grouping = grouping
        files = sorted(path.parent.glob('*.parquet')) if path.suffix == '.parquet' else [path]
        return files, str(path)

    def sort_record(self, record: Any, path: Path, row: int) -> Placement:
        if not isinstance(record, dict):
            return Excluded('not a JSON object', '?')
        rid = str(record.get('index', record.get('id', '?')))
        record = {**record, '_level': category(record.get('level'), LEVELS),
                  '_language': record_language(record),
                  '_vision': category(record.get('vision_relevance'), VISION)}
        problem = self._problem(record)
        if problem is not None:
            return Excluded(problem, rid)
        subset = record[GROUPINGS[self._grouping][0]]
        return Excluded(f'no {self._grouping}', rid) if subset is None else Kept(subset, record)

    def _problem(self, record: Dict[str, Any]) -> Optional[str]:
        """Why ``record`` cannot become a sample (the exclusion reason), or None."""
        answer = record.get('answer')
        if not isinstance(answer, (str, int, float)) or isinstance(answer, bool) or not str(answer).strip():
            return 'no reference answer'
        if record['_level'] is None:
            return 'unknown level'
        if record['_language'] is None:
            return 'unknown language'
        if record.get('vision_relevance') not in (None, '') and record['_vision'] is None:
            return 'unknown vision_relevance'
        embedded = self._embedded(record)
        if embedded is not None:
            return None if embedded else 'no image'
        return check_images(self.image_root, self._image_field(record))

    @staticmethod
    def _image_field(record: Dict[str, Any]) -> Any:
        value = record.get('image_path')
        return value if value not in (None, '', []) else record.get('images')

    @staticmethod
    def _embedded(record: Dict[str, Any]) -> Optional[List[bytes]]:
        """Figure bytes embedded in a parquet row, or None when the row names image files instead."""
        value = record.get('images', record.get('image'))
        items = value if isinstance(value, list) else [value]
        if not items or not all(isinstance(item, dict) for item in items):
            return None
        return [item['bytes'] for item in items if isinstance(item.get('bytes'), (bytes, bytearray)) and item['bytes']]

    def _figures(self, record: Dict[str, Any]) -> List[str]:
        embedded = self._embedded(record)
        if embedded is not None:
            return [compat.image_bytes_to_base64(self, bytes(data), default_format='png')
                    for data in embedded]
        return [image_data_uri(self, resolve_image(self.image_root, name))
                for name in image_names(self._image_field(record))]

    @figure_limits
    def record_to_sample(self, record: Dict[str, Any]) -> Sample:
        language = record['_language']
        question = question_text(record)
        if self.extra_params.get('use_caption') and isinstance(record.get('caption'), str):
            question = f'{question}\n{record["caption"].strip()}'.strip()
        figures_n = sig_figs(record.get('sig_figs'))
        template = PROMPT_TEMPLATE_ZH if language == 'zh' and self.prompt_template == PROMPT_TEMPLATE \
            else self.prompt_template
        text = template.format(question=question,
                               sig_figs=SIG_FIGS[language].format(n=figures_n) if figures_n else '')
        figures = self._figures(record)
        metadata = {
            'id': str(record.get('index', record.get('id', ''))), 'level': record['_level'], 'language': language,
            'vision_relevance': record['_vision'], 'subject': record.get('subject'),
            'img_category': record.get('img_category'), 'sig_figs': figures_n,
        }
        return Sample(input=figure_message(text, figures), target=str(record['answer']).strip(), metadata=metadata)

    def match_score(
        self, original_prediction: str, filtered_prediction: str, reference: str, task_state: TaskState
    ) -> Score:
        verdict = score_answer(reference, answer_part(original_prediction), eed=False)
        return verdict_score(verdict, original_prediction, metrics=(STRICT, LENIENT), main=LENIENT)
