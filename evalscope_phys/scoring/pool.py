"""A pool of scoring worker processes with a hard deadline per call, usable from any thread.

Why: EvalScope scores in worker threads, where SIGALRM timeouts (what the official PHYBench scorer
uses) do not work, and SymPy cannot be interrupted from another thread. The only hard deadline is a
process we can kill. ``run_limited`` sends a call to one of a few persistent worker processes
(started lazily, shared by every thread of the process, pre-importing SymPy, latex2sympy2_extended
and whatever :func:`add_preload` names, once) and kills that worker if the call overruns; the pool
starts a fresh one for the next caller, and other callers never notice. A preloaded module's
``warm_up()`` runs before the worker reports ready, so no answer's deadline pays for start-up.
"""
from __future__ import annotations

import atexit
import importlib
import multiprocessing
import os
import queue
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Set

WORKERS_ENV = 'EVALSCOPE_PHYS_SCORING_WORKERS'
"""Pool size override; the default is min(2, CPU count): SymPy is CPU-bound, more does not help."""
DEFAULT_TIMEOUT = 5.0
"""Seconds per call; the issue's budget for scoring one answer in total."""
WORKER_START_TIMEOUT = 120.0
"""Seconds a new worker may take to import SymPy on a cold, loaded machine before we give up."""
PRELOAD_MODULES = ['sympy', 'latex2sympy2_extended']
"""Imported once per worker (once per forkserver), so no call pays SymPy's ~0.5 s import."""
WORKER_MEMORY_LIMIT = 4 * 1024 ** 3
"""Address-space cap per worker (bytes): a runaway expansion fails with MemoryError, not the OOM killer."""
SHUTDOWN_GRACE = 2.0
"""Seconds a worker gets to exit after the stop message before it is killed."""


@dataclass(frozen=True)
class LimitedResult:
    """Outcome of one limited call. ``reason`` is None when ``ok``."""

    ok: bool
    value: Any = None
    reason: Optional[str] = None
    """'timeout' | 'worker_crashed' | 'error: <ExcType>: <msg>'."""
    seconds: float = 0.0
    """Wall time of the call itself (excluding waiting for a free worker)."""


def _error_reason(exc: BaseException) -> str:
    return f'error: {type(exc).__name__}: {str(exc)[:300]}'


def _worker_main(conn: Any, memory_limit: int, preload: List[str]) -> None:
    """Worker loop: receive (fn, args), reply ('ok', value) or ('error', reason); None stops it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    except (ImportError, ValueError, OSError):
        pass
    _preload(preload)
    conn.send(('ready', os.getpid()))
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        except Exception as exc:  # the task could not be unpickled here (e.g. fn defined in __main__)
            conn.send(('error', _error_reason(exc)))
            continue
        if task is None:
            return
        fn, args = task
        try:
            reply = ('ok', fn(*args))
        except BaseException as exc:  # SystemExit, RecursionError, MemoryError: all the call's fault
            reply = ('error', _error_reason(exc))
        try:
            conn.send(reply)
        except Exception as exc:  # an unpicklable result; the pickle fails before anything is written
            conn.send(('error', _error_reason(exc)))


class _Worker:
    """One worker process and our end of its pipe."""

    def __init__(self, ctx: Any):
        self._kill_lock = threading.Lock()
        self._killed = False
        self.conn, child_conn = ctx.Pipe(duplex=True)
        self.process = ctx.Process(target=_worker_main, args=(child_conn, WORKER_MEMORY_LIMIT, list(PRELOAD_MODULES)),
                                   name='evalscope-phys-scoring', daemon=True)
        self.process.start()
        child_conn.close()
        if not self.conn.poll(WORKER_START_TIMEOUT):
            self.kill()
            raise RuntimeError(f'scoring worker did not start within {WORKER_START_TIMEOUT:.0f} s')
        try:
            self.conn.recv()  # ('ready', pid)
        except EOFError:
            self.kill()
            raise RuntimeError('scoring worker exited during start-up; is the main script guarded by '
                               "if __name__ == '__main__'? (see its stderr)") from None

    def alive(self) -> bool:
        return self.process.is_alive()

    def kill(self) -> None:
        """Kill, reap (no zombie) and release the pipe; safe to call twice, and from two threads.

        At exit, ``shutdown_pool`` and a caller whose deadline just fired may kill the same worker
        at once; without the lock both would close the pipe's descriptor (EBADF, or worse, a
        descriptor number already reused elsewhere).
        """
        with self._kill_lock:
            if self._killed:
                return
            self._killed = True
            try:
                if self.process.is_alive():
                    self.process.kill()
                self.process.join(SHUTDOWN_GRACE)
                self.process.close()
            except ValueError:  # already closed, or (never seen) still running after SIGKILL
                pass
            self.conn.close()

    def ask_to_stop(self) -> None:
        try:
            self.conn.send(None)
        except (OSError, ValueError):
            pass


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


def _start_context() -> Any:
    # Never 'fork': EvalScope's parent is threaded. forkserver forks from a clean single-threaded
    # server that has imported SymPy once; spawn is the portable fallback.
    if 'forkserver' in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context('forkserver')
        ctx.set_forkserver_preload(list(PRELOAD_MODULES))
        return ctx
    return multiprocessing.get_context('spawn')


class WorkerPool:
    """A fixed number of worker slots; a slot starts its process on first use or after a kill."""

    def __init__(self, size: int):
        if size < 1:
            raise ValueError(f'pool size must be >= 1, got {size}')
        self.size = size
        self._ctx = _start_context()
        self._slots: 'queue.LifoQueue[List[Optional[_Worker]]]' = queue.LifoQueue()
        for _ in range(size):
            self._slots.put([None])
        self._live: Set[_Worker] = set()
        self._lock = threading.Lock()
        self._closed = False

    def run(self, fn: Callable[..., Any], args: tuple, timeout: float) -> LimitedResult:
        slot = self._slots.get()  # waiting for a free worker is not part of the deadline
        try:
            return self._run_in_slot(slot, fn, args, timeout)
        finally:
            self._slots.put(slot)

    def _worker_for(self, slot: List[Optional[_Worker]]) -> _Worker:
        worker = slot[0]
        if worker is not None and not worker.alive():  # killed from outside while idle
            self._retire(slot)
            worker = None
        if worker is None:
            if self._closed:
                raise RuntimeError('the scoring pool has been shut down')
            worker = _Worker(self._ctx)
            with self._lock:
                self._live.add(worker)
            slot[0] = worker
        return worker

    def _retire(self, slot: List[Optional[_Worker]]) -> None:
        worker = slot[0]
        slot[0] = None
        if worker is not None:
            worker.kill()
            with self._lock:
                self._live.discard(worker)

    def _run_in_slot(self, slot: List[Optional[_Worker]], fn: Callable[..., Any], args: tuple,
                     timeout: float) -> LimitedResult:
        for attempt in range(2):
            try:
                worker = self._worker_for(slot)
            except Exception as exc:
                return LimitedResult(False, reason=_error_reason(exc))
            start = time.perf_counter()
            try:
                worker.conn.send((fn, args))
            except (BrokenPipeError, ConnectionResetError, EOFError):
                self._retire(slot)  # died just before our call: it never saw the task, so retry
                if attempt == 0:
                    continue
                return LimitedResult(False, reason='worker_crashed')
            except Exception as exc:  # fn or args cannot be pickled; nothing was sent
                return LimitedResult(False, reason=_error_reason(exc))
            try:
                if not worker.conn.poll(max(0.0, timeout)):
                    self._retire(slot)
                    return LimitedResult(False, reason='timeout', seconds=time.perf_counter() - start)
                status, payload = worker.conn.recv()
            except (EOFError, OSError):
                self._retire(slot)
                return LimitedResult(False, reason='worker_crashed', seconds=time.perf_counter() - start)
            seconds = time.perf_counter() - start
            if status == 'ok':
                return LimitedResult(True, value=payload, seconds=seconds)
            return LimitedResult(False, reason=payload, seconds=seconds)
        raise AssertionError('unreachable')

    def worker_pids(self) -> List[int]:
        """Pids of the running workers (for tests and diagnostics)."""
        with self._lock:
            return sorted(w.process.pid for w in self._live if w.alive())

    def shutdown(self) -> None:
        """Stop every worker and reap it; calls already waiting get 'worker_crashed'."""
        self._closed = True
        with self._lock:
            workers = list(self._live)
            self._live.clear()
        for worker in workers:
            worker.ask_to_stop()
        deadline = time.monotonic() + SHUTDOWN_GRACE
        for worker in workers:
            try:
                worker.process.join(max(0.0, deadline - time.monotonic()))
            except ValueError:
                pass
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


def run_limited(fn: Callable[..., Any], *args: Any, timeout: Optional[float] = DEFAULT_TIMEOUT) -> LimitedResult:
    """Run ``fn(*args)`` in a pool worker with a hard deadline of ``timeout`` seconds.

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
            return LimitedResult(False, reason=_error_reason(exc), seconds=time.perf_counter() - start)
        return LimitedResult(True, value=value, seconds=time.perf_counter() - start)
    return get_pool().run(fn, args, timeout)


def add_preload(module: str) -> None:
    """Have every worker started from now on import ``module`` (and run its ``warm_up()``) first."""
    if module not in PRELOAD_MODULES:
        PRELOAD_MODULES.append(module)


def _preload(modules: List[str]) -> None:
    """Imports, then each module's optional ``warm_up()``: paid at worker start, not by an answer."""
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        warm_up = getattr(module, 'warm_up', None)
        if callable(warm_up):
            try:
                warm_up()
            except Exception:  # a failed warm-up only costs time later, never the worker
                pass
