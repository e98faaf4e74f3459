"""Shared test helpers: where the shared public data lives, and a real `evalscope eval` run."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA_ENV = 'EVALSCOPE_PHYS_SHARED_DATA'
"""Where the shared public data is, when not at ``../shared/data``."""
REQUIRE_SHARED_ENV = 'EVALSCOPE_PHYS_REQUIRE_SHARED'
"""Set (``.ci/run`` does) to make tests that need the shared data fail, not skip, when it is absent."""
SHARED_DATA = Path(os.environ.get(SHARED_DATA_ENV) or ROOT / '..' / 'shared' / 'data').resolve()


def benchmark_adapter(name: str, dataset_args: Optional[Dict[str, Any]] = None, **task: Any):
    """Our adapter as EvalScope builds it for ``--datasets name --dataset-args '{name: dataset_args}'``."""
    from evalscope.api.registry import get_benchmark
    from evalscope.config import TaskConfig

    config = TaskConfig(model='x', eval_type='mock_llm', datasets=[name], dataset_args={name: dataset_args or {}},
                        **task)
    return get_benchmark(name, config)


def load_subsets(name: str, local_path: Any, **dataset_args: Any) -> Dict[str, list]:
    """subset -> Samples, as the adapter loads them from ``local_path``."""
    data = benchmark_adapter(name, {'local_path': str(local_path), **dataset_args}).load_dataset()
    return {subset: list(rows) for subset, rows in data.items()}


@dataclass(frozen=True)
class BenchmarkSetup:
    """One adapter's test set-up, shared by every ``tests/benchmarks/test_<name>.py``.

    ``sample`` and ``replay`` are the bundled demo files of ``demo.yaml``; ``adapter`` and ``load``
    build the adapter as EvalScope does (:func:`benchmark_adapter`, :func:`load_subsets`).
    """

    name: str

    def _demo(self, key: str) -> Path:
        from evalscope_phys.demo import DEMO_DIR, demo_config

        return DEMO_DIR / demo_config([self.name])['benchmarks'][self.name][key]

    @property
    def sample(self) -> Path:
        return self._demo('local_path')

    @property
    def replay(self) -> Path:
        return self._demo('replay')

    def adapter(self, dataset_args: Optional[Dict[str, Any]] = None, **task: Any):
        return benchmark_adapter(self.name, dataset_args, **task)

    def load(self, local_path: Any, **dataset_args: Any) -> Dict[str, list]:
        return load_subsets(self.name, local_path, **dataset_args)


def kinds_without_negative(cases: Sequence[Dict[str, Any]], accepts=lambda c: c['strict'] or c['lenient']) -> List[str]:
    """The kinds of a golden table that have an accepted row but no ``NEGATIVE`` row: every accept
    path needs a case it must not accept."""
    positive = {c['kind'] for c in cases if accepts(c)}
    negative = {c['kind'] for c in cases if c['why'].startswith('NEGATIVE')}
    return sorted(positive - negative)


def check_golden_case(case: Dict[str, Any]) -> None:
    """One row of a golden table (reference, answer, optional question, expected strict and lenient,
    optional reason, why) scored end to end; the message says why the row exists."""
    from evalscope_phys.scoring import score_answer
    verdict = score_answer(case['reference'], case['answer'], question=case.get('question'))
    context = f"{case['why']}: {case['reference']!r} vs {case['answer']!r} -> {verdict}"
    assert (verdict.strict, verdict.lenient) == (case['strict'], case['lenient']), context
    if 'reason' in case:
        assert verdict.reason == case['reason'], context


def missing_shared_data(message: str) -> None:
    """Skip the calling test, or fail it when ``EVALSCOPE_PHYS_REQUIRE_SHARED`` is set (CI skips nothing unseen)."""
    if os.environ.get(REQUIRE_SHARED_ENV, '').strip() not in ('', '0'):
        pytest.fail(f'{message}, and {REQUIRE_SHARED_ENV} is set: tests that need the shared data must run here '
                    f'(put it at {SHARED_DATA} or set {SHARED_DATA_ENV})', pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope='session')
def shared_data() -> Path:
    """``../shared/data`` (or ``$EVALSCOPE_PHYS_SHARED_DATA``); absent: skip, or fail under CI's variable."""
    if not SHARED_DATA.is_dir():
        missing_shared_data(f'shared public data not found at {SHARED_DATA}')
    return SHARED_DATA


@dataclass
class EvalRun:
    """What one `evalscope eval` subprocess left behind."""

    process: subprocess.CompletedProcess
    work_dir: Path

    @property
    def reports(self) -> Dict[str, Dict[str, Any]]:
        return {p.stem: json.loads(p.read_text()) for p in self.work_dir.rglob('reports/*/*.json')}

    def reviews(self, dataset: str) -> List[Dict[str, Any]]:
        rows = []
        for path in sorted(self.work_dir.rglob(f'reviews/*/{dataset}_*.jsonl')):
            # split on '\n' only: str.splitlines() also breaks at U+2028 inside JSON strings
            rows += [json.loads(line) for line in path.read_text(encoding='utf-8').split('\n') if line.strip()]
        return rows

    def metric(self, dataset: str, name: str) -> Dict[str, Any]:
        report = self.reports[dataset]
        return next(m for m in report['metrics'] if m['identity']['name'] == name)


def run_evalscope_eval(api_url: str, datasets: Sequence[str], dataset_args: Dict[str, Any], work_dir: Path,
                       extra: Sequence[str] = (), judge: Optional[Dict[str, Any]] = None,
                       generation: Optional[Dict[str, Any]] = None, timeout: float = 600) -> EvalRun:
    """The real CLI in a subprocess, as a user would type it, against a local server."""
    # Fail fast on a faulty server: no SDK retries under EvalScope's own, one EvalScope retry.
    gen = {'temperature': 0.0, 'max_tokens': 1024, 'timeout': 10, 'retries': 1, 'retry_interval': 0}
    gen.update(generation or {})
    cmd = [sys.executable, '-m', 'evalscope.cli.cli', 'eval', '--model', 'replay', '--api-url', api_url,
           '--api-key', 'EMPTY', '--eval-type', 'openai_api', '--datasets', *datasets,
           '--dataset-args', json.dumps(dataset_args), '--generation-config', json.dumps(gen),
           '--model-args', json.dumps({'max_retries': 0}), '--ignore-errors',
           '--eval-batch-size', '4', '--work-dir', str(work_dir), '--no-timestamp', *extra]
    if judge is not None:
        cmd += ['--judge', json.dumps(judge)]
    env = {**os.environ, 'HF_HUB_OFFLINE': '1', 'TOKENIZERS_PARALLELISM': 'false'}
    process = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=str(work_dir.parent))
    return EvalRun(process, work_dir)


@pytest.fixture()
def evalscope_eval():
    """``evalscope_eval(api_url, datasets, dataset_args, work_dir, ...) -> EvalRun``."""
    return run_evalscope_eval


@pytest.fixture(scope='session')
def ray_cluster():
    """One local 2-CPU Ray cluster for the whole session (starting one takes seconds), shut down after."""
    ray = pytest.importorskip('ray')
    pytest.importorskip('ray.data')
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=256 << 20)
    yield ray
    if started:
        ray.shutdown()
