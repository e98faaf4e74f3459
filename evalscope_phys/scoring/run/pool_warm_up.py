"""Imported last by the scoring forkserver: warms up every preloaded module there, once.

Why: a worker forked from a warmed forkserver inherits the warmed state (SymPy caches, the pint
unit registry, ...), so a replacement after a timeout is ready in milliseconds instead of paying
seconds of warm-up against the next answer's deadline. Importing this anywhere else only runs
the same idempotent warm-ups.

It also makes the forkserver's own exit immediate (:func:`_exit_at_once`).
"""
import atexit
import os
import sys

from evalscope_phys.scoring.run import worker


def _exit_at_once() -> None:
    """Leave without the interpreter's teardown of SymPy, pint and numpy (0.3-0.6 s of CPU).

    Why: the forkserver exits when its parent does, and until it is gone it holds the parent's
    stdout and stderr open, so a caller reading them to EOF (a pipe, ``$(...)``) waits that long
    after our exit. Registered only in the forkserver, where nothing is left to clean up by then
    (its workers are separate processes; it owns no files). Handlers registered after this one
    (modules imported later) still run first; earlier ones (multiprocessing's own: nothing to do in
    the server) are skipped.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(0)


EXITS_AT_ONCE = worker.in_forkserver()
"""Whether this process leaves through :func:`_exit_at_once` (only the forkserver)."""
if EXITS_AT_ONCE:
    atexit.register(_exit_at_once)
worker.warm_up(list(worker.PRELOAD_MODULES))
