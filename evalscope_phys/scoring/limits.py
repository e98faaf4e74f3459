"""Hard limits for scoring untrusted answers: a worker-process pool with deadlines, and input checks.

Why a process pool: EvalScope scores in worker threads, where SIGALRM timeouts (what the official
PHYBench scorer uses) do not work, and SymPy cannot be interrupted from another thread. The only
hard deadline is a process we can kill. ``run_limited`` sends a call to one of a few persistent
worker processes (started lazily, shared by every thread of the process, pre-importing SymPy and
latex2sympy2_extended once) and kills that worker if the call overruns; the pool starts a fresh
one for the next caller, and other callers never notice.

Why input checks: some inputs are cheap to write and ruinous to evaluate (``2^{99999999}``,
``10^{10^{10}}``, 10k-character sums). ``check_text_limits`` runs on the LaTeX before parsing and
``check_expr_limits`` on the parsed expression before ``simplify``; both return a short reason or
None, so an answer is reported as unscored with that reason instead of burning the deadline.
"""
from __future__ import annotations

import atexit
import math
import multiprocessing
import os
import queue
import re
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Set

import sympy

WORKERS_ENV = 'EVALSCOPE_PHYS_SCORING_WORKERS'
"""Pool size override; the default is min(2, CPU count): SymPy is CPU-bound, more does not help."""
DEFAULT_TIMEOUT = 5.0
"""Seconds per call; the issue's budget for scoring one answer in total."""
WORKER_START_TIMEOUT = 120.0
"""Seconds a new worker may take to import SymPy on a cold, loaded machine before we give up."""
PRELOAD_MODULES = ('sympy', 'latex2sympy2_extended')
"""Imported once per worker (once per forkserver), so no call pays SymPy's ~0.5 s import."""
WORKER_MEMORY_LIMIT = 4 * 1024 ** 3
"""Address-space cap per worker (bytes): a runaway expansion fails with MemoryError, not the OOM killer."""
SHUTDOWN_GRACE = 2.0
"""Seconds a worker gets to exit after the stop message before it is killed."""

MAX_TEXT_CHARS = 2000
"""The longest real final answer (PHYBench, OlympiadBench, UGPhysics, Yale PHYSICS) is 1,603 chars;
latex2sympy needs 1.5-3.5 ms per char on long sums, so longer text cannot be scored in the deadline."""
MAX_NESTING = 30
"""Brace/paren/bracket depth; real answers reach 9, and the ANTLR parser recurses per level."""
MAX_EXPONENT = 10_000
"""|numeric exponent|; real answers reach 371 (e^{371}); 2^10000 still evaluates in microseconds."""
MAX_NUMBER_DIGITS = 100
"""Digits in one number; real answers use at most 16; arithmetic on longer literals adds nothing."""
MAX_FACTORIAL = 1_000
"""Largest n in n!; real answers use 15!; 10^6! would take SymPy seconds and megabytes."""
MAX_EXPR_NODES = 1_500
"""Expression size before simplify; real answers are 10-200 nodes, and EED is quadratic or worse."""
MAX_EXPR_DEPTH = 100
"""Expression depth; SymPy's recursive algorithms approach Python's recursion limit beyond this."""


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


def _worker_main(conn: Any, memory_limit: int) -> None:
    """Worker loop: receive (fn, args), reply ('ok', value) or ('error', reason); None stops it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    except (ImportError, ValueError, OSError):
        pass
    for name in PRELOAD_MODULES:
        try:
            __import__(name)
        except ImportError:
            pass
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
        self.conn, child_conn = ctx.Pipe(duplex=True)
        self.process = ctx.Process(target=_worker_main, args=(child_conn, WORKER_MEMORY_LIMIT),
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
        """Kill, reap (no zombie) and release the pipe; safe to call twice."""
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


# ---------------------------------------------------------------------------------------------
# Input checks: cheap, run before SymPy sees anything.

_OPEN, _CLOSE = '{([', '})]'
_TOKEN = re.compile(r'\s+|\d+\.?\d*|\.\d+|\\[a-zA-Z]+|\\.|.', re.S)
_SKIP = {r'\left', r'\right', r'\,', r'\;', r'\!', r'\ ', r'\quad'}
_PRODUCT = {r'\cdot', r'\times', '*'}
_LOG10_MAX_EXPONENT = math.log10(MAX_EXPONENT)
_LOG10_MAX_FACTORIAL = math.log10(MAX_FACTORIAL)
_HUGE = 1e300  # an estimate this large is "infinite" for our purposes


def check_text_limits(text: str) -> Optional[str]:
    """Reason the LaTeX ``text`` must not be parsed ('nul_byte', 'too_long', ...), or None."""
    if not isinstance(text, str):
        return 'not_text'
    if '\x00' in text:
        return 'nul_byte'
    if len(text) > MAX_TEXT_CHARS:
        return 'too_long'
    depth = deepest = 0
    for char in text:
        if char in _OPEN:
            depth += 1
            deepest = max(deepest, depth)
        elif char in _CLOSE:
            depth = max(0, depth - 1)
    if deepest > MAX_NESTING:
        return 'too_deep'
    if re.search(r'\d{%d}' % (MAX_NUMBER_DIGITS + 1), text):
        return 'number_too_long'
    for match in re.finditer(r'\^', text):
        estimate = _text_log10(_operand_after(text, match.end()))
        if estimate is not None and estimate > _LOG10_MAX_EXPONENT:
            return 'exponent_too_large'
    for match in re.finditer(r'!', text):
        estimate = _text_log10(_operand_before(text, match.start()))
        if estimate is not None and estimate > _LOG10_MAX_FACTORIAL:
            return 'factorial_too_large'
    return None


def _group_end(text: str, start: int) -> int:
    """Index after the bracket group opening at ``start`` (or the end of text if unbalanced)."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] in _OPEN:
            depth += 1
        elif text[index] in _CLOSE:
            depth -= 1
            if depth == 0:
                return index + 1
    return len(text)


def _operand_after(text: str, pos: int) -> str:
    """The exponent after a '^': a group, a whole digit run (conservative), a command, or a char."""
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if pos >= len(text):
        return ''
    if text[pos] in _OPEN:
        return text[pos:_group_end(text, pos)]
    match = re.compile(r'\d+\.?\d*|\\[a-zA-Z]+(?:\s*\{[^{}]*\}){0,2}|.', re.S).match(text, pos)
    return match.group(0) if match else ''


def _operand_before(text: str, end: int) -> str:
    """The operand of a postfix '!': a digit run or the bracket group ending just before it."""
    pos = end
    while pos > 0 and text[pos - 1].isspace():
        pos -= 1
    if pos == 0:
        return ''
    if text[pos - 1] in _CLOSE:
        depth = 0
        for index in range(pos - 1, -1, -1):
            if text[index] in _CLOSE:
                depth += 1
            elif text[index] in _OPEN:
                depth -= 1
                if depth == 0:
                    return text[index:pos]
        return ''
    match = re.search(r'\d+\.?\d*$', text[:pos])
    return match.group(0) if match else ''


def _text_log10(text: str) -> Optional[float]:
    """Estimate log10|value| of a purely numeric LaTeX snippet; None if it has anything else."""
    tokens = [t for t in _TOKEN.findall(text) if not t.isspace() and t not in _SKIP]
    if not tokens:
        return None
    try:
        value, rest = _sum_log10(tokens, 0)
    except (_NotNumeric, IndexError, RecursionError):
        return None
    return value if rest == len(tokens) else None


class _NotNumeric(Exception):
    pass


def _sum_log10(tokens: List[str], pos: int):
    terms: List[float] = []
    while True:
        while pos < len(tokens) and tokens[pos] in '+-':
            pos += 1
        value, pos = _product_log10(tokens, pos)
        terms.append(value)
        if pos < len(tokens) and tokens[pos] in '+-':
            continue
        return max(terms) + math.log10(len(terms)), pos


def _product_log10(tokens: List[str], pos: int):
    total, pos = _power_log10(tokens, pos)
    while pos < len(tokens) and tokens[pos] not in '+-)}]':
        sign = 1.0
        if tokens[pos] in _PRODUCT or tokens[pos] == '/':
            sign = -1.0 if tokens[pos] == '/' else 1.0
            pos += 1
        value, pos = _power_log10(tokens, pos)
        total += sign * value
    return total, pos


def _power_log10(tokens: List[str], pos: int):
    # Right-associative chain a ^ b ^ c, folded from the right without recursion.
    chain = []
    while True:
        value, pos = _atom_log10(tokens, pos)
        chain.append(value)
        if pos < len(tokens) and tokens[pos] == '^':
            pos += 1
            continue
        break
    exponent = chain.pop()
    while chain:
        base = chain.pop()
        exponent = abs(base) * 10 ** exponent if exponent < 300 else _HUGE
        exponent = min(exponent, _HUGE)
    return exponent, pos


def _atom_log10(tokens: List[str], pos: int):
    token = tokens[pos]
    if token in '+-':
        return _atom_log10(tokens, pos + 1)
    if token[0].isdigit() or token[0] == '.':
        number = float(token)
        return (math.log10(number) if number else -_HUGE), pos + 1
    if token in _OPEN:
        value, pos = _sum_log10(tokens, pos + 1)
        if tokens[pos] not in _CLOSE:
            raise _NotNumeric(token)
        return value, pos + 1
    if token == r'\frac':
        numerator, pos = _atom_log10(tokens, pos + 1)
        denominator, pos = _atom_log10(tokens, pos)
        return numerator - denominator, pos
    raise _NotNumeric(token)


def check_expr_limits(expr: Any) -> Optional[str]:
    """Reason the parsed ``expr`` must not be simplified ('too_many_nodes', ...), or None."""
    stack = [(expr, 1)]
    count = 0
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_EXPR_NODES:
            return 'too_many_nodes'
        if depth > MAX_EXPR_DEPTH:
            return 'too_deep'
        if not isinstance(node, sympy.Basic):
            continue
        if isinstance(node, sympy.Rational):  # Integer too
            if max(abs(node.p), node.q).bit_length() > MAX_NUMBER_DIGITS * 3.33:
                return 'number_too_large'
        elif isinstance(node, sympy.Pow):
            estimate = _expr_log10(node.exp)
            if estimate is not None and estimate > _LOG10_MAX_EXPONENT:
                return 'exponent_too_large'
        elif isinstance(node, (sympy.factorial, sympy.factorial2, sympy.subfactorial, sympy.gamma)):
            estimate = _expr_log10(node.args[0])
            if estimate is not None and estimate > _LOG10_MAX_FACTORIAL:
                return 'factorial_too_large'
        stack.extend((arg, depth + 1) for arg in node.args)
    return None


def _expr_log10(expr: Any, depth: int = 0) -> Optional[float]:
    """Estimate log10|value| of a numeric SymPy expression without evaluating it; None if symbolic."""
    if depth > MAX_EXPR_DEPTH:
        return _HUGE
    if isinstance(expr, sympy.Rational):
        if expr == 0:
            return -_HUGE
        return math.log10(abs(expr.p)) - math.log10(expr.q)
    if isinstance(expr, sympy.Float):
        _, mantissa, exponent, bits = expr._mpf_
        return -_HUGE if not mantissa else (exponent + bits) * math.log10(2)
    if isinstance(expr, sympy.NumberSymbol):
        return 0.5
    parts = [_expr_log10(arg, depth + 1) for arg in getattr(expr, 'args', ())]
    if not parts or any(part is None for part in parts):
        return None
    if isinstance(expr, sympy.Add):
        return max(parts) + math.log10(len(parts))
    if isinstance(expr, sympy.Mul):
        return sum(parts)
    if isinstance(expr, sympy.Pow):
        base, exponent = parts
        return min(_HUGE, abs(base) * 10 ** exponent) if exponent < 300 else _HUGE
    return None
