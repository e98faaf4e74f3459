"""When the scoring workers start booting: as early as a run of ours is known, never for a run without us.

The boot (forkserver, SymPy, pint, the engine: 1-2 s on a loaded 2-core box) must be over before the
first answer is scored, or the first answers wait for it. Two moments start it, whichever comes first:

* a run begins (:func:`start_for_run`, called by the ``.pth`` hook as EvalScope's ``run_single_task``
  starts): a native run naming one of our benchmarks. EvalScope's own set-up comes after that point
  (seeding imports torch, the work directory, the evaluator: 2-3 s measured), so the boot overlaps it;
* an adapter locates its data (:func:`start_scoring_workers`, from ``benchmarks.base``): adapters used
  without EvalScope's run (tests, our suite's own loaders) still start the boot before reading rows.

Both only begin the boot (no wait) and start nothing twice.
"""
from __future__ import annotations

from typing import Any

NATIVE_BACKEND = 'Native'
"""EvalScope's ``eval_backend`` that runs our adapters (the others hand the run to another tool)."""


def start_scoring_workers() -> None:
    """Begin booting the scoring workers (no wait)."""
    from evalscope_phys.scoring import engine  # noqa: F401  registers the engine for the workers' preload
    from evalscope_phys.scoring.run.pool import start_pool

    start_pool()


def runs_our_benchmark(task_config: Any) -> bool:
    """Whether ``task_config`` (EvalScope's ``TaskConfig``) evaluates one of our benchmarks natively."""
    from evalscope_phys.registration import BENCHMARK_MODULES

    backend = getattr(task_config, 'eval_backend', NATIVE_BACKEND)
    if backend is not None and str(getattr(backend, 'value', backend)) != NATIVE_BACKEND:
        return False
    datasets = getattr(task_config, 'datasets', None) or ()
    if isinstance(datasets, str):
        datasets = (datasets,)
    return any(isinstance(name, str) and name in BENCHMARK_MODULES for name in datasets)


def start_for_run(task_config: Any) -> bool:
    """Start the boot when the run that begins evaluates one of ours; whether it did."""
    if not runs_our_benchmark(task_config):
        return False
    start_scoring_workers()
    return True
