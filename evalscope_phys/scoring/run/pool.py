"""A pool of scoring worker processes with a hard deadline per call, usable from any thread.

Why: EvalScope scores in worker threads, where SIGALRM timeouts (what the official PHYBench scorer
uses) do not work, and SymPy cannot be interrupted from another thread. The only hard deadline is a
process we can kill. ``run_limited`` sends a call to one of a few persistent worker processes
(shared by every thread of the process) and kills that worker if the call overruns.

**The deadline covers the caller's whole wait**: waiting for a free worker, for a worker that is
(re)starting, and the call itself. When the budget is spent the caller gets ``timeout`` at once;
no thread ever blocks longer because others are queued ahead of it. Restarts are cheap: workers
are forked from a forkserver that has imported *and warmed up* SymPy and
whatever :func:`add_preload` names (their ``warm_up()`` runs there once), so a replacement after a
kill is ready in milliseconds, and a replacement is started as soon as a worker is killed.

The one exception is the pool's **boot**, paid once per process (start the forkserver, import and
warm up SymPy and the engine there: seconds on a loaded 2-core box; the calling process imports
nothing of SymPy: everything that reads an answer runs in a worker): a call
that finds the pool not yet booted waits for it (at most ``WORKER_START_TIMEOUT``) before its
deadline starts. Charging the boot to the first
answers would turn them into ``timeout`` on a slow machine and make verdicts depend on how old the
process is. :func:`start_pool` begins the boot early, without waiting.

**Independent of the caller's ``__main__``**: multiprocessing normally re-imports the parent's main
script in every child, so a script without an ``if __name__ == '__main__':`` guard, ``python - <
script`` (main ``<stdin>``) or ``python -m`` tools would break their workers. Our workers only need
this package, and are started without the caller's main (:func:`.worker._start_without_caller_main`).
"""
from __future__ import annotations

import atexit
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Set

from .limits import ANSWER_DEADLINE
from .worker import (  # noqa: F401 (WORKER_NAME, warm_up: part of the pool's surface)
    PRELOAD_MODULES, SHUTDOWN_GRACE, WORKER_NAME, WORKER_START_TIMEOUT, error_reason, start_context, Worker,
    warm_up)

WORKERS_ENV = 'EVALSCOPE_PHYS_SCORING_WORKERS'
"""Pool size override; the default is min(2, CPU count): SymPy is CPU-bound, more does not help."""
@dataclass(frozen=True)
class LimitedResult:
    """Outcome of one limited call. ``reason`` is None when ``ok``."""

    ok: bool
    value: Any = None
    reason: Optional[str] = None
    """'timeout' | 'worker_crashed' | 'error: <ExcType>: <msg>'."""
    seconds: float = 0.0
    """Wall time the caller waited (queueing and restarts included; the one-time boot excluded)."""


def default_worker_count() -> int:
    """``EVALSCOPE_PHYS_SCORING_WORKERS`` or min(2, CPU count)."""
    raw = os.environ.get(WORKERS_ENV, '').strip()
    if not raw:
        return max(1, min(2, os.cpu_count() or 1))
    try:
        count = int(raw)
    except ValueError:
        raise ValueError(f'{WORKERS_ENV} must be a positive integer, got {raw!r}') from None
    if count < 1:
        raise ValueError(f'{WORKERS_ENV} must be a positive integer, got {raw!r}')
    return count


class PoolClosedError(RuntimeError):
    """The pool was shut down while a call waited for it."""


class WorkerPool:
    """Up to ``size`` workers; a worker starts on first need and is replaced as soon as it is killed."""

    def __init__(self, size: int):
        if size < 1:
            raise ValueError(f'pool size must be >= 1, got {size}')
        self.size = size
        self._ctx = start_context()
        self._cond = threading.Condition()
        self._idle: List[Worker] = []  # ready or still starting, not in use
        self._all: Set[Worker] = set()
        self._booted = False
        self.boot_started = threading.Event()
        """Set once the boot has begun (a worker is starting): what early starts are tested by."""
        self._boot_error: Optional[str] = None
        self._closed = False

    # --- boot -------------------------------------------------------------------------------

    def start(self, workers: Optional[int] = None) -> None:
        """Begin starting ``workers`` (default: all) without waiting (the boot); a no-op once started.

        A small job starts one worker: the others would only compete with it for the CPU, and a
        second call in flight still starts its own worker on demand (``_acquire``).
        """
        with self._cond:
            if self._closed:
                return
            if self._boot_error is not None and not self._all:
                self._boot_error = None  # the last boot failed: try again
            target = self.size if workers is None else max(1, min(self.size, workers))
            while len(self._all) < target:
                self._idle.append(self._spawn())
            self.boot_started.set()

    def _wait_for_boot(self) -> Optional[str]:
        """Block until one worker is ready; an error message if the boot failed."""
        if self._booted:
            return None
        self.start(1 if self.boot_started.is_set() else None)  # a failed boot is tried again
        end = time.monotonic() + WORKER_START_TIMEOUT + SHUTDOWN_GRACE
        with self._cond:
            while not self._booted and self._boot_error is None and not self._closed:
                remaining = end - time.monotonic()
                if remaining <= 0:
                    return f'no scoring worker started within {WORKER_START_TIMEOUT:.0f} s'
                self._cond.wait(remaining)
            if self._closed:
                return 'the scoring pool has been shut down'
            if not self._booted:
                return self._boot_error
        return None

    def _spawn(self) -> Worker:
        """A new worker, counted in ``_all`` (call with ``_cond`` held)."""
        worker = Worker(self._ctx, self._started)
        self._all.add(worker)
        return worker

    def _started(self, worker: Worker) -> None:
        """Start thread's report: the boot succeeds with the first ready worker."""
        with self._cond:
            if worker.failure is None:
                self._booted = True
            elif not self._booted:
                self._boot_error = f'scoring worker failed to start: {worker.failure}'
            self._cond.notify_all()
        if worker.failure is not None:
            self._discard(worker, replace=False)

    # --- workers in and out -------------------------------------------------------------------

    def _acquire(self, deadline: float) -> Optional[Worker]:
        """A worker for one call (ready preferred, else one still starting), or None past the deadline."""
        with self._cond:
            while True:
                if self._closed:
                    raise PoolClosedError('the scoring pool has been shut down')
                if self._idle:
                    ready = [w for w in self._idle if w.usable]
                    worker = ready[-1] if ready else self._idle[-1]
                    self._idle.remove(worker)
                    worker.enter()
                    return worker
                if len(self._all) < self.size:
                    worker = self._spawn()
                    worker.enter()
                    return worker
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._cond.wait(remaining)

    def _release(self, worker: Worker) -> None:
        """Give a healthy worker back."""
        worker.leave()
        with self._cond:
            if self._closed or worker not in self._all:
                return
            self._idle.append(worker)
            self._cond.notify()

    def _discard(self, worker: Worker, replace: bool = True) -> None:
        """Kill ``worker`` and (unless the pool is closed) start its replacement at once."""
        worker.kill()
        with self._cond:
            if worker in self._all:
                self._all.discard(worker)
                if worker in self._idle:
                    self._idle.remove(worker)
                if replace and not self._closed and len(self._all) < self.size:
                    self._idle.append(self._spawn())
            self._cond.notify_all()

    # --- one call -----------------------------------------------------------------------------

    def run(self, fn: Callable[..., Any], args: tuple, timeout: float, wait: Optional[float] = None,
            on_start: Optional[Callable[[], None]] = None) -> LimitedResult:
        """``fn(*args)`` in a worker. ``wait=None``: ``timeout`` bounds the whole wait (queue included).

        With ``wait``, ``timeout`` is the call's own budget, counted from the moment a worker takes
        it, and ``wait`` bounds the caller's whole wait (queue and work); ``on_start`` is told when
        the worker takes the call.
        """
        boot_error = self._wait_for_boot()
        if boot_error is not None:
            return LimitedResult(False, reason=f'error: RuntimeError: {boot_error}')
        start = time.monotonic()
        overall = start + max(0.0, timeout if wait is None else wait)
        deadline = overall

        def spent(reason: str = 'timeout') -> LimitedResult:
            return LimitedResult(False, reason=reason, seconds=time.monotonic() - start)

        for _ in range(self.size + 2):  # a worker found dead is replaced and the call tried again
            try:
                worker = self._acquire(overall)
            except PoolClosedError as exc:
                return LimitedResult(False, reason=error_reason(exc), seconds=time.monotonic() - start)
            if worker is None:
                return spent()
            if not worker.ready.wait(max(0.0, overall - time.monotonic())):
                self._release(worker)  # still starting: the next caller will find it ready
                return spent()
            if worker.failure is not None:
                worker.leave()
                self._discard(worker)
                return spent('worker_crashed')
            if not worker.alive():  # killed from outside while idle
                worker.leave()
                self._discard(worker)
                continue
            if wait is not None:  # the budget starts now that a worker has the call
                deadline = min(overall, time.monotonic() + max(0.0, timeout))
            try:
                worker.conn.send((fn, args))
            except (BrokenPipeError, ConnectionResetError, EOFError, OSError):
                worker.leave()  # died just before our call: it never saw the task, so try another
                self._discard(worker)
                continue
            except Exception as exc:  # fn or args cannot be pickled; nothing was sent
                self._release(worker)
                return LimitedResult(False, reason=error_reason(exc), seconds=time.monotonic() - start)
            if on_start is not None:
                on_start()
            try:
                if not worker.conn.poll(max(0.0, deadline - time.monotonic())):
                    worker.leave()
                    self._discard(worker)
                    return spent()
                status, payload = worker.conn.recv()
            except (EOFError, OSError, ValueError):
                worker.leave()
                self._discard(worker)
                return spent('worker_crashed')
            self._release(worker)
            seconds = time.monotonic() - start
            if status == 'ok':
                return LimitedResult(True, value=payload, seconds=seconds)
            return LimitedResult(False, reason=payload, seconds=seconds)
        return spent('worker_crashed')

    def worker_pids(self) -> List[int]:
        """Pids of the running worker processes, ready or still starting (for tests and diagnostics)."""
        with self._cond:
            workers = list(self._all)
        pids = []
        for worker in workers:
            try:
                if worker.process.pid is not None and worker.alive():
                    pids.append(worker.process.pid)
            except ValueError:  # closed meanwhile
                continue
        return sorted(pids)

    def shutdown(self) -> None:
        """Stop every worker and reap it; calls in flight get 'worker_crashed', waiting ones an error."""
        with self._cond:
            self._closed = True
            workers = list(self._all)
            idle = list(self._idle)
            self._all.clear()
            self._idle.clear()
            self._cond.notify_all()
        for worker in idle:
            if worker.usable:
                worker.ask_to_stop()
        deadline = time.monotonic() + SHUTDOWN_GRACE
        for worker in idle:
            if worker.usable:
                try:
                    worker.process.join(max(0.0, deadline - time.monotonic()))
                except (ValueError, AssertionError):
                    pass
        for worker in workers:
            worker.kill()


_pool: Optional[WorkerPool] = None
_pool_lock = threading.Lock()


def get_pool() -> WorkerPool:
    """The process-wide pool, created on first use (no process starts until a call needs one)."""
    global _pool
    with _pool_lock:
        if _pool is None or _pool._closed:
            _pool = WorkerPool(default_worker_count())
        return _pool


def start_pool(wait: bool = False, workers: Optional[int] = None) -> Optional[str]:
    """Begin booting the shared pool now, so the first answers do not wait for it.

    ``workers`` starts only that many now (a small job: one); a later call without it starts the
    rest. ``wait=True`` blocks until one worker is ready (returns the boot's error message, or None).
    """
    pool = get_pool()
    pool.start(workers)
    return pool._wait_for_boot() if wait else None


def configure_pool(workers: int) -> None:
    """Resize the shared pool (e.g. from ``--workers``); running workers are stopped first."""
    global _pool
    with _pool_lock:
        old, _pool = _pool, WorkerPool(workers)
    if old is not None:
        old.shutdown()


def shutdown_pool() -> None:
    """Stop the shared pool's workers; the next ``run_limited`` starts a fresh pool."""
    with _pool_lock:
        pool = _pool
    if pool is not None:
        pool.shutdown()


atexit.register(shutdown_pool)


def _forget_parent_pool() -> None:
    """A forked child (a DataLoader worker, a ``fork`` pool) gets a pool of its own on first use.

    Why: the parent's workers answer the parent's pipes; the child must neither use nor kill them
    (at its exit), and a lock held by a parent thread at the fork would never be released here.
    """
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


if hasattr(os, 'register_at_fork'):
    os.register_at_fork(after_in_child=_forget_parent_pool)


def run_limited(fn: Callable[..., Any], *args: Any, timeout: Optional[float] = ANSWER_DEADLINE,
                wait: Optional[float] = None, on_start: Optional[Callable[[], None]] = None) -> LimitedResult:
    """Run ``fn(*args)`` in a pool worker; the caller waits at most ``timeout`` seconds in all.

    With ``wait``, ``timeout`` is instead the call's budget from the moment a worker takes it, and
    ``wait`` the bound on the whole wait (see :meth:`WorkerPool.run`): a call queued behind slow ones
    keeps its full budget.

    ``fn`` and ``args`` travel by pickle, so ``fn`` must be importable (a module-level function).
    ``timeout=None`` runs ``fn`` inline in the calling thread with no deadline: exceptions are still
    caught, but nothing can stop a slow call, so use it only for inputs that passed
    ``check_text_limits``/``check_expr_limits`` and for debugging.
    """
    if timeout is None:
        start = time.perf_counter()
        try:
            value = fn(*args)
        except Exception as exc:
            return LimitedResult(False, reason=error_reason(exc), seconds=time.perf_counter() - start)
        return LimitedResult(True, value=value, seconds=time.perf_counter() - start)
    return get_pool().run(fn, args, timeout, wait, on_start)


def add_preload(module: str) -> None:
    """Have workers import ``module`` (and run its ``warm_up()``) before they report ready.

    Modules named before the pool's first start are preloaded and warmed in the forkserver, once;
    later ones in every new worker.
    """
    if module not in PRELOAD_MODULES:
        PRELOAD_MODULES.append(module)
