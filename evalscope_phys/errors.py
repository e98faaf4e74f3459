"""Errors a user can act on, shown as one line instead of a traceback in any EvalScope process.

Why: ``evalscope eval`` lets an exception raised while loading a benchmark reach the interpreter, which
prints ~40 lines of traceback around the one sentence that says what to do (a missing ``local_path``,
a file whose rows were all excluded). :func:`install_excepthook` (run by the import hook) prints that
sentence alone for these errors and exits 1; any other exception keeps its traceback.
``EVALSCOPE_PHYS_TRACEBACK=1`` shows the traceback of ours too.
"""
import os
import sys

TRACEBACK_ENV = 'EVALSCOPE_PHYS_TRACEBACK'


class UserFacingError(Exception):
    """An error whose message says what to do; printed without a traceback."""


def _one_line(previous):
    def excepthook(kind, value, tb):
        if isinstance(value, UserFacingError) and os.environ.get(TRACEBACK_ENV, '') in ('', '0'):
            sys.stderr.write(f'evalscope-phys: {value}\n')
            return
        previous(kind, value, tb)

    excepthook.evalscope_phys = True
    return excepthook


def install_excepthook() -> None:
    """Idempotent: wrap ``sys.excepthook`` once."""
    if not getattr(sys.excepthook, 'evalscope_phys', False):
        sys.excepthook = _one_line(sys.excepthook)
