"""Suite YAML -> one EvalScope TaskConfig dict per seed.

A suite YAML names datasets and the settings they share (generation, judge, seeds); each dataset's
``dataset_args`` live in ``<name>.yaml`` so a benchmark owner edits one file, found in ``--datasets-dir``,
next to the suite (or in a ``datasets/`` folder there), in ``../datasets`` beside its folder, or in the
package (:func:`dataset_yaml_dirs`).
A suite is a path, or the name of a packaged suite (``text``, ``vision``, ``all``). Model,
endpoint and keys never come from the YAML: they come from flags or ``EVALSCOPE_PHYS_*`` variables,
so a committed suite cannot leak a key or silently point at someone's endpoint.
"""
from __future__ import annotations

import copy
import difflib
import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

import yaml

from evalscope_phys.keys import check_dataset_args, credential_in, unknown_keys
from evalscope_phys.safe_paths import UnsafePathError, safe_name
from evalscope_phys.safe_yaml import YamlLimitError, load_limited

# Keys a suite YAML may carry; anything else is a typo or a secret that belongs in a flag.
SUITE_KEYS = frozenset({
    'name', 'description', 'datasets', 'dataset_args', 'generation', 'judge', 'seeds', 'repeats',
    'eval_batch_size', 'limit', 'model_args',
})
# Judge keys a suite may set; models, urls and keys come from flags. `scope` (what the rules-first adapters send
# to the judge) goes into every dataset's dataset_args.<name>.judge.scope; `selftest_min` makes `suite run` ask
# the judge about known-verdict pairs first and stop below that score (neither is an EvalScope JudgeConfig key).
JUDGE_KEYS = frozenset({'strategy', 'repeats', 'aggregation', 'min_valid_judges', 'generation_config', 'scope',
                        'selftest_min'})
SUITE_ONLY_JUDGE_KEYS = ('scope', 'selftest_min')
FORBIDDEN_KEYS = frozenset({'model', 'model_id', 'api_url', 'api_key', 'models'})

ENV_MODEL = 'EVALSCOPE_PHYS_MODEL'
ENV_API_URL = 'EVALSCOPE_PHYS_API_URL'
ENV_API_KEY = 'EVALSCOPE_PHYS_API_KEY'
from evalscope_phys.llm.flags import ENV_JUDGE_API_KEY, ENV_JUDGE_API_URL, ENV_JUDGE_MODEL  # noqa: E402,F401


class SuiteConfigError(ValueError):
    """A suite or dataset YAML that cannot be turned into TaskConfigs; the message names the file."""


@dataclass(frozen=True)
class Suite:
    """A parsed suite YAML with every dataset's ``dataset_args`` resolved."""

    name: str
    datasets: Tuple[str, ...]
    dataset_args: Dict[str, Dict[str, Any]]
    generation: Dict[str, Any]
    judge: Optional[Dict[str, Any]]
    seeds: Tuple[int, ...]
    repeats: int = 1
    eval_batch_size: Optional[int] = None
    limit: Optional[float] = None
    model_args: Dict[str, Any] = field(default_factory=dict)
    source: str = ''


@dataclass(frozen=True)
class Endpoint:
    """Where the evaluated model (or the judge) lives; never read from a suite YAML."""

    model: str
    api_url: Optional[str] = None
    api_key: str = field(default='EMPTY', repr=False)
    model_id: Optional[str] = None


def _read_yaml(path: Path) -> Any:
    try:
        return load_limited(path)
    except FileNotFoundError:
        raise SuiteConfigError(f'{path}: file not found') from None
    except YamlLimitError as exc:
        raise SuiteConfigError(f'{path}: refused: {exc}') from None
    except yaml.YAMLError as exc:
        raise SuiteConfigError(f'{path}: not valid YAML ({exc})') from None
    except UnicodeDecodeError:
        raise SuiteConfigError(f'{path}: not UTF-8 text') from None


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> Dict[str, Any]:
    """Merge ``override`` into a copy of ``base``; nested mappings merge, everything else replaces."""
    merged = copy.deepcopy(dict(base))
    for key, value in override.items():
        if isinstance(merged.get(key), dict) and isinstance(value, Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def packaged_yamls() -> Optional[Path]:
    """``yamls/`` of the checkout, or the copy shipped in the package."""
    from evalscope_phys.resources import resource_dir

    return resource_dir('yamls')


def packaged_suites() -> List[str]:
    root = packaged_yamls()
    return sorted(p.stem for p in (root / 'suites').glob('*.yaml')) if root else []


def find_suite(suite: os.PathLike) -> Path:
    """A suite YAML path as given, or ``yamls/suites/<name>.yaml`` of the package for a bare name."""
    path = Path(suite)
    if path.is_file():
        return path
    root = packaged_yamls()
    if root is not None and path.parent == Path('.') and (root / 'suites' / f'{path.stem}.yaml').is_file() \
            and path.suffix in ('', '.yaml'):
        return root / 'suites' / f'{path.stem}.yaml'
    raise SuiteConfigError(f'{suite}: no such suite file, and not the name of a packaged suite '
                           f'({", ".join(packaged_suites()) or "none found"})')


def dataset_yaml_dirs(suite_path: Path, datasets_dir: Optional[os.PathLike] = None) -> List[Path]:
    """Where ``<name>.yaml`` dataset files are looked for, in order (existing folders only)."""
    suite_dir = suite_path.resolve().parent
    candidates = [Path(datasets_dir)] if datasets_dir else []
    candidates += [suite_dir, suite_dir / 'datasets', suite_dir.parent / 'datasets']
    root = packaged_yamls()
    if root is not None:
        candidates.append(root / 'datasets')
    seen: List[Path] = []
    for candidate in candidates:
        if candidate.is_dir() and candidate.resolve() not in [s.resolve() for s in seen]:
            seen.append(candidate)
    return seen


@functools.lru_cache(maxsize=1)
def _indexed_names() -> Tuple[str, ...]:
    from evalscope_phys import compat
    from evalscope_phys.registration import BENCHMARK_MODULES

    return tuple(sorted(set(compat.indexed_benchmark_names()) | set(BENCHMARK_MODULES)))


def check_benchmark_name(name: str, source: str) -> None:
    """Raise for a name no installed benchmark has, suggesting the closest ones (``phybenchh`` -> ``phybench``)."""
    names = _indexed_names()
    if name in names:
        return
    from evalscope.api.registry import BENCHMARK_REGISTRY  # unindexed plugins: loads every adapter (~3 s)

    if name in BENCHMARK_REGISTRY:
        return
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    hint = '`evalscope benchmark-info` lists them.'
    if close:
        hint = f'did you mean {close[0]!r}?' + (f' (also close: {", ".join(close[1:])})' if close[1:] else '')
    raise SuiteConfigError(f'{source}: unknown benchmark {name!r}; {hint}')


def load_dataset_args(name: str, datasets_dirs: List[Path], source: str = '') -> Dict[str, Any]:
    """Read the first ``<dir>/<name>.yaml``, a mapping ``{name: {dataset_args...}}``.

    A registered benchmark without a dataset YAML (an upstream one) runs with EvalScope's defaults; a name
    no benchmark has is an error with suggestions.
    """
    check_benchmark_name(name, source or str(datasets_dirs[0] if datasets_dirs else ''))
    path = next((d / f'{name}.yaml' for d in datasets_dirs if (d / f'{name}.yaml').is_file()), None)
    if path is None:
        return {}
    data = _read_yaml(path)
    if not isinstance(data, dict) or name not in data:
        raise SuiteConfigError(f'{path}: expected a mapping with the single key {name!r}')
    args = data[name] or {}
    if not isinstance(args, dict):
        raise SuiteConfigError(f'{path}: {name}: dataset_args must be a mapping')
    return args


def _seed_list(raw: Any, source: str) -> Tuple[int, ...]:
    if raw is None:
        return (0, )
    if isinstance(raw, int) and not isinstance(raw, bool):
        return tuple(range(raw))
    if isinstance(raw, list) and raw and all(isinstance(s, int) and not isinstance(s, bool) for s in raw):
        if len(set(raw)) != len(raw):
            raise SuiteConfigError(f'{source}: seeds repeat a value: {raw}')
        return tuple(raw)
    raise SuiteConfigError(f'{source}: seeds must be a count or a non-empty list of integers, got {raw!r}')


def _check_no_secrets(data: Mapping[str, Any], source: str, where: str = '') -> None:
    for key, value in data.items():
        if key in FORBIDDEN_KEYS:
            raise SuiteConfigError(
                f'{source}: {where}{key} is not allowed in a suite YAML; pass it as a flag or environment variable')
        if isinstance(value, Mapping):
            _check_no_secrets(value, source, f'{where}{key}.')
    found = None if where else credential_in(data)
    if found:
        raise SuiteConfigError(f'{source}: {found} looks like a credential (a key, token or auth header); '
                               'keys never come from a suite YAML: pass them as a flag or environment variable')


def load_suite(path: os.PathLike, datasets_dir: Optional[os.PathLike] = None) -> Suite:
    """Parse a suite YAML (a path or a packaged suite's name); see :func:`dataset_yaml_dirs` for ``datasets_dir``."""
    path = find_suite(path)
    data = _read_yaml(path)
    source = str(path)
    if not isinstance(data, dict):
        raise SuiteConfigError(f'{source}: a suite is a mapping with at least `datasets`')
    _check_no_secrets(data, source)
    _refuse_unknown(data, SUITE_KEYS, 'the suite', source)
    names = data.get('datasets')
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise SuiteConfigError(f'{source}: datasets must be a non-empty list of benchmark names')
    if len(set(names)) != len(names):
        raise SuiteConfigError(f'{source}: datasets lists a benchmark twice: {names}')
    if datasets_dir and not Path(datasets_dir).is_dir():
        raise SuiteConfigError(f'--datasets-dir {datasets_dir}: not a directory')
    ds_dirs = dataset_yaml_dirs(path, datasets_dir)
    overrides = data.get('dataset_args') or {}
    if not isinstance(overrides, dict) or set(overrides) - set(names):
        raise SuiteConfigError(f'{source}: dataset_args overrides must be keyed by listed datasets')
    dataset_args = {n: deep_merge(load_dataset_args(n, ds_dirs, source), overrides.get(n) or {}) for n in names}
    for n, args in dataset_args.items():
        check_suite_dataset_args(n, args, source)
    judge = data.get('judge')
    if judge is not None:
        if not isinstance(judge, dict):
            raise SuiteConfigError(f'{source}: judge must be a mapping of {sorted(JUDGE_KEYS)}')
        _refuse_unknown(judge, JUDGE_KEYS, 'judge', source)
        _check_judge_extras(judge, source)
    generation = data.get('generation') or {}
    if not isinstance(generation, dict):
        raise SuiteConfigError(f'{source}: generation must be a mapping')
    _refuse_unknown(generation, generation_keys(), 'generation', source)
    repeats = data.get('repeats', 1)
    if not isinstance(repeats, int) or repeats < 1:
        raise SuiteConfigError(f'{source}: repeats must be a positive integer')
    try:
        name = safe_name(str(data.get('name') or path.stem), 'suite name')
    except UnsafePathError as exc:
        raise SuiteConfigError(f'{source}: {exc}') from None
    return Suite(
        name=name, datasets=tuple(names), dataset_args=dataset_args,
        generation=dict(generation), judge=dict(judge) if judge else None, seeds=_seed_list(data.get('seeds'), source),
        repeats=repeats, eval_batch_size=data.get('eval_batch_size'), limit=data.get('limit'),
        model_args=dict(data.get('model_args') or {}), source=source)


def _refuse_unknown(data: Mapping[str, Any], known: Any, where: str, source: str) -> None:
    message = unknown_keys(data, known, where)
    if message:
        raise SuiteConfigError(f'{source}: {message}')


def generation_keys() -> frozenset:
    """What ``generation`` may set: EvalScope's GenerateConfig fields."""
    from evalscope.api.model import GenerateConfig
    return frozenset(GenerateConfig.model_fields)


def check_suite_dataset_args(name: str, args: Mapping[str, Any], source: str) -> None:
    """Refuse ``dataset_args.<name>`` keys no benchmark reads (``localpath``), naming the closest one."""
    message = check_dataset_args(name, args)
    if message:
        raise SuiteConfigError(f'{source}: {message}')


def _check_judge_extras(judge: Mapping[str, Any], source: str) -> None:
    from evalscope_phys.judge.routing import JUDGE_SCOPES
    if 'scope' in judge and judge['scope'] not in JUDGE_SCOPES:
        raise SuiteConfigError(f'{source}: judge.scope must be one of {", ".join(JUDGE_SCOPES)}, '
                               f'got {judge["scope"]!r}')
    bar = judge.get('selftest_min')
    if bar is not None and (isinstance(bar, bool) or not isinstance(bar, (int, float)) or not 0 <= bar <= 1):
        raise SuiteConfigError(f'{source}: judge.selftest_min must be a number from 0 to 1, got {bar!r}')


def pick_seeds(suite: Suite, count: Optional[int]) -> Tuple[int, ...]:
    """The first ``count`` suite seeds, continued with the next unused integers if the list is short."""
    if count is None:
        return suite.seeds
    if count < 1:
        raise SuiteConfigError('--seeds must be at least 1')
    seeds = list(suite.seeds[:count])
    candidate = 0
    while len(seeds) < count:
        if candidate not in seeds:
            seeds.append(candidate)
        candidate += 1
    return tuple(seeds)


def endpoint_from(model: Optional[str], api_url: Optional[str], api_key: Optional[str],
                  model_id: Optional[str] = None, judge: bool = False) -> Optional[Endpoint]:
    """Fill an Endpoint from flags, falling back to the EVALSCOPE_PHYS_* environment variables."""
    env = (ENV_JUDGE_MODEL, ENV_JUDGE_API_URL, ENV_JUDGE_API_KEY) if judge else (ENV_MODEL, ENV_API_URL, ENV_API_KEY)
    model = model or os.environ.get(env[0])
    if not model:
        return None
    if model_id is not None:
        try:
            safe_name(model_id, '--model-id')
        except UnsafePathError as exc:
            raise SuiteConfigError(str(exc)) from None
    return Endpoint(model=model, api_url=api_url or os.environ.get(env[1]),
                    api_key=api_key or os.environ.get(env[2]) or 'EMPTY', model_id=model_id)


def sub_run_name(seed: int) -> str:
    """Directory name of one seed's EvalScope run inside a suite work dir."""
    return f'seed_{seed}'


def _with_scope(dataset_args: Mapping[str, Any], scope: Optional[str]) -> Dict[str, Any]:
    """A copy of ``dataset_args`` with the suite's judge scope, unless the dataset sets its own."""
    args = copy.deepcopy(dict(dataset_args))
    if scope is not None:
        judge = args.setdefault('judge', {})
        if isinstance(judge, dict):
            judge.setdefault('scope', scope)
    return args


def build_task_configs(suite: Suite, model: Endpoint, work_dir: os.PathLike, seeds: Tuple[int, ...],
                       limit: Optional[float] = None, judge: Optional[Endpoint] = None,
                       datasets: Optional[List[str]] = None) -> List[Tuple[int, Dict[str, Any]]]:
    """One TaskConfig dict per seed; the seed goes to EvalScope and, without repeats, to the generation config."""
    names = list(datasets) if datasets else list(suite.datasets)
    missing = [n for n in names if n not in suite.datasets]
    if missing:
        raise SuiteConfigError(f'{suite.source}: --datasets names {missing}, which the suite does not list')
    judge_cfg: Optional[Dict[str, Any]] = None
    scope = (suite.judge or {}).get('scope')
    if suite.judge is not None:
        judge_cfg = {k: v for k, v in suite.judge.items() if k not in SUITE_ONLY_JUDGE_KEYS}
        if judge is not None:
            judge_model = {'model_id': judge.model, 'api_url': judge.api_url, 'api_key': judge.api_key}
            if 'generation_config' in judge_cfg:
                judge_model['generation_config'] = judge_cfg.pop('generation_config')
            judge_cfg['models'] = [judge_model]
        elif judge_cfg.get('strategy') in ('llm', 'llm_recall'):
            raise SuiteConfigError(
                f'{suite.source}: judge strategy {judge_cfg["strategy"]!r} needs --judge-model '
                f'(or {ENV_JUDGE_MODEL}) and --judge-api-url')
        else:
            judge_cfg.pop('generation_config', None)
    configs = []
    for seed in seeds:
        cfg: Dict[str, Any] = {
            'model': model.model,
            'datasets': names,
            'dataset_args': {n: _with_scope(suite.dataset_args[n], scope) for n in names},
            # EvalScope sends one generation config for every repeat of a problem; a fixed sampling seed
            # would make vLLM return the same answer N times and pass@k collapse to pass@1
            'generation_config': {**suite.generation, 'seed': seed} if suite.repeats == 1 else dict(suite.generation),
            'seed': seed,
            'repeats': suite.repeats,
            'work_dir': str(Path(work_dir) / sub_run_name(seed)),
            'no_timestamp': True,
            # a failed request is counted in execution_summary.errored instead of aborting the seed;
            # the next `suite run` of the same work dir asks only for those samples again
            'ignore_errors': True,
        }
        if model.model_id:
            cfg['model_id'] = model.model_id
        if model.api_url:
            cfg.update(api_url=model.api_url, api_key=model.api_key, eval_type='openai_api')
        if suite.model_args:
            cfg['model_args'] = copy.deepcopy(suite.model_args)
        if suite.eval_batch_size:
            cfg['eval_batch_size'] = suite.eval_batch_size
        effective_limit = limit if limit is not None else suite.limit
        if effective_limit is not None:
            cfg['limit'] = effective_limit
        if judge_cfg is not None:
            cfg['judge'] = copy.deepcopy(judge_cfg)
        configs.append((seed, cfg))
    return configs
