"""Load pools and eval sets (JSON / JSONL / Parquet) into items with stable ids and normalised text.

Normalisation (applied before n-gram matching, see :func:`normalise`), in this order:

1. Unicode NFKC (full-width digits, ligatures and compatibility forms fold to one spelling);
2. case folding (``str.casefold``);
3. LaTeX spacing and sizing commands (``\\,`` ``\\;`` ``\\:`` ``\\!`` ``\\quad`` ``\\qquad``
   ``\\ `` ``~`` ``\\left`` ``\\right`` ``\\displaystyle`` ...) become a space, so ``2\\,\\mathrm{m}``
   and ``2 \\mathrm{m}`` match;
4. every character that is not a letter, digit or whitespace (punctuation and symbols:
   ``$ \\ { } ^ _ ( ) . , ; = +`` ...) becomes a space, so formula tokens are compared as words
   (``\\frac{a}{b}`` -> ``frac a b``);
5. runs of whitespace collapse to one space.

Item ids are stable across runs: the value of the id field (``--*-id-field``; by default the first
of ``id``/``index``/``uid`` that every record has with unique values), else the row number.
"""
from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

AUTO_TEXT_FIELDS: Tuple[str, ...] = ('problem', 'question', 'content', 'text', 'prompt')
AUTO_ID_FIELDS: Tuple[str, ...] = ('id', 'index', 'uid')
SUPPORTED_SUFFIXES = ('.json', '.jsonl', '.parquet')

_LATEX_SPACING = re.compile(
    r'\\(?:[,;:!> ]|quad\b|qquad\b|enspace\b|thinspace\b|medspace\b|thickspace\b|hspace\*?\{[^}]*\}'
    r'|left\b|right\b|bigl?\b|bigr?\b|Bigl?\b|Bigr?\b|displaystyle\b|textstyle\b)|~')
_WHITESPACE = re.compile(r'\s+')
_NOT_WORD = re.compile(r'[^\w\s]|_')


class CorpusError(ValueError):
    """Input that cannot be audited (unreadable file, missing text field, duplicate ids)."""


@dataclass(frozen=True)
class Item:
    """One problem: its stable id, the text that is compared, and the row it came from."""

    id: str
    text: str
    row: int


@dataclass(frozen=True)
class Corpus:
    """A pool or eval set as loaded; ``records`` keeps the original rows for ``--write-clean``."""

    name: str
    path: Path
    items: Tuple[Item, ...]
    records: Tuple[Dict[str, Any], ...] = field(repr=False)
    text_fields: Tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.items)

    @property
    def texts(self) -> List[str]:
        return [item.text for item in self.items]


def _spaced(text: str) -> str:
    text = unicodedata.normalize('NFKC', text).casefold()
    return _NOT_WORD.sub(' ', _LATEX_SPACING.sub(' ', text))


def normalise(text: str) -> str:
    """Return the comparison form of ``text`` (see the module docstring for the steps)."""
    return _WHITESPACE.sub(' ', _spaced(text)).strip()


def tokens(text: str) -> List[str]:
    """Word tokens of the normalised text (``normalise(text).split()``, one regex pass fewer)."""
    return _spaced(text).split()


def read_corpus_rows(path: Path) -> List[Dict[str, Any]]:
    """Rows of a JSON list (or ``{"data": [...]}``-style wrapper), JSONL or Parquet file."""
    path = Path(path)
    if not path.is_file():
        raise CorpusError(f'{path}: no such file')
    suffix = path.suffix.lower()
    if suffix == '.parquet':
        try:
            import pyarrow.parquet as pq
        except ImportError as exc:  # pragma: no cover - pyarrow is an audit dependency
            raise CorpusError(f'{path}: reading Parquet needs pyarrow (pip install pyarrow)') from exc
        return pq.read_table(path).to_pylist()
    if suffix == '.jsonl':
        rows = []
        with path.open(encoding='utf-8') as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise CorpusError(f'{path}:{lineno}: not valid JSON ({exc.msg})') from exc
        return _check_rows(path, rows)
    if suffix == '.json':
        try:
            data = json.loads(path.read_text(encoding='utf-8'))
        except json.JSONDecodeError as exc:
            raise CorpusError(f'{path}: not valid JSON ({exc.msg} at line {exc.lineno})') from exc
        if isinstance(data, dict):
            lists = [v for v in data.values() if isinstance(v, list)]
            if len(lists) != 1:
                raise CorpusError(f'{path}: expected a JSON list of records or an object holding one list')
            data = lists[0]
        if not isinstance(data, list):
            raise CorpusError(f'{path}: expected a JSON list of records')
        return _check_rows(path, data)
    raise CorpusError(f'{path}: unsupported file type {suffix!r} (use one of {", ".join(SUPPORTED_SUFFIXES)})')


def _check_rows(path: Path, rows: List[Any]) -> List[Dict[str, Any]]:
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise CorpusError(f'{path}: record {i} is a {type(row).__name__}, not an object')
    return rows


def field_text(value: Any) -> str:
    """Text of one field value; lists (e.g. OlympiadBench ``solution``) are joined by blank lines."""
    if value is None:
        return ''
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return '\n\n'.join(field_text(v) for v in value if v is not None)
    return str(value)


def item_text(row: Dict[str, Any], fields: Sequence[str]) -> str:
    """The compared text of one record: its non-empty fields joined by a blank line."""
    return '\n\n'.join(t for t in (field_text(row.get(f)) for f in fields) if t)


def check_text_fields(path: Path, index: int, row: Dict[str, Any], fields: Sequence[str]) -> None:
    """Refuse a record that holds none of ``fields`` but has text under another name.

    Why: read as empty text, such a record matched nothing and an exact copy of an eval item stayed
    in the "clean" pool.
    """
    if any(row.get(f) is not None for f in fields):
        return
    others = sorted(k for k, v in row.items() if isinstance(v, str) and v.strip())
    if others:
        raise CorpusError(f'{path}: record {index} has none of the text fields {list(fields)} but has text under '
                          f'{others[:8]}; name the field(s) with --pool-fields/--eval-fields')


def resolve_text_fields(path: Path, rows: Sequence[Dict[str, Any]], fields: Sequence[str]) -> Tuple[str, ...]:
    """The requested fields, or the first of :data:`AUTO_TEXT_FIELDS` present when none are given."""
    present = set().union(*(row.keys() for row in rows)) if rows else set()
    if fields:
        missing = [f for f in fields if f not in present]
        if missing:
            raise CorpusError(f'{path}: text field(s) {missing} appear in no record '
                              f'(fields seen: {sorted(present)[:20]})')
        return tuple(fields)
    for name in AUTO_TEXT_FIELDS:
        if name in present:
            return (name,)
    raise CorpusError(f'{path}: none of the default text fields {list(AUTO_TEXT_FIELDS)} is present; '
                      f'name one with --pool-fields/--eval-fields (fields seen: {sorted(present)[:20]})')


def _resolve_ids(path: Path, rows: Sequence[Dict[str, Any]], id_field: Optional[str]) -> List[str]:
    if id_field:
        ids = []
        for i, row in enumerate(rows):
            if row.get(id_field) is None:
                raise CorpusError(f'{path}: record {i} has no id field {id_field!r}')
            ids.append(str(row[id_field]))
        seen = set()
        dups = [x for x in ids if x in seen or seen.add(x)]
        if dups:
            raise CorpusError(f'{path}: id field {id_field!r} is not unique (e.g. {dups[0]!r})')
        return ids
    for name in AUTO_ID_FIELDS:
        values = [row.get(name) for row in rows]
        if rows and all(v is not None for v in values) and len({str(v) for v in values}) == len(rows):
            return [str(v) for v in values]
    return [str(i) for i in range(len(rows))]


def load_corpus(path: Path | str, text_fields: Sequence[str] = (), id_field: Optional[str] = None,
                name: Optional[str] = None) -> Corpus:
    """Load ``path``; the compared text is the chosen fields joined by blank lines."""
    path = Path(path)
    rows = read_corpus_rows(path)
    fields = resolve_text_fields(path, rows, text_fields)
    ids = _resolve_ids(path, rows, id_field)
    for i, row in enumerate(rows):
        check_text_fields(path, i, row, fields)
    items = tuple(Item(id=ids[i], text=item_text(row, fields), row=i) for i, row in enumerate(rows))
    return Corpus(name=name or path.stem, path=path, items=items, records=tuple(rows), text_fields=fields)


def write_records(path: Path, rows: Sequence[Dict[str, Any]], like: Path) -> None:
    """Write ``rows`` in the format of ``like`` (JSON list, JSONL or Parquet)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    suffix = like.suffix.lower()
    tmp = path.with_name(path.name + '.tmp')
    if suffix == '.parquet':
        import pyarrow as pa
        import pyarrow.parquet as pq
        pq.write_table(pa.Table.from_pylist(list(rows)), tmp)
    elif suffix == '.jsonl':
        with tmp.open('w', encoding='utf-8') as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + '\n')
    else:
        tmp.write_text(json.dumps(list(rows), ensure_ascii=False, indent=1), encoding='utf-8')
    tmp.replace(path)
