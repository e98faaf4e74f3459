"""The scoring worker process: its loop, its start without the caller's ``__main__``, its warm-up.

Why apart from :mod:`.pool`: this is what runs on the other side of the pipe (and what the
forkserver imports); the pool only decides which worker a call goes to and when one is killed.
"""
from __future__ import annotations

import gc
import importlib
import multiprocessing
import os
import signal
import sys
import threading
from contextlib import contextmanager
from multiprocessing.connection import wait as wait_for_ready
from typing import Any, Callable, List, Optional, Set

WORKER_START_TIMEOUT = 120.0
"""Seconds a new worker may take to import SymPy on a cold, loaded machine before we give up."""
PRELOAD_MODULES = ['sympy']
"""Imported and warmed up once per forkserver, so neither a call nor a restart pays for it."""
WARM_UP_MODULE = 'evalscope_phys.scoring.run.pool_warm_up'
"""Imported last by the forkserver: runs every preloaded module's ``warm_up()`` there, once."""
SETUP_MODULE = 'evalscope_phys.scoring.run.pool_setup'
"""Imported first by the forkserver, before numpy: how its processes run (:func:`one_blas_thread`)."""
BLAS_THREADS_ENV = ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS')
"""What numpy's BLAS libraries read, once, when numpy is imported."""
WORKER_MEMORY_LIMIT = 4 * 1024 ** 3
"""Address-space cap per worker (bytes): a runaway expansion fails with MemoryError, not the OOM killer."""
SHUTDOWN_GRACE = 2.0
"""Seconds a worker gets to exit after the stop message before it is killed."""
WORKER_NAME = 'evalscope-phys-scoring'
"""Process name of our workers; the one name whose start skips the caller's ``__main__``."""
SYMPY_CACHE_ENTRIES = '20000'
"""SymPy's construction cache in a scoring process (SymPy's default is 1000), see :func:`larger_sympy_cache`."""
COLLECT_EVERY = (5000, 10, 10)
"""A worker's garbage-collector thresholds (Python's default is ``(700, 10, 10)``), see :func:`fewer_collections`."""


def error_reason(exc: BaseException) -> str:
    return f'error: {type(exc).__name__}: {str(exc)[:300]}'


def _worker_main(conn: Any, memory_limit: int, preload: List[str]) -> None:
    """Worker loop: receive (fn, args), reply ('ok', value) or ('error', reason); None stops it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    except (ImportError, ValueError, OSError):
        pass
    one_blas_thread()  # before warm_up imports numpy under spawn; forked workers inherit the server's
    larger_sympy_cache()
    warm_up(preload)  # no-ops when forked from the warmed forkserver; the real work under spawn
    fewer_collections()
    conn.send(('ready', os.getpid()))
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        except Exception as exc:  # the task could not be unpickled here (e.g. fn defined in __main__)
            conn.send(('error', error_reason(exc)))
            continue
        if task is None:
            return
        fn, args = task
        try:
            reply = ('ok', fn(*args))
        except BaseException as exc:  # SystemExit, RecursionError, MemoryError: all the call's fault
            reply = ('error', error_reason(exc))
        try:
            conn.send(reply)
        except Exception as exc:  # an unpicklable result; the pickle fails before anything is written
            conn.send(('error', error_reason(exc)))


class Worker:
    """One worker process and our end of its pipe; it starts in a background thread.

    The pipe has at most one user at a time besides ``kill``: the start thread until the worker
    is ready, then the one caller the pool hands it to. ``kill`` closes the pipe only when nobody
    is using it (the user closes it on the way out), so a descriptor is never closed under a
    thread that is still polling it.
    """

    def __init__(self, ctx: Any, on_started: Callable[['Worker'], None]):
        self._lock = threading.Lock()
        self._killed = False
        self._users = 1  # the start thread
        self.ready = threading.Event()
        """Set once the start finished, successfully or not (then ``failure`` says why)."""
        self.failure: Optional[str] = None
        self.conn, child_conn = ctx.Pipe(duplex=True)
        self.process = ctx.Process(target=_worker_main, args=(child_conn, WORKER_MEMORY_LIMIT, list(PRELOAD_MODULES)),
                                   name=WORKER_NAME, daemon=True)
        self._on_started = on_started
        threading.Thread(target=self._start, args=(child_conn,), name='evalscope-phys-worker-start',
                         daemon=True).start()

    def _start(self, child_conn: Any) -> None:
        try:
            with self._lock:
                if self._killed:
                    raise RuntimeError('killed before it started')
                with _children_allowed():
                    self.process.start()
            child_conn.close()
            if not wait_for_ready([self.conn, self.process.sentinel], WORKER_START_TIMEOUT):
                raise RuntimeError(f'scoring worker did not start within {WORKER_START_TIMEOUT:.0f} s')
            try:
                self.conn.recv()  # ('ready', pid)
            except (EOFError, OSError):
                raise RuntimeError('scoring worker exited during start-up (see its stderr)') from None
        except Exception as exc:
            self.failure = str(exc) or type(exc).__name__
        finally:
            self.ready.set()
            self.leave()
        self._on_started(self)

    @property
    def usable(self) -> bool:
        return self.ready.is_set() and self.failure is None and not self._killed

    def enter(self) -> None:
        """A caller takes the pipe."""
        with self._lock:
            self._users += 1

    def leave(self) -> None:
        """The pipe's user is done with it; closes it if the worker was killed meanwhile."""
        with self._lock:
            self._users -= 1
            close = self._killed and self._users == 0
        if close:
            self.conn.close()

    def alive(self) -> bool:
        try:
            return self.process.is_alive()
        except ValueError:  # closed
            return False

    def kill(self) -> None:
        """Kill and reap (no zombie); safe to call twice and from two threads (exit and a deadline).

        The ``Process`` object is reaped but not closed: multiprocessing's exit handler joins every
        child it knows from another thread (a DataLoader worker ending while one of our workers is
        still starting), and joining a closed one raises. Its descriptors go with the object.
        """
        with self._lock:
            if self._killed:
                return
            self._killed = True
            close = self._users == 0
            try:
                if self.process.pid is not None:
                    if self.process.is_alive():
                        self.process.kill()
                    self.process.join(SHUTDOWN_GRACE)
            except ValueError:  # (never seen) the process object was closed elsewhere
                pass
        if close:
            self.conn.close()

    def ask_to_stop(self) -> None:
        try:
            self.conn.send(None)
        except (OSError, ValueError):
            pass


@contextmanager
def _children_allowed():
    """Let a daemonic process (a PyTorch DataLoader worker) start our workers.

    multiprocessing refuses children to daemonic processes because such a process is terminated
    without cleaning up. Our workers need no cleanup: they are daemons themselves and exit when
    their pipe closes, which it does when this process dies however it dies. So the flag is lifted
    for the start only (``BaseProcess._config['daemon']``, stable since Python 3.4).
    """
    process = multiprocessing.current_process()
    config = getattr(process, '_config', None)
    if not isinstance(config, dict) or not config.get('daemon'):
        yield
        return
    with _DAEMON_FLAG_LOCK:
        config['daemon'] = False
        try:
            yield
        finally:
            config['daemon'] = True


_DAEMON_FLAG_LOCK = threading.Lock()


def _start_without_caller_main() -> None:
    """Have processes named :data:`WORKER_NAME` start without re-running the caller's ``__main__``.

    multiprocessing's spawn and forkserver children import the parent's main module (by path or by
    name) before unpickling their target. Our target lives in this package, so that import only
    costs time, and breaks workers when the main script has no ``__name__`` guard (it runs again in
    the worker) or is not a file at all (``python - < script``: ``<stdin>``). The stdlib offers no
    switch for this, so the preparation data is filtered for our workers' name only; every other
    process the caller starts keeps the standard behaviour. (Relies on ``multiprocessing.spawn``'s
    ``get_preparation_data``, stable since Python 3.4; ``test_pool`` runs such scripts.)
    """
    from multiprocessing import spawn

    original = spawn.get_preparation_data
    if getattr(original, 'evalscope_phys_filtered', False):
        return

    def get_preparation_data(name: str) -> dict:
        data = original(name)
        if name == WORKER_NAME:
            data.pop('init_main_from_path', None)
            data.pop('init_main_from_name', None)
        return data

    get_preparation_data.evalscope_phys_filtered = True  # type: ignore[attr-defined]
    spawn.get_preparation_data = get_preparation_data


_forked_child = False
"""True in a process forked from one that may run a forkserver (a ``fork`` DataLoader worker)."""


def _note_fork() -> None:
    global _forked_child
    _forked_child = True


if hasattr(os, 'register_at_fork'):
    os.register_at_fork(after_in_child=_note_fork)


def in_forkserver() -> bool:
    """True while multiprocessing's forkserver ``main`` runs its preload, in that server."""
    from multiprocessing import forkserver

    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_name == 'main' and code.co_filename == forkserver.__file__:
            return True
        frame = frame.f_back
    return False


def one_blas_thread() -> None:
    """Have numpy's BLAS start no threads of its own in this (scoring) process.

    Why: OpenBLAS starts a thread per core at ``import numpy`` that spins for a while (0.1 s of CPU
    measured), during the boot, on the critical path of a one-pair job on a 2-core box; the workers'
    numpy work (EED's tables) is element-wise, never BLAS, and two workers with a BLAS thread per core
    each would only oversubscribe the cores. Only for scoring processes (the forkserver, spawned
    workers), whose environment is their own; the caller's is never touched.
    """
    for name in BLAS_THREADS_ENV:
        os.environ[name] = '1'


def larger_sympy_cache() -> None:
    """Have SymPy keep 20,000 constructed expressions instead of 1,000 (unless the user set
    ``SYMPY_CACHE_SIZE``). Read once, when SymPy is imported, so called before that.

    Why: a job builds the same sub-expressions again and again (a reference against every piece, each
    side of a relation both ways, the same sample of a definition), and 1,000 entries do not hold one
    multi-part job's. 1-3.5% less CPU on the 999 Yale jobs (two copies run at once, one per core, three
    rounds), about 13 MiB more per worker, and the same outputs: the cache returns what construction
    would have built."""
    os.environ.setdefault('SYMPY_CACHE_SIZE', SYMPY_CACHE_ENTRIES)


def fewer_collections() -> None:
    """Leave the warmed-up modules out of the garbage collector's scans, and scan less often.

    Why: scoring allocates millions of short-lived SymPy objects, and every full collection walked the
    ~350,000 objects of SymPy, pint and their caches again: 1.1 s of CPU over the 999 Yale jobs (6%),
    0.36 s with this (``gc.callbacks`` timing in one process). Nothing of the warm-up is garbage, so
    freezing it loses nothing; a larger first threshold keeps at most a few thousand more young
    objects between collections. Verdicts cannot change: collection decides only when cyclic garbage is
    freed."""
    gc.freeze()
    gc.set_threshold(*COLLECT_EVERY)


def start_context() -> Any:
    # Never 'fork': EvalScope's parent is threaded. forkserver forks from a clean single-threaded
    # server that has imported and warmed up SymPy once; spawn is the portable fallback, and the
    # choice in a forked child, which inherits the parent's forkserver handle but is not its parent.
    _start_without_caller_main()
    if 'forkserver' in multiprocessing.get_all_start_methods() and not _forked_child:
        ctx = multiprocessing.get_context('forkserver')
        ctx.set_forkserver_preload([SETUP_MODULE] + list(PRELOAD_MODULES) + [WARM_UP_MODULE])
        return ctx
    return multiprocessing.get_context('spawn')


_warmed: Set[str] = set()


def warm_up(modules: List[str]) -> None:
    """Imports, then each module's optional ``warm_up()`` (once per process): paid at start, not by an answer."""
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if name in _warmed:
            continue
        _warmed.add(name)
        hook = getattr(module, 'warm_up', None)
        if callable(hook):
            try:
                hook()
            except Exception:  # a failed warm-up only costs time later, never the worker
                pass
