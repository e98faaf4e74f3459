"""Figures for vision benchmarks: confined to the dataset folder, sent inline as base64.

Why: an image path comes from a dataset record, which is data we do not control; a path such as
``../../etc/passwd`` or a symlink out of the folder must never be read. Figures go to the model as
base64 data URIs through EvalScope's own converter (:func:`evalscope_phys.compat.image_bytes_to_base64`) so that
``dataset_args.<name>.max_image_bytes`` (e.g. ``'500kb'``) is honoured.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, List, Optional

from evalscope.api.benchmark import VisionLanguageAdapter
from evalscope.api.messages import ChatMessageUser, Content, ContentImage, ContentText

from evalscope_phys import compat
from evalscope_phys.benchmarks.base import BrokenRecordError

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


def image_data_uri(adapter: VisionLanguageAdapter, path: Path) -> str:
    """A base64 data URI of ``path``, shrunk to the adapter's ``max_image_bytes`` when that is set.

    The MIME type is sniffed from the bytes: releases ship JPEG data under ``.png`` names.
    """
    default_format = path.suffix.lstrip('.').lower().replace('jpg', 'jpeg') or 'png'
    return compat.image_bytes_to_base64(adapter, path.read_bytes(), default_format=default_format)


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
