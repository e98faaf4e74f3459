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


# --- sizes ----------------------------------------------------------------------------------------

import json  # noqa: E402
import shutil  # noqa: E402

from evalscope.utils.io_utils import parse_size  # noqa: E402

from conftest import benchmark_adapter, load_subsets, run_evalscope_eval  # noqa: E402
from evalscope_phys.benchmarks.vision import (  # noqa: E402
    DEFAULT_MAX_IMAGE_BYTES,
    DEFAULT_MAX_REQUEST_BYTES,
    REQUEST_ERROR,
    RequestTooLargeError,
    max_request_bytes,
)
from evalscope_phys.demo import DEMO_DIR  # noqa: E402
from evalscope_phys.serve.replay import replay_server  # noqa: E402

VISION_BENCHMARKS = ['seephys', 'physunibench', 'omniphys', 'phyx_oe_rules', 'olympiadbench_physics']


def random_png(path, width, height):
    """An incompressible figure: its PNG is about width * height * 3 bytes."""
    Image.frombytes('RGB', (width, height), os.urandom(width * height * 3)).save(path, compress_level=1)
    return path


def seephys_copy(tmp_path, figure_size=None, images=None):
    """The SeePhys demo sample in tmp_path; problem 1's figure replaced by a random one of ``figure_size``."""
    root = tmp_path / 'seephys'
    shutil.copytree(DEMO_DIR / 'seephys_sample', root)
    if figure_size:
        random_png(root / 'images' / 'lever.png', *figure_size)
    if images:
        records = json.loads((root / 'SeePhys.json').read_text())
        records[0]['image_path'] = images
        (root / 'SeePhys.json').write_text(json.dumps(records))
    return root


def figure_bytes(sample):
    return sum(len(c.image) for c in sample.input[0].content if isinstance(c, ContentImage))


def samples_by_id(root, **dataset_args):
    return {s.metadata['id']: s for rows in load_subsets('seephys', root, **dataset_args).values() for s in rows}


@pytest.mark.parametrize('name', VISION_BENCHMARKS)
def test_vision_benchmarks_bound_figures_by_default_and_take_overrides(name):
    default = benchmark_adapter(name)
    assert default._max_image_bytes == parse_size(DEFAULT_MAX_IMAGE_BYTES)
    assert max_request_bytes(default) == parse_size(DEFAULT_MAX_REQUEST_BYTES)
    custom = benchmark_adapter(name, {'max_image_bytes': '1mb', 'extra_params': {'max_request_bytes': '2mb'}})
    assert (custom._max_image_bytes, max_request_bytes(custom)) == (1024 ** 2, 2 * 1024 ** 2)
    assert benchmark_adapter(name, {'max_image_bytes': None})._max_image_bytes is None  # as-is, on request


def test_a_figure_above_max_image_bytes_is_shrunk_to_fit(tmp_path):
    root = seephys_copy(tmp_path, figure_size=(1200, 1000))  # ~3.6 MB on disk
    assert (root / 'images' / 'lever.png').stat().st_size > 3_000_000
    shrunk = samples_by_id(root, max_image_bytes='1mb')['1']
    assert REQUEST_ERROR not in shrunk.metadata
    assert figure_bytes(shrunk) <= 1024 ** 2 * 4 / 3 + 100  # base64 of at most 1 MiB


def test_a_figure_file_over_the_request_cap_fails_its_sample_naming_file_and_setting(tmp_path):
    root = seephys_copy(tmp_path, figure_size=(1200, 1000))
    args = {'max_image_bytes': None, 'extra_params': {'max_request_bytes': '1mb'}}
    samples = samples_by_id(root, **args)
    assert len(samples) == 8  # nothing dropped at load
    error = samples['1'].metadata[REQUEST_ERROR]
    assert str(root / 'images' / 'lever.png') in error and 'extra_params.max_request_bytes' in error
    assert figure_bytes(samples['2']) > 0 and REQUEST_ERROR not in samples['2'].metadata
    adapter = benchmark_adapter('seephys', {'local_path': str(root), **args})
    with pytest.raises(RequestTooLargeError, match='max_request_bytes'):
        adapter._on_inference_start(None, samples['1'])
    adapter._on_inference_start(None, samples['2'])  # a normal sample passes


def test_the_sum_of_a_samples_figures_is_capped_naming_every_file(tmp_path):
    root = seephys_copy(tmp_path, images=['images/a.png', 'images/b.png'])
    for name in ('a.png', 'b.png'):
        random_png(root / 'images' / name, 400, 500)  # ~600 kB each, 1.6 MB encoded together
    error = samples_by_id(root, max_image_bytes=None, extra_params={'max_request_bytes': '1mb'})['1'] \
        .metadata[REQUEST_ERROR]
    assert 'a.png' in error and 'b.png' in error and 'max_request_bytes' in error


@pytest.mark.e2e
def test_an_oversized_sample_fails_with_its_message_and_the_run_continues(tmp_path):
    root = seephys_copy(tmp_path, figure_size=(1200, 1000))
    args = {'seephys': {'local_path': str(root), 'extra_params': {'max_request_bytes': '1mb'}}}
    with replay_server(DEMO_DIR / 'seephys_replay.jsonl') as url:
        run = run_evalscope_eval(url, ['seephys'], args, tmp_path / 'run')
    assert run.process.returncode == 0, run.process.stderr[-3000:]
    summary = run.reports['seephys']['execution_summary']
    assert (summary['requested'], summary['errored']) == (8, 1), summary
    logs = run.process.stdout + run.process.stderr + ''.join(
        p.read_text(errors='replace') for p in run.work_dir.rglob('*.log'))
    assert 'lever.png' in logs and 'max_request_bytes' in logs
