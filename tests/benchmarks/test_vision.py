"""Figures: record paths stay inside the dataset folder; data URIs honour max_image_bytes."""
import base64
import io
import os

import pytest
from PIL import Image

from evalscope.api.messages import ContentImage, ContentText

from evalscope_phys.benchmarks.base import BrokenRecordError
from evalscope_phys.benchmarks.vision import (
    UnsafeImagePathError,
    check_images,
    figure_message,
    image_data_uri,
    image_names,
    resolve_image,
)


@pytest.fixture()
def dataset(tmp_path):
    root = tmp_path / 'data'
    (root / 'img' / 'sub').mkdir(parents=True)
    Image.new('RGB', (20, 10), 'red').save(root / 'img' / 'a.png')
    Image.new('RGB', (20, 10), 'blue').save(root / 'img' / 'sub' / 'b.png')
    (tmp_path / 'secret.png').write_bytes(b'outside')
    os.symlink(tmp_path / 'secret.png', root / 'img' / 'link.png')
    return root / 'img'


@pytest.mark.parametrize('name', ['a.png', 'sub/b.png', './sub/../a.png', ' a.png '])
def test_paths_inside_the_folder_resolve(dataset, name):
    assert resolve_image(dataset, name).is_file()


@pytest.mark.parametrize('name', ['../secret.png', '../../secret.png', '/etc/passwd', 'sub/../../secret.png',
                                  'link.png', '.', 'sub/..', 'a.png\x00.txt'])
def test_paths_that_leave_the_folder_are_refused(dataset, name):
    with pytest.raises(UnsafeImagePathError):
        resolve_image(dataset, name)


@pytest.mark.parametrize('name', ['', '   ', 'missing.png', None, 7])
def test_missing_or_empty_names_are_broken_records(dataset, name):
    with pytest.raises(BrokenRecordError):
        resolve_image(dataset, name)


def test_check_images_names_the_reason(dataset):
    assert check_images(dataset, 'a.png') is None
    assert check_images(dataset, ['a.png', 'sub/b.png']) is None
    assert check_images(dataset, '../secret.png') == 'image path escapes the dataset folder'
    assert check_images(dataset, 'nope.png') == 'image missing'
    assert check_images(dataset, None) == 'no image'
    assert check_images(dataset, None, required=False) is None
    assert 'not a path' in check_images(dataset, {'path': 'a.png'})


def test_image_names_accepts_one_or_many():
    assert image_names('a.png') == ['a.png']
    assert image_names(['a.png', 'b.png']) == ['a.png', 'b.png']
    assert image_names(None) == [] and image_names('') == []
    with pytest.raises(BrokenRecordError):
        image_names([1, 2])


class _Adapter:
    """The one VisionLanguageAdapter method image_data_uri uses, with a real size limit."""

    def __init__(self, max_image_bytes):
        from evalscope.api.benchmark import VisionLanguageAdapter
        self._max_image_bytes = max_image_bytes
        self._image_bytes_to_base64 = VisionLanguageAdapter._image_bytes_to_base64.__get__(self)


def _decoded(uri: str) -> bytes:
    header, payload = uri.split(',', 1)
    assert header.startswith('data:image/') and header.endswith(';base64')
    return base64.b64decode(payload)


def test_data_uri_is_the_file_when_no_limit(dataset):
    uri = image_data_uri(_Adapter(None), dataset / 'a.png')
    assert uri.startswith('data:image/png;base64,')
    assert _decoded(uri) == (dataset / 'a.png').read_bytes()


def test_max_image_bytes_shrinks_a_large_figure(tmp_path):
    noisy = Image.frombytes('RGB', (600, 600), os.urandom(600 * 600 * 3))
    path = tmp_path / 'big.png'
    noisy.save(path)
    assert path.stat().st_size > 500_000
    uri = image_data_uri(_Adapter(100_000), path)
    data = _decoded(uri)
    assert len(data) <= 100_000
    Image.open(io.BytesIO(data)).verify()


def test_jpeg_bytes_under_a_png_name_get_the_jpeg_mime_type(tmp_path):
    path = tmp_path / 'photo.png'
    Image.new('RGB', (10, 10), 'green').save(path, format='JPEG')
    assert image_data_uri(_Adapter(None), path).startswith('data:image/jpeg;base64,')


def test_figure_message_puts_figures_first_and_drops_placeholders():
    [message] = figure_message('A ball rolls.\n<image>\nFind v. <image 2>', ['data:image/png;base64,AAAA'])
    assert isinstance(message.content[0], ContentImage)
    assert isinstance(message.content[1], ContentText)
    assert message.content[1].text == 'A ball rolls.\n\nFind v.'
