"""Errors a user can act on, shown as one line instead of a traceback in any EvalScope process.

Why: ``evalscope eval`` lets an exception raised while loading a benchmark reach the interpreter, which
prints ~40 lines of traceback around the one sentence that says what to do (a missing ``local_path``,
a file whose rows were all excluded). :func:`install_excepthook` (run by the import hook) prints that
sentence alone for these errors and exits 1; any other exception keeps its traceback. One upstream error
is explained too: EvalScope's own ``phyx_oe`` (the runtime fix off) on a folder not in the hub layout.
``EVALSCOPE_PHYS_TRACEBACK=1`` shows the traceback of ours too.
"""
import os
import sys

TRACEBACK_ENV = 'EVALSCOPE_PHYS_TRACEBACK'


class UserFacingError(Exception):
    """An error whose message says what to do; printed without a traceback."""


#: the file EvalScope's own phyx_oe adapter reads under ``local_path`` (the hub layout only)
UPSTREAM_PHYX_RECORDS = os.path.join('test', 'PhyX_test.jsonl')


def explained(value: BaseException) -> str:
    """The one line for an error we can explain (ours, or upstream PhyX's missing hub layout), else ''."""
    if isinstance(value, UserFacingError):
        return str(value)
    name = str(getattr(value, 'filename', '') or '')
    if isinstance(value, FileNotFoundError) and name.endswith(UPSTREAM_PHYX_RECORDS):
        root = name[:-len(UPSTREAM_PHYX_RECORDS)].rstrip(os.sep) or '.'
        return (f'{name}: not found. EvalScope\'s own phyx_oe adapter (the evalscope-phys fix is off) reads only the '
                f'hub layout, <local_path>/test/PhyX_test.jsonl with test/test_image/; {root} is not in it (the '
                'bundled sample has PhyX_test.jsonl next to test_image/: copy that folder to <dir>/test and set '
                'local_path to <dir>)')
    return ''


def _one_line(previous):
    def excepthook(kind, value, tb):
        line = explained(value) if os.environ.get(TRACEBACK_ENV, '') in ('', '0') else ''
        if line:
            sys.stderr.write(f'evalscope-phys: {line}\n')
            return
        previous(kind, value, tb)

    excepthook.evalscope_phys = True
    return excepthook


def install_excepthook() -> None:
    """Idempotent: wrap ``sys.excepthook`` once."""
    if not getattr(sys.excepthook, 'evalscope_phys', False):
        sys.excepthook = _one_line(sys.excepthook)
