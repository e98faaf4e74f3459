"""Figures for vision benchmarks: confined to the dataset folder, sent inline as base64, bounded in size.

Why: an image path comes from a dataset record, which is data we do not control; a path such as
``../../etc/passwd`` or a symlink out of the folder must never be read. Figures go to the model as
base64 data URIs through EvalScope's own converter (:func:`evalscope_phys.compat.image_bytes_to_base64`) so that
``dataset_args.<name>.max_image_bytes`` is honoured.

**Sizes.** One oversized figure must not become a request of hundreds of megabytes (a 300 MB
figure once became a 419 MB request and 1.6 GB of memory). Two limits, both per benchmark:

- ``max_image_bytes`` (EvalScope's, default :data:`DEFAULT_MAX_IMAGE_BYTES` in our vision
  adapters): each figure larger than this is re-encoded as JPEG and scaled down to fit;
  ``dataset_args.<name>.max_image_bytes`` overrides it (``'1mb'``, bytes, or ``null`` for as-is).
- ``extra_params.max_request_bytes`` (ours, default :data:`DEFAULT_MAX_REQUEST_BYTES`): the most
  figure data, base64-encoded, one request may carry. A figure file larger than this on disk is
  refused unread. Such a sample still exists but *fails* when its turn comes, with a message naming
  the file(s) and the setting (``RequestTooLargeError``); with ``--ignore-errors`` the run goes on
  and the report counts it in ``execution_summary.errored``.
"""
from __future__ import annotations

import functools
import re
import threading
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional

from evalscope.api.benchmark import VisionLanguageAdapter
from evalscope.api.dataset import Sample
from evalscope.api.messages import ChatMessageUser, Content, ContentImage, ContentText

from evalscope_phys import compat
from evalscope_phys.benchmarks.base import BrokenRecordError

DEFAULT_MAX_IMAGE_BYTES = '5mb'
"""Per figure, after shrinking: well inside common API limits (OpenAI: 20 MB per image)."""
DEFAULT_MAX_REQUEST_BYTES = '20mb'
"""Per request, all figures base64-encoded: one problem's figures rarely need a tenth of it."""
MAX_REQUEST_BYTES = 'max_request_bytes'
REQUEST_ERROR = 'request_error'
"""Sample metadata key: why this sample's request would be too large (it fails at inference)."""

#: placeholders benchmarks leave in question text where a figure goes (``<image>``, ``<image 1>``)
IMAGE_PLACEHOLDER_RE = re.compile(r'<image\s*\d*>', re.IGNORECASE)


class UnsafeImagePathError(BrokenRecordError):
    """A record's image path points outside its dataset folder."""


def resolve_image(root: Path, name: str) -> Path:
    """The file ``name`` names inside ``root``; raises for an escape, a missing or an empty name/file.

    Both sides are fully resolved (``..`` and symlinks), so neither can leave ``root``.
    """
    if not isinstance(name, str) or not name.strip():
        raise BrokenRecordError('record has no image path')
    if '\x00' in name:
        raise UnsafeImagePathError(f'image path {name!r} contains a NUL byte')
    base = Path(root).resolve()
    candidate = (base / name.strip()).resolve()
    if candidate == base or base not in candidate.parents:
        raise UnsafeImagePathError(f'image path {name!r} escapes the dataset folder {base}')
    if not candidate.is_file():
        raise BrokenRecordError(f'image file {name!r} not found under {base}')
    return candidate


class RequestTooLargeError(BrokenRecordError):
    """A sample's figures exceed ``extra_params.max_request_bytes``; the message names files and setting."""


def request_limit_param() -> Dict[str, Any]:
    """The ``extra_params`` entry every vision adapter declares for the per-request cap."""
    return {'type': 'str', 'value': DEFAULT_MAX_REQUEST_BYTES,
            'description': 'Most figure data (base64) one request may carry, e.g. "20mb"; larger samples fail '
                           'with a clear error. Figures above max_image_bytes are shrunk first.'}


def max_request_bytes(adapter: Any) -> Optional[int]:
    """The adapter's per-request cap in bytes (None: no cap)."""
    params = getattr(adapter, 'extra_params', None) or {}
    return compat.parse_size(params.get(MAX_REQUEST_BYTES, DEFAULT_MAX_REQUEST_BYTES))


def _too_large(adapter: Any, what: str, size: int, cap: int) -> RequestTooLargeError:
    name = getattr(adapter, 'name', 'benchmark')
    return RequestTooLargeError(
        f'{name}: {what} is {size:,} bytes, more than {name}\'s extra_params.{MAX_REQUEST_BYTES} = {cap:,} bytes; '
        f'this sample is not sent. Raise it with --dataset-args \'{{"{name}": {{"extra_params": '
        f'{{"{MAX_REQUEST_BYTES}": "50mb"}}}}}}\' or shrink the figure.')


_encoded = threading.local()  # (path, encoded size) of the figures of the record being converted


def image_data_uri(adapter: VisionLanguageAdapter, path: Path) -> str:
    """A base64 data URI of ``path``, shrunk to the adapter's ``max_image_bytes`` when that is set.

    A file larger than ``max_request_bytes`` is refused before it is read. The MIME type is
    sniffed from the bytes: releases ship JPEG data under ``.png`` names.
    """
    cap = max_request_bytes(adapter)
    size = path.stat().st_size
    if cap is not None and size > cap:
        raise _too_large(adapter, f'figure {path} on disk', size, cap)
    default_format = path.suffix.lstrip('.').lower().replace('jpg', 'jpeg') or 'png'
    uri = compat.image_bytes_to_base64(adapter, path.read_bytes(), default_format=default_format)
    getattr(_encoded, 'figures', []).append((path, len(uri)))
    return uri


def _request_image_bytes(sample: Sample) -> int:
    messages = sample.input if isinstance(sample.input, list) else []
    return sum(len(part.image) for message in messages if isinstance(message.content, list)
               for part in message.content if isinstance(part, ContentImage) and isinstance(part.image, str))


def _failing_sample(record: Dict[str, Any], error: str) -> Sample:
    """A placeholder that fails at inference (see :class:`FigureLimitsMixin`), so the run counts it."""
    ident = next((record.get(key) for key in ('id', 'index') if record.get(key) is not None), None)
    # a message list, not a string: EvalScope would format a string through the prompt template
    return Sample(input=[ChatMessageUser(content=f'[not sent: {error}]')], target='',
                  metadata={'id': None if ident is None else str(ident), REQUEST_ERROR: error})


def figure_limits(record_to_sample: Callable[[Any, Dict[str, Any]], Sample]) -> Callable[[Any, Dict[str, Any]], Sample]:
    """Wrap an adapter's ``record_to_sample``: a sample over ``max_request_bytes`` becomes a failing one.

    Checks each figure file (in :func:`image_data_uri`) and the sum of the sample's encoded figures,
    naming the files. Loading never fails for a size: the sample fails when its turn comes.
    """

    @functools.wraps(record_to_sample)
    def wrapped(self: Any, record: Dict[str, Any]) -> Sample:
        _encoded.figures = []
        try:
            sample = record_to_sample(self, record)
            cap = max_request_bytes(self)
            total = _request_image_bytes(sample)
            if cap is not None and total > cap:
                files = ', '.join(f'{path} ({size:,} bytes encoded)' for path, size in _encoded.figures) or 'embedded'
                raise _too_large(self, f'the request with figures {files}', total, cap)
            return sample
        except RequestTooLargeError as exc:
            return _failing_sample(record, str(exc))
        finally:
            _encoded.figures = []

    return wrapped


class FigureLimitsMixin(compat.InferenceStartHook):
    """Fails a sample marked by :func:`figure_limits` when it is run, with its message (put before the adapter)."""

    def before_inference(self, model: Any, sample: Sample) -> None:
        error = (sample.metadata or {}).get(REQUEST_ERROR)
        if error:
            raise RequestTooLargeError(error)


def figure_message(text: str, images: Iterable[str]) -> List[ChatMessageUser]:
    """One user message: the figures (data URIs) first, then the text without image placeholders."""
    content: List[Content] = [ContentImage(image=uri) for uri in images]
    content.append(ContentText(text=IMAGE_PLACEHOLDER_RE.sub('', text).strip()))
    return [ChatMessageUser(content=content)]


def image_names(value: object) -> List[str]:
    """A record's image field as a list of names: one string, a list of strings, or nothing."""
    if value is None or value == '':
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise BrokenRecordError(f'image field of type {type(value).__name__} is not a path or a list of paths')


def check_images(root: Path, value: object, required: bool = True) -> Optional[str]:
    """Why a record's images are unusable (for counted exclusions), or None when they are fine."""
    try:
        names = image_names(value)
        if required and not names:
            return 'no image'
        for name in names:
            resolve_image(root, name)
    except UnsafeImagePathError:
        return 'image path escapes the dataset folder'
    except BrokenRecordError as exc:
        return 'image missing' if 'not found' in str(exc) else str(exc)
    return None
