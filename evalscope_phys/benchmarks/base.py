"""What every physics adapter shares: finding its data, reading raw files, scoring through the engine.

Adapters stay thin: records -> Samples, answers -> :func:`evalscope_phys.scoring.score_answer`.
"""
from __future__ import annotations

import json
import os
import re
import socket
from pathlib import Path
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union
from urllib.parse import urlparse

from evalscope.api.dataset import DatasetDict, build_dataset_dict_from_record_map, resolve_snapshot_or_local_path
from evalscope.utils import get_logger

from evalscope_phys import compat
from evalscope_phys.errors import UserFacingError
from evalscope_phys.benchmarks.scoring_start import start_scoring_workers
from evalscope_phys.keys import check_dataset_args
from evalscope_phys.scoring.metrics import register_metric_semantics
from evalscope_phys.scoring.read.words import CJK_CHARS

logger = get_logger()
register_metric_semantics()

#: seconds to wait for a hub's TCP handshake before calling it unreachable; the hub clients'
#: own retries take 15-25 s offline, which is what this check exists to avoid
HUB_PROBE_TIMEOUT = 3.0
HUB_HOSTS = {
    'modelscope': ('MODELSCOPE_DOMAIN', 'https://www.modelscope.cn'),
    'huggingface': ('HF_ENDPOINT', 'https://huggingface.co'),
}


class DatasetUnavailableError(UserFacingError, RuntimeError):
    """Raised once, with what to do, when neither a local path nor the hub can provide the data."""


class NothingToEvaluateError(DatasetUnavailableError):
    """Every row was excluded (or none matched the chosen subsets): a run would score nothing."""


class BrokenRecordError(ValueError):
    """A dataset row that cannot become a sample; adapters count and log these instead of crashing."""


class DatasetArgsError(UserFacingError, ValueError):
    """A ``dataset_args`` key no benchmark reads; the message names the closest known key."""


def check_own_dataset_args(adapter: Any) -> None:
    """Refuse unknown keys in the adapter's ``dataset_args.<name>`` (of ``evalscope eval`` or a suite)."""
    config = compat.task_config(adapter)
    args = ((getattr(config, 'dataset_args', None) or {}).get(adapter.name) or {}) if config is not None else {}
    message = check_dataset_args(adapter.name, args) if isinstance(args, dict) else None
    if message:
        raise DatasetArgsError(message)


def hub_reachable(hub: str, timeout: float = HUB_PROBE_TIMEOUT) -> bool:
    """A TCP handshake with the hub's host: fast, and enough to tell offline from online."""
    env, default = HUB_HOSTS.get(str(hub).lower(), HUB_HOSTS['modelscope'])
    url = urlparse(os.environ.get(env) or default)
    if not url.hostname:
        return False
    try:
        with socket.create_connection((url.hostname, url.port or 443), timeout=timeout):
            return True
    except OSError:
        return False


def locate_dataset(adapter: Any, allow_file_pattern: Optional[Sequence[str]] = None) -> Path:
    """The local file/folder for ``adapter``: ``local_path`` if given, else a hub snapshot.

    Fails within seconds, naming ``dataset_args.<name>.local_path``, when the hub cannot be reached.
    A ``dataset_args.<name>`` key no benchmark reads (``localpath``) is refused first: EvalScope drops
    it, and the run would silently evaluate the hub copy instead of the user's file.
    """
    check_own_dataset_args(adapter)
    dataset_id = adapter.dataset_id
    if os.path.exists(dataset_id):
        start_scoring_workers()  # usually begun as the run started (benchmarks.scoring_start)
        return Path(dataset_id)
    hint = (
        f"Set dataset_args.{adapter.name}.local_path to a local copy, e.g. "
        f"--dataset-args '{{\"{adapter.name}\": {{\"local_path\": \"/data/{adapter.name}\"}}}}'."
    )
    if os.path.isabs(dataset_id) or dataset_id.startswith('.'):
        raise DatasetUnavailableError(f'{adapter.name}: local path {dataset_id!r} does not exist. {hint}')
    if not hub_reachable(adapter.dataset_hub):
        raise DatasetUnavailableError(
            f'{adapter.name}: the {adapter.dataset_hub} hub is unreachable, so dataset {dataset_id!r} '
            f'cannot be downloaded. {hint}'
        )
    start_scoring_workers()  # the download, if any, overlaps the boot too
    try:
        return Path(resolve_snapshot_or_local_path(adapter, allow_file_pattern=list(allow_file_pattern or [])))
    except Exception as exc:
        raise DatasetUnavailableError(f'{adapter.name}: downloading {dataset_id!r} failed ({exc}). {hint}') from exc


def find_data_file(root: Path, candidates: Iterable[str], what: str) -> Path:
    """``root`` itself if it is a file, else the first candidate name found under it."""
    if root.is_file():
        return root
    names = list(candidates)
    for name in names:
        hits = sorted(root.rglob(name))
        if hits:
            return hits[0]
    raise DatasetUnavailableError(f'No {what} file ({", ".join(names)}) found under {root}.')


class UnreadableDatasetError(DatasetUnavailableError):
    """A dataset file that cannot be read as its format; the message is ``<file>: <what is wrong>``."""


def read_rows(path: Path) -> List[Any]:
    """Rows of a JSON array, a JSON object of rows, a JSONL file or a parquet file.

    Bad JSONL lines are skipped and reported (one broken line should not stop a run); a file that
    cannot be read as its format at all raises :class:`UnreadableDatasetError` naming it.
    """
    if path.suffix == '.parquet':
        return _read_parquet(path)
    try:
        text = path.read_text(encoding='utf-8')
    except UnicodeDecodeError as exc:
        raise UnreadableDatasetError(f'{path}: not UTF-8 text (byte {exc.start}), so not JSON or JSONL') from None
    except OSError as exc:
        raise UnreadableDatasetError(f'{path}: cannot be read ({exc.strerror or exc})') from None
    if path.suffix == '.jsonl':
        return _jsonl_rows(path, text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnreadableDatasetError(f'{path}: not JSON (line {exc.lineno} column {exc.colno}: {exc.msg})') from None
    if isinstance(data, dict):
        data = list(data.values()) if all(isinstance(v, dict) for v in data.values()) else [data]
    if not isinstance(data, list):
        raise UnreadableDatasetError(f'{path}: expected a JSON list of records, got {type(data).__name__}')
    return data


def _jsonl_rows(path: Path, text: str) -> List[Any]:
    from evalscope_phys.jsonl import JsonlError, parse_lines

    try:
        rows, bad = parse_lines(text, strict=False)
    except JsonlError as exc:
        raise UnreadableDatasetError(f'{path}: {exc}') from None
    if bad and not rows:
        raise UnreadableDatasetError(f'{path}: not JSONL: no line is a JSON value ({"; ".join(bad[:3])})')
    if bad:
        logger.warning('%s: skipped %d unreadable line(s): %s', path, len(bad), '; '.join(bad[:5]))
    return rows


def _read_parquet(path: Path) -> List[Any]:
    import pyarrow as pa
    import pyarrow.parquet as pq  # only hub copies need it

    try:
        return pq.read_table(path).to_pylist()
    except (pa.ArrowException, OSError) as exc:
        raise UnreadableDatasetError(f'{path}: not a readable parquet file ({exc})') from None


def _label_text(value: Any) -> str:
    return re.sub(f'[^0-9a-z{CJK_CHARS}]+', ' ', str(value or '').lower()).strip()


def category(value: Any, table: Dict[str, Tuple[str, ...]]) -> Optional[str]:
    """The table key a record's free-form label names (``'PhD'``, ``'Beginner-Olympiad'``, ``'中文'``), or None.

    Datasets spell their levels, languages and question types loosely; case, spacing and punctuation
    never decide, and a key is also its own spelling (``senior_high`` for ``'senior high'``).
    """
    text = _label_text(value)
    return next((name for name, spellings in table.items() if text in {_label_text(s) for s in (name, *spellings)}),
                None) if text else None


def first_ids(ids: Sequence[Any], shown: int = 10) -> str:
    """``'a, b, c ...'``: the first ``shown`` ids of a logged count."""
    return ', '.join(map(str, ids[:shown])) + (' ...' if len(ids) > shown else '')


def log_skipped(benchmark: str, skipped: Dict[str, List[str]]) -> None:
    """One warning per reason, with a count and the first ids, so nothing disappears unexplained."""
    for reason, ids in skipped.items():
        if ids:
            logger.warning('%s: excluded %d record(s): %s (ids: %s)', benchmark, len(ids), reason, first_ids(ids))


def check_something_to_evaluate(benchmark: str, record_map: Dict[str, List[Any]],
                                skipped: Optional[Dict[str, List[str]]], location: Any) -> None:
    """Raise :class:`NothingToEvaluateError`, naming the exclusion reasons, when no subset kept a row.

    Why: EvalScope logs "No samples found" and exits 0 for an empty benchmark, so a run on the wrong
    file (PHYBench's question-only release) would look like a success with nothing in it.
    """
    if any(record_map.values()):
        return
    reasons = {reason: len(ids) for reason, ids in (skipped or {}).items() if ids}
    subsets = sorted(record_map)
    if reasons:
        why = '; '.join(f'{count} {reason}' for reason, count in sorted(reasons.items(), key=lambda kv: -kv[1]))
        detail = f'{sum(reasons.values())} record(s) excluded ({why}) and none left in the subsets {subsets}'
    else:
        detail = f'no record belongs to the chosen subsets {subsets}'
    raise NothingToEvaluateError(
        f'{benchmark}: nothing to evaluate in {location}: {detail}. Point '
        f'dataset_args.{benchmark}.local_path at a file with scorable rows, or choose other subsets.')


def records_dataset(adapter: Any, record_map: Dict[str, List[Dict[str, Any]]], location: Any, *,
                    skipped: Dict[str, List[str]]) -> Tuple[DatasetDict, None]:
    """What an adapter's ``load()`` returns: subsets of raw records -> Samples, honouring limit/repeats/shuffle.

    The end of every adapter's load: logs the exclusions (``skipped``: reason -> record ids; required,
    so no adapter can drop them) and stops with one message naming them when nothing is left to evaluate.
    Also makes sure the scoring workers are booting (:func:`locate_dataset` starts them first).
    """
    log_skipped(adapter.name, skipped)
    check_something_to_evaluate(adapter.name, record_map, skipped, location)
    start_scoring_workers()  # a no-op when locate_dataset started them
    return build_dataset_dict_from_record_map(
        record_map=record_map,
        sample_fields=adapter.record_to_sample,
        location=str(location),
        limit=adapter.limit,
        repeats=adapter.repeats,
        shuffle=adapter.shuffle,
        seed=adapter.seed,
    ), None


class Excluded(NamedTuple):
    """A row that cannot become a sample: why (the logged reason) and the row's id."""

    reason: str
    record_id: str


class Kept(NamedTuple):
    """A row to evaluate, as ``record_to_sample`` will read it, and its subset."""

    subset: str
    record: Dict[str, Any]


#: what :meth:`RecordLoader.sort_record` says of a row; None: outside the chosen subsets or split, not counted
Placement = Union[Kept, Excluded, None]


class RecordLoader:
    """The one ``load()`` of every physics adapter: files -> rows -> kept or excluded (with a reason) -> dataset.

    Placed before EvalScope's adapter class. An adapter says where its files are (:meth:`dataset_files`),
    optionally how a file reads (:meth:`read_file`) and what each row is (:meth:`sort_record`); the
    skeleton counts exclusions by reason, so every "nothing to evaluate" error names them.
    """

    #: how :meth:`unread_reference` rows are named in the warning that counts them
    unread_reference_kind = 'reference solution(s)'

    def dataset_files(self) -> Tuple[List[Path], Any]:
        """The files to read, in order, and the location the messages name (checks the options first)."""
        raise NotImplementedError

    def read_file(self, path: Path) -> List[Any]:
        """The rows of one file."""
        return read_rows(path)

    def sort_record(self, record: Any, path: Path, row: int) -> Placement:
        """Row ``row`` (from 1) of ``path``: kept in a subset, excluded with a reason, or None (not chosen)."""
        raise NotImplementedError

    def unread_reference(self, record: Dict[str, Any]) -> Optional[str]:
        """The id of a kept record whose reference solution states no final answer the engine can read."""
        return None

    def load(self) -> Tuple[DatasetDict, None]:
        """Every row of every file kept or excluded with its reason; then :func:`records_dataset`."""
        files, location = self.dataset_files()
        record_map: Dict[str, List[Dict[str, Any]]] = {subset: [] for subset in self.subset_list}
        skipped: Dict[str, List[str]] = {}
        unread: List[str] = []
        for path in files:
            for row, record in enumerate(self.read_file(path), 1):
                placed = self.sort_record(record, path, row)
                if isinstance(placed, Excluded):
                    skipped.setdefault(placed.reason, []).append(placed.record_id)
                elif placed is not None and placed.subset in record_map:
                    record_map[placed.subset].append(placed.record)
                    rid = self.unread_reference(placed.record)
                    if rid:
                        unread.append(rid)
        if unread:
            logger.warning('%s: %d %s state no final answer the engine can read; they are judged against the full '
                           'solution, or unscored without a judge (ids: %s)', self.name, len(unread),
                           self.unread_reference_kind, first_ids(unread))
        return records_dataset(self, record_map, location, skipped=skipped)


#: English and Chinese, as UGPhysics and OlympiadBench release them
EN_ZH = ('en', 'zh')


def languages_param(languages: Sequence[str] = EN_ZH) -> Dict[str, Any]:
    """The ``extra_params`` entry that lets a user pick languages (all by default)."""
    return {'type': 'list[str]', 'description': f'Languages to evaluate: any of {list(languages)}.',
            'value': list(languages)}


def chosen_languages(adapter: Any, languages: Sequence[str] = EN_ZH) -> List[str]:
    """``extra_params.languages`` as a lower-case list; an unknown language is an error, not an empty run."""
    chosen = adapter.extra_params.get('languages') or list(languages)
    chosen = [str(lang).lower() for lang in ([chosen] if isinstance(chosen, str) else chosen)]
    unknown = set(chosen) - set(languages)
    if unknown:
        raise ValueError(f'{adapter.name}: unknown languages {sorted(unknown)}; choose from {list(languages)}')
    return chosen
