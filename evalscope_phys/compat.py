"""Every use of EvalScope's private API, in one place, checked against the version it was written for.

Why one module: EvalScope has no plugin interface, so discovery, the ``phyx_oe`` fix, credential
masking and a few adapter helpers reach into its internals. When an EvalScope release moves one of
them, this is the only module that breaks, and it says what moved (:class:`CompatError`) instead of an
``AttributeError`` deep inside a run. The installed version is read once (from package metadata, without
importing EvalScope); a version other than :data:`SUPPORTED_VERSION` gives one warning, and each
private name is then checked where it is used.

Nothing else in ``evalscope_phys`` imports ``evalscope.benchmarks.*``, ``evalscope.metrics.*`` or
``evalscope.utils.*`` internals or touches a private attribute of an EvalScope object
(``tests/test_compat.py`` enforces this). Public API (``evalscope.api.*``, ``evalscope.constants``,
``TaskConfig``, ``run_task``, ``get_logger``) is used directly.
"""
from __future__ import annotations

import functools
import importlib
import os
import sys
import warnings
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Dict, List, Optional, Tuple

#: the EvalScope release every private name below was read from
SUPPORTED_VERSION = '1.14.1'
#: set to 1 to score upstream ``phyx_oe`` exactly as the installed EvalScope does (no runtime fix)
NO_PHYX_FIX_ENV = 'EVALSCOPE_PHYS_NO_PHYX_OE_FIX'

PHYX_ADAPTER_MODULE = 'evalscope.benchmarks.phyx.phyx_adapter'
PHYX_UTILS_MODULE = 'evalscope.benchmarks.phyx.utils'
ARGUMENT_UTILS_MODULE = 'evalscope.utils.argument_utils'
#: set by patches/0002 in ``evalscope.benchmarks.phyx.utils``: the installed EvalScope has the phyx_oe fix
PHYX_PATCH_MARKER = 'NUMBER_REL_TOL'


class CompatError(RuntimeError):
    """The installed EvalScope lacks a private name evalscope-phys relies on; the message names it."""


@functools.lru_cache(maxsize=1)
def installed_version() -> str:
    """EvalScope's version from its package metadata ('' when it is not installed); read once."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version('evalscope')
    except PackageNotFoundError:
        return ''


def version_supported() -> bool:
    return installed_version() == SUPPORTED_VERSION


@functools.lru_cache(maxsize=1)
def _warn_version_once() -> None:
    if not version_supported():
        warnings.warn(f'evalscope-phys was written against EvalScope {SUPPORTED_VERSION}, found '
                      f'{installed_version() or "none"}; its private API uses are checked one by one.',
                      stacklevel=3)


def _moved(what: str) -> CompatError:
    return CompatError(
        f'EvalScope {installed_version() or "(not installed)"} no longer provides {what}, which evalscope-phys '
        f'uses (written against EvalScope {SUPPORTED_VERSION}). Install evalscope=={SUPPORTED_VERSION}, or an '
        f'evalscope-phys release made for this EvalScope.')


def private(owner: Any, name: str, where: str) -> Any:
    """``getattr(owner, name)``, or a :class:`CompatError` naming ``where.name``."""
    _warn_version_once()
    try:
        return getattr(owner, name)
    except AttributeError:
        raise _moved(f'{where}.{name}') from None


def private_module(name: str) -> ModuleType:
    """Import an EvalScope internal module, or raise a :class:`CompatError` naming it."""
    _warn_version_once()
    try:
        return importlib.import_module(name)
    except ImportError:
        raise _moved(f'the module {name}') from None


# --------------------------------------------------------------------------- discovery (LazyRegistry)

def registry_resolvers(registry: Any) -> Tuple[Callable, Callable, Callable]:
    """The lazy benchmark registry's ``(resolve_one, resolve_all, indexed_module)``."""
    where = 'evalscope.api.registry.LazyRegistry'
    return tuple(private(registry, name, where) for name in ('_resolve_one', '_resolve_all', '_indexed_module'))


def indexed_benchmark_names() -> List[str]:
    """Every built-in benchmark name, from ``evalscope/benchmarks/_index.json``, without loading an adapter."""
    index = private(private_module('evalscope.benchmarks'), '_INDEX', 'evalscope.benchmarks')
    return sorted(index)


def registered_meta(name: str) -> Any:
    """A materialized registry entry (BenchmarkMeta) by name, without triggering resolution."""
    from evalscope.api.registry import BENCHMARK_REGISTRY

    return dict.get(BENCHMARK_REGISTRY, name)


# --------------------------------------------------------------------------- adapter helpers

def image_bytes_to_base64(adapter: Any, data: bytes, default_format: str = 'png', guess_mimetype: bool = True) -> str:
    """``VisionLanguageAdapter._image_bytes_to_base64``: a data URI shrunk to ``max_image_bytes``."""
    convert = private(adapter, '_image_bytes_to_base64', 'VisionLanguageAdapter')
    return convert(data, default_format=default_format, guess_mimetype=guess_mimetype)


def parse_size(value: Any) -> Optional[int]:
    """EvalScope's size parser (``'20mb'`` -> bytes; ``evalscope.utils.io_utils.parse_size``)."""
    module = private_module('evalscope.utils.io_utils')
    return getattr(module, 'parse_size')(value)


def judge_models(adapter: Any) -> list:
    """The ``judge.models`` of the adapter's task config (``LLMJudgeMixin._judge_config``)."""
    return list(private(adapter, '_judge_config', 'LLMJudgeMixin').models or [])


def task_config(adapter: Any) -> Any:
    """The adapter's ``TaskConfig`` (``DataAdapter._task_config``; None for an adapter built without one)."""
    return private(adapter, '_task_config', 'DataAdapter')


def metric_weights_key() -> str:
    """The ``Score.metadata`` key whose per-metric weights EvalScope's ``weighted_mean`` reads."""
    module = private_module('evalscope.metrics.aggregators')
    return private(module, 'METRIC_WEIGHTS_KEY', 'evalscope.metrics.aggregators')


def llm_judge(**kwargs: Any) -> Any:
    """EvalScope's ``LLMJudge`` model (``evalscope.metrics``), secrets unwrapped as a run unwraps them."""
    judge_class = private(private_module('evalscope.metrics'), 'LLMJudge', 'evalscope.metrics')
    unwrap = private(private_module(ARGUMENT_UTILS_MODULE), 'get_secret_value', ARGUMENT_UTILS_MODULE)
    return judge_class(**unwrap(kwargs))


def parse_choice_answers(task_state: Any, completion: str) -> set:
    """EvalScope's ``ANSWER: X`` letter parser (``evalscope.utils.multi_choices.parse_answers``)."""
    module = private_module('evalscope.utils.multi_choices')
    return private(module, 'parse_answers', 'evalscope.utils.multi_choices')(task_state, completion=completion)


def metric_catalog() -> Tuple[Dict[str, Any], type]:
    """``(METRIC_DEFINITIONS, MetricEntry)``: the report layer's metric semantics table."""
    catalog = private_module('evalscope.metrics.semantics.catalog')
    entry = private_module('evalscope.metrics.semantics.entry')
    return (private(catalog, 'METRIC_DEFINITIONS', 'evalscope.metrics.semantics.catalog'),
            private(entry, 'MetricEntry', 'evalscope.metrics.semantics.entry'))


# --------------------------------------------------------------------------- upstream PhyX

@dataclass(frozen=True)
class PhyXUpstream:
    """What our PhyX adapters take from EvalScope's ``phyx`` package (its layout, splits and helpers)."""

    oe_adapter: type
    category_to_subset: Dict[str, str]
    subset_list: List[str]
    data_dir: str
    record_file: str
    image_dir: str
    full_split: str
    mini_split: str
    mini_size: int
    option_labels: Tuple[str, ...]
    parse_options: Callable[[str], Dict[str, str]]
    build_oe_question: Callable[[str, str], str]


def phyx_upstream() -> PhyXUpstream:
    """EvalScope's PhyX names, each checked (importing the adapter registers ``phyx_mc``/``phyx_oe``)."""
    adapter = private_module(PHYX_ADAPTER_MODULE)
    utils = private_module(PHYX_UTILS_MODULE)

    def a(name):
        return private(adapter, name, PHYX_ADAPTER_MODULE)

    def u(name):
        return private(utils, name, PHYX_UTILS_MODULE)

    return PhyXUpstream(
        oe_adapter=a('PhyXOEAdapter'), category_to_subset=a('CATEGORY_TO_SUBSET'), subset_list=a('SUBSET_LIST'),
        data_dir=a('DATA_DIR'), record_file=a('RECORD_FILE'), image_dir=a('IMAGE_DIR'), full_split=a('FULL_SPLIT'),
        mini_split=a('MINI_SPLIT'), mini_size=a('MINI_SIZE'), option_labels=tuple(u('OPTION_LABELS')),
        parse_options=u('parse_options'), build_oe_question=u('build_oe_question'))


def phyx_oe_fix_wanted() -> Optional[str]:
    """Why the runtime ``phyx_oe`` fix must not be applied, or None when it should be.

    It is applied only on the EvalScope release it was written for, only when that EvalScope lacks the
    fix (``evalscope-phys patches apply`` puts the upstream version in place), and not when
    :data:`NO_PHYX_FIX_ENV` asks for upstream's own scoring.
    """
    if os.environ.get(NO_PHYX_FIX_ENV, '') not in ('', '0'):
        return f'{NO_PHYX_FIX_ENV} is set'
    if not version_supported():
        return f'EvalScope {installed_version()} is not {SUPPORTED_VERSION}'
    utils = sys.modules.get(PHYX_UTILS_MODULE) or private_module(PHYX_UTILS_MODULE)
    if hasattr(utils, PHYX_PATCH_MARKER):
        return 'the installed EvalScope already has it (patches/0002 applied)'
    return None


def replace_registered_adapter(name: str, adapter_module: ModuleType, class_name: str,
                               make_class: Callable[[type], type]) -> Any:
    """Register ``make_class(upstream)`` for benchmark ``name`` in place of upstream's class; returns the meta.

    ``adapter_module.class_name`` must be the class registered under ``name`` (or one we made already,
    marked ``evalscope_phys_fix``); anything else means EvalScope moved it, and says so.
    """
    meta = registered_meta(name)
    if meta is None:
        raise _moved(f"the benchmark '{name}' registered by {adapter_module.__name__}")
    upstream = private(adapter_module, class_name, adapter_module.__name__)
    if getattr(meta.data_adapter, 'evalscope_phys_fix', False):
        return meta
    if meta.data_adapter is not upstream:
        raise _moved(f'{name} registered with {upstream.__qualname__}')
    meta.data_adapter = make_class(upstream)
    return meta


# --------------------------------------------------------------------------- overridden private hooks

class InferenceStartHook:
    """Routes EvalScope's private ``DefaultDataAdapter._on_inference_start`` to :meth:`before_inference`."""

    def before_inference(self, model: Any, sample: Any) -> None:
        """Called before each sample is sent to the model; raise to fail that sample."""

    def _on_inference_start(self, model: Any, sample: Any) -> None:
        self.before_inference(model, sample)
        private(super(), '_on_inference_start', 'DefaultDataAdapter')(model, sample)


class FigureLoaderHook:
    """Routes the private ``PhyX*Adapter._load_figure`` (an image name -> data URI) to :meth:`load_figure`."""

    def load_figure(self, image_name: str) -> str:
        raise NotImplementedError

    def _load_figure(self, image_name: str) -> str:
        return self.load_figure(image_name)


# --------------------------------------------------------------------------- credential masking

def mask_secret_headers(argument_utils: ModuleType) -> None:
    """Make EvalScope mask every credential-looking header, not only its four fixed names.

    EvalScope wraps ``generation_config.extra_headers`` values in ``SecretStr`` only for
    ``authorization``, ``proxy-authorization``, ``x-api-key`` and ``x-auth-token``, so Azure's ``api-key``
    reached ``configs/task_config.yaml`` and the log in clear. Its validator calls
    ``argument_utils.secretize_auth_headers``; this replaces that function (before anything imports it)
    with one that uses :func:`evalscope_phys.redact.is_secret_header`.
    """
    from pydantic import SecretStr

    from evalscope_phys.redact import is_secret_header

    original = private(argument_utils, 'secretize_auth_headers', ARGUMENT_UTILS_MODULE)
    if getattr(original, 'evalscope_phys', False):
        return

    def secretize_auth_headers(headers):
        if not headers:
            return headers
        return {key: SecretStr(value) if isinstance(value, str) and is_secret_header(key) else value
                for key, value in headers.items()}

    secretize_auth_headers.evalscope_phys = True
    secretize_auth_headers.__doc__ = original.__doc__
    argument_utils.secretize_auth_headers = secretize_auth_headers
    # modules that imported the name before the hook ran (only when installed late, e.g. in tests)
    for name in ('evalscope.api.model.generate_config', 'evalscope.perf.arguments', 'evalscope.utils'):
        module = sys.modules.get(name)
        if module is not None and getattr(module, 'secretize_auth_headers', None) is original:
            module.secretize_auth_headers = secretize_auth_headers


def secretize_headers(value: Any, in_headers: bool = False) -> Any:
    """A copy of ``value`` whose credential-looking header values (inside ``*headers`` maps) are ``SecretStr``."""
    from pydantic import SecretStr

    from evalscope_phys.redact import is_header_map, is_secret_header

    if isinstance(value, dict):
        return {key: (SecretStr(item) if in_headers and isinstance(item, str) and is_secret_header(key)
                      else secretize_headers(item, is_header_map(key))) for key, item in value.items()}
    if isinstance(value, list):
        return [secretize_headers(item, in_headers) for item in value]
    return value


def mask_secret_judge_headers(config_module: ModuleType) -> None:
    """Mask credential headers of judge models and ``model_args`` too (EvalScope keeps them as plain dicts).

    ``judge.models[].generation_config`` is a plain dict in EvalScope's ``JudgeModelConfig``, so its
    ``extra_headers`` reached ``task_config.yaml``, the log and the report in clear. Two EvalScope functions
    see every such dict before it is stored: ``TaskConfig._migrate_judge_keys`` (called while a config is
    validated) and ``_secretize_api_keys`` (``TaskConfig.update`` and ``model_args``); both are wrapped to
    wrap header values in ``SecretStr``, which EvalScope unwraps when it builds a request. ``TaskConfig.to_dict``
    (behind ``task_config.yaml`` and the logged config) is wrapped with :func:`evalscope_phys.redact.mask_urls`.
    """
    task_config = private(config_module, 'TaskConfig', 'evalscope.config')
    migrate = private(task_config, '_migrate_judge_keys', 'evalscope.config.TaskConfig')
    secretize = private(config_module, '_secretize_api_keys', 'evalscope.config')
    if getattr(migrate, 'evalscope_phys', False):
        return

    def migrate_judge_keys(values):
        migrate(values)
        for key in ('judge', 'model_args', 'generation_config'):
            if isinstance(values.get(key), dict):
                values[key] = secretize_headers(values[key])

    def secretize_api_keys(value):
        return secretize(secretize_headers(value))

    to_dict = private(task_config, 'to_dict', 'evalscope.config.TaskConfig')

    def masked_to_dict(self):
        # what task_config.yaml, str(task_config) (the log) and the fingerprint see: a URL's userinfo and
        # key=-style query parameters masked too (the request itself reads the fields, not this dict)
        from evalscope_phys.redact import mask_urls

        return mask_urls(to_dict(self))

    migrate_judge_keys.evalscope_phys = secretize_api_keys.evalscope_phys = masked_to_dict.evalscope_phys = True
    task_config._migrate_judge_keys = staticmethod(migrate_judge_keys)
    config_module._secretize_api_keys = secretize_api_keys
    task_config.to_dict = masked_to_dict


# --------------------------------------------------------------------------- cache writes

def escape_invalid_unicode_in_jsonl(io_utils: ModuleType) -> None:
    """Make EvalScope's ``JsonlWriter`` write a string that is not valid Unicode with JSON escapes.

    Why: it writes ``json.dumps(record, ensure_ascii=False)`` to a UTF-8 file, so a model reply holding a
    lone surrogate (``"\\ud800"``) raised ``UnicodeEncodeError``: the sample errored, and again on every
    resume. :func:`evalscope_phys.jsonl.dumps_line` escapes only such records; they read back the same.
    """
    from evalscope_phys.jsonl import dumps_line

    writer = private(io_utils, 'JsonlWriter', 'evalscope.utils.io_utils')
    original = private(writer, 'write', 'evalscope.utils.io_utils.JsonlWriter')
    opener = private(writer, '_ensure_open', 'evalscope.utils.io_utils.JsonlWriter')
    if getattr(original, 'evalscope_phys', False):
        return

    def write(self, record: Any) -> None:
        handle = opener(self)
        handle.write(dumps_line(record))
        handle.flush()

    write.evalscope_phys = True
    write.__doc__ = original.__doc__
    writer.write = write


# --------------------------------------------------------------------------- run start

def before_each_run(run_module: ModuleType, before: Callable[[Any], Any]) -> None:
    """Call ``before(task_config)`` as each evaluation starts (``evalscope.run.run_single_task``).

    Why there: it is where a run (not a dry run, not a listing) begins, before EvalScope's own set-up
    (seeding, which imports torch, the work directory, the evaluator: seconds), so work started by
    ``before`` overlaps it. ``run_task`` calls ``run_single_task`` by its module-level name. A
    ``before`` that fails never stops the run (a warning says why).
    """
    original = private(run_module, 'run_single_task', 'evalscope.run')
    if getattr(original, 'evalscope_phys', False):
        return

    @functools.wraps(original)
    def run_single_task(task_cfg: Any) -> Any:
        try:
            before(task_cfg)
        except Exception as exc:  # our start-up must never cost the user's run
            warnings.warn(f'evalscope-phys: could not prepare the run: {exc}', stacklevel=2)
        return original(task_cfg)

    run_single_task.evalscope_phys = True  # type: ignore[attr-defined]
    run_module.run_single_task = run_single_task


# --------------------------------------------------------------------------- report names

def report_metric_name(name: str) -> str:
    """The name a metric gets in EvalScope's report JSON (``acc`` is written as ``accuracy``)."""
    naming = private_module('evalscope.metrics.semantics.naming')
    canonicalize = private(naming, 'canonicalize_producer_identity', 'evalscope.metrics.semantics.naming')
    return canonicalize(name, 'mean').name
