"""Specification of the scoring worker pool: deadlines that fire from any thread, and recovery."""
from __future__ import annotations

import math
import os
import select
import signal
import subprocess
import sys
import textwrap
import threading
import time

from pathlib import Path

import pytest
import sympy as sp

from evalscope_phys.scoring.run import pool as limits
from evalscope_phys.scoring.eed.eed import eed_score
from evalscope_phys.scoring.run.pool import LimitedResult, WorkerPool, default_worker_count, get_pool, run_limited


# Module-level so the worker can import them by name (calls travel by pickle).
def busy_loop(seconds: float) -> int:
    """A deliberately slow, pure-Python CPU loop: nothing but a kill can stop it early."""
    end = time.perf_counter() + seconds
    count = 0
    while time.perf_counter() < end:
        count += 1
    return count


def loaded_modules(*names: str) -> list:
    return [name in sys.modules for name in names]


def exits_at_once() -> bool:
    return sys.modules['evalscope_phys.scoring.run.pool_warm_up'].EXITS_AT_ONCE


def blas_threads_and_native_threads() -> tuple:
    """This process's BLAS thread settings, and how many threads it runs (numpy loaded; Linux: /proc)."""
    import numpy  # noqa: F401  (what would start OpenBLAS's threads)
    from evalscope_phys.scoring.run.worker import BLAS_THREADS_ENV
    tasks = f'/proc/{os.getpid()}/task'
    return {name: os.environ.get(name) for name in BLAS_THREADS_ENV}, \
        len(os.listdir(tasks)) if os.path.isdir(tasks) else None


def sympy_cache_entries() -> object:
    """How many constructed expressions this process's SymPy keeps (read when SymPy was imported)."""
    from sympy.core import cache
    return cache.SYMPY_CACHE_SIZE


def simplify_and_score(reference: sp.Expr, answer: sp.Expr) -> float:
    return eed_score(sp.simplify(reference), sp.simplify(answer)).score


def _gone(pid: int, within: float = 30.0) -> bool:
    """True once ``pid`` has exited *and* been reaped (a zombie still exists).

    Waits on the process's pidfd (an event, not a sleep) for the exit, then for the reaping,
    which its parent (the forkserver) does at once.
    """
    end = time.monotonic() + within
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        if not select.select([fd], [], [], within)[0]:
            return False
    finally:
        os.close(fd)
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


# --- the pool -----------------------------------------------------------------------------------

def test_a_call_runs_in_a_worker_process_and_returns_its_value():
    result = run_limited(pow, 2, 10)
    assert result == LimitedResult(True, 1024, None, result.seconds)
    assert run_limited(os.getpid).value != os.getpid()


def test_workers_preimport_sympy_and_the_engine():
    # what every caller does: importing the engine registers it for the workers (before the pool boots,
    # in the forkserver; after, in each new worker -- so a replacement after a kill has it too)
    import evalscope_phys.scoring.engine  # noqa: F401
    from evalscope_phys.scoring.run.pool import configure_pool
    configure_pool(default_worker_count())  # fresh workers, whatever booted the pool before this test
    assert run_limited(loaded_modules, 'sympy', 'evalscope_phys.scoring.compare.answers').value == [True, True]


def test_workers_leave_their_warm_up_out_of_garbage_collection_and_collect_less_often():
    import gc
    from evalscope_phys.scoring.run.worker import COLLECT_EVERY
    assert run_limited(gc.get_threshold).value == COLLECT_EVERY != gc.get_threshold()
    assert run_limited(gc.get_freeze_count).value > 10_000  # SymPy and the engine, frozen after the warm-up
    assert gc.get_freeze_count() == 0  # the caller's collector is its own


def test_workers_keep_more_of_sympys_constructions_than_its_default():
    from evalscope_phys.scoring.run.worker import SYMPY_CACHE_ENTRIES
    assert run_limited(sympy_cache_entries).value == int(SYMPY_CACHE_ENTRIES) != 1000  # SymPy's default


def test_the_deadline_fires_on_a_slow_function():
    start = time.monotonic()
    result = run_limited(busy_loop, 30.0, timeout=0.5)
    elapsed = time.monotonic() - start
    assert (result.ok, result.reason) == (False, 'timeout')
    assert 0.5 <= result.seconds < 3.0
    assert elapsed < 5.0


def test_the_deadline_stops_c_level_work_that_signals_could_not():
    result = run_limited(math.factorial, 10 ** 8, timeout=0.5)  # minutes of bignum arithmetic
    assert result.reason == 'timeout'


def test_a_timed_out_worker_is_killed_reaped_and_replaced():
    run_limited(pow, 2, 2)
    before = set(get_pool().worker_pids())
    assert run_limited(busy_loop, 30.0, timeout=0.3).reason == 'timeout'
    after = set(get_pool().worker_pids())
    for pid in before - after:
        assert _gone(pid)
    assert run_limited(pow, 3, 3).value == 27


def test_a_worker_killed_from_outside_is_replaced_and_the_next_call_succeeds():
    assert run_limited(pow, 2, 3).value == 8
    killed = get_pool().worker_pids()
    assert killed
    for pid in killed:
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    result = run_limited(pow, 2, 4)
    assert (result.ok, result.value) == (True, 16)
    assert run_limited(os.getpid).value not in killed
    assert not set(killed) & set(get_pool().worker_pids())


def test_a_crashing_worker_is_reported_as_worker_crashed_and_replaced():
    result = run_limited(os._exit, 3)
    assert (result.ok, result.reason) == (False, 'worker_crashed')
    assert run_limited(pow, 2, 5).value == 32


def test_an_exception_is_reported_with_its_type_and_message():
    result = run_limited(int, 'abc')
    assert not result.ok
    assert result.reason.startswith("error: ValueError: invalid literal for int()")
    # SystemExit and RecursionError are the call's fault too: reported, the worker survives.
    assert run_limited(sys.exit, 2).reason == 'error: SystemExit: 2'
    assert run_limited(pow, 2, 6).value == 64


def test_an_unpicklable_function_is_an_error_not_a_crash():
    result = run_limited(lambda: 1)
    assert not result.ok and result.reason.startswith('error: ')
    assert run_limited(pow, 2, 7).value == 128


def test_calls_from_8_threads_give_the_same_results_as_serial_calls():
    x, m, g, l, v0 = sp.symbols('x m g l v_0')
    pairs = [
        (2 * m * g + 4 * m * v0 ** 2 / l, 2 * m * g + 2 * m * v0 ** 2 / l),
        (sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1)),
        (x ** 2 + 2 * x + 1, (x + 1) ** 2),
        (x + 1, x + 2),
    ] * 4
    serial = [simplify_and_score(r, a) for r, a in pairs]
    results = [None] * len(pairs)

    def work(index: int) -> None:
        results[index] = run_limited(simplify_and_score, *pairs[index], timeout=30)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(pairs))]
    for thread in threads[:8]:
        thread.start()
    for thread in threads[8:]:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert [r.value for r in results] == serial
    assert all(r.ok for r in results)


def test_works_from_a_non_main_thread_while_another_call_times_out():
    outcome = {}

    def slow() -> None:
        outcome['slow'] = run_limited(busy_loop, 30.0, timeout=0.5)

    def fast() -> None:
        outcome['fast'] = run_limited(pow, 2, 8)

    threads = [threading.Thread(target=slow), threading.Thread(target=fast)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert outcome['slow'].reason == 'timeout'
    assert outcome['fast'].value == 256


def test_timeout_none_runs_inline_in_the_calling_thread():
    assert run_limited(threading.get_ident, timeout=None).value == threading.get_ident()
    assert run_limited(int, 'x', timeout=None).reason.startswith('error: ValueError')


def test_pool_size_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv(limits.WORKERS_ENV, '3')
    assert default_worker_count() == 3
    monkeypatch.delenv(limits.WORKERS_ENV)
    assert default_worker_count() == max(1, min(2, os.cpu_count() or 1))
    for bad in ('zero', '0', '-1'):
        monkeypatch.setenv(limits.WORKERS_ENV, bad)
        with pytest.raises(ValueError, match=limits.WORKERS_ENV):
            default_worker_count()


def test_exit_is_prompt_and_clean_even_with_a_call_in_flight(tmp_path):
    # The in-flight call tells the script it is running (a TCP connect: an event, not a sleep);
    # the script then exits with a 600-s call still in flight.
    (tmp_path / 'pool_jobs.py').write_text(textwrap.dedent('''
        import os, socket, time
        def report_and_sleep(port, seconds):
            with socket.create_connection(('127.0.0.1', port)) as conn:
                conn.sendall(str(os.getpid()).encode())
            time.sleep(seconds)
    '''))
    script = tmp_path / 'uses_pool.py'
    script.write_text(textwrap.dedent('''
        import socket, threading, time
        from evalscope_phys.scoring.run.pool import get_pool, run_limited
        from pool_jobs import report_and_sleep
        assert run_limited(pow, 2, 5).value == 32
        assert run_limited(time.sleep, 10, timeout=0.2).reason == 'timeout'
        server = socket.create_server(('127.0.0.1', 0))
        server.settimeout(300)
        threading.Thread(target=run_limited, args=(report_and_sleep, server.getsockname()[1], 600),
                         kwargs={'timeout': 600}, daemon=True).start()
        conn, _ = server.accept()
        busy = int(conn.recv(64))
        print(' '.join(map(str, sorted(set(get_pool().worker_pids()) | {busy}))), flush=True)
    '''))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=str(tmp_path))
    try:
        line = proc.stdout.readline()  # blocks until the 600-s call is running in a worker
        _, stderr = proc.communicate(timeout=60)  # far less than the call in flight
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, stderr
    assert 'leaked' not in stderr and 'Traceback' not in stderr, stderr
    pids = [int(p) for p in line.split()]
    assert pids, stderr
    for pid in pids:
        assert _gone(pid), f'worker {pid} outlived its parent'


def _from_threads(pool: WorkerPool, fn, args: tuple, deadline: float, threads: int = 8):
    """Each of ``threads`` callers runs ``fn(*args)`` on ``pool`` at once: (results, seconds each waited)."""
    results, waits = [None] * threads, [0.0] * threads

    def call(index: int) -> None:
        started = time.monotonic()
        results[index] = pool.run(fn, args, deadline)
        waits[index] = time.monotonic() - started

    workers = [threading.Thread(target=call, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    return results, waits


def test_no_call_waits_past_its_deadline_with_8_threads_and_2_workers():
    # Eight callers, two workers, jobs that never finish: waiting for a free worker and for the
    # replacement of a killed one is inside each caller's budget. Measured against the deadline
    # with a wide margin (the target is deadline + 1 s); queueing outside the deadline would make
    # the last callers wait about 4 deadlines.
    pool = WorkerPool(2)
    try:
        assert pool.run(pow, (2, 2), 30).value == 4  # booted: the one-time boot is not what is measured
        deadline = 2.0
        results, waits = _from_threads(pool, busy_loop, (60.0,), deadline)
        assert [r.reason for r in results] == ['timeout'] * 8
        assert max(waits) < deadline + 3.0, waits
        assert pool.run(pow, (2, 3), 30).value == 8  # and the pool is healthy afterwards
    finally:
        pool.shutdown()


def test_queued_calls_that_fit_their_deadline_succeed_and_the_rest_time_out():
    pool = WorkerPool(2)
    try:
        assert pool.run(pow, (2, 2), 30).ok
        deadline = 3.0
        results, waits = _from_threads(pool, busy_loop, (0.5,), deadline)
        assert all(r.ok or r.reason == 'timeout' for r in results), results
        assert any(r.ok for r in results)
        assert max(waits) < deadline + 3.0, waits
    finally:
        pool.shutdown()


def _run_script(path: Path, *, stdin: bool = False) -> subprocess.CompletedProcess:
    cmd = [sys.executable, '-'] if stdin else [sys.executable, str(path)]
    with open(path) as handle:
        return subprocess.run(cmd, stdin=handle if stdin else None, capture_output=True, text=True,
                              timeout=300, cwd=str(path.parent))


#: a user's script as people write them: no main guard, scoring at import time
UNGUARDED_SCRIPT = '''
from evalscope_phys.scoring import score_answer
print(score_answer('2', '2').reason, score_answer('3', '2').reason, flush=True)
'''


@pytest.mark.parametrize('how', ['file without a main guard', 'python - < script'])
def test_workers_do_not_import_the_callers_main(tmp_path, how):
    script = tmp_path / 'score_two.py'
    script.write_text(UNGUARDED_SCRIPT)
    done = _run_script(script, stdin=how.startswith('python -'))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ['equivalent', 'not_equivalent'], (done.stdout, done.stderr[-2000:])
    assert 'Traceback' not in done.stderr, done.stderr


def test_the_one_time_boot_is_not_charged_to_the_first_call(tmp_path):
    # A fresh interpreter: starting the forkserver and importing SymPy takes seconds on a loaded
    # machine; the first call still gets its whole (short) budget for itself.
    script = tmp_path / 'first_call.py'
    script.write_text('''
from evalscope_phys.scoring.run.pool import run_limited
result = run_limited(pow, 2, 10, timeout=1.0)
print(result.ok, result.value, flush=True)
''')
    done = _run_script(script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ['True', '1024'], (done.stdout, done.stderr[-2000:])


def wait_for_path(path: str, limit: float) -> bool:
    """Worker side: hold the worker until ``path`` exists (the test's gate), at most ``limit`` s."""
    end = time.monotonic() + limit
    while not os.path.exists(path) and time.monotonic() < end:
        time.sleep(0.01)
    return os.path.exists(path)


def test_with_wait_a_queued_call_keeps_its_whole_budget(tmp_path):
    # One worker held at a gate; B (budget from the take, wait=60) and C (old rule: the budget
    # covers the queue) queue behind it with the same 0.5 s. The gate opens only once C has run out
    # of budget in the queue -- B, queued before C, then has waited longer than its budget too, and
    # must still be scored.
    pool = WorkerPool(1)
    gate = tmp_path / 'open'
    try:
        assert pool.run(pow, (2, 2), 30).ok
        a_running = threading.Event()
        results = {}

        def holder() -> None:
            results['a'] = pool.run(wait_for_path, (str(gate), 60.0), 90, on_start=a_running.set)

        def queued(name: str, **options) -> None:
            results[name] = pool.run(pow, (2, 5), 0.5, **options)

        a = threading.Thread(target=holder)
        a.start()
        assert a_running.wait(60)
        b = threading.Thread(target=queued, args=('b',), kwargs={'wait': 60.0})
        b.start()
        c = threading.Thread(target=queued, args=('c',))
        c.start()
        c.join(60)
        assert results['c'].reason == 'timeout'
        gate.write_text('')
        a.join(60)
        b.join(60)
        assert results['a'].value is True
        assert results['b'].ok and results['b'].value == 32, results['b']
    finally:
        pool.shutdown()


def test_a_small_job_starts_one_worker_and_a_later_start_the_rest():
    # the scoring CLI with a few pairs: one worker boots (the others would only compete with it)
    pool = WorkerPool(2)
    try:
        assert not pool.boot_started.is_set()
        pool.start(1)
        assert pool.boot_started.is_set()
        assert pool.run(pow, (2, 5), 60.0).value == 32
        assert len(pool._all) == 1  # the call did not start the rest of the pool
        pool.start()
        assert len(pool._all) == 2
        assert pool.run(pow, (3, 2), 60.0).value == 9
    finally:
        pool.shutdown()


def test_a_failed_boot_is_tried_again_by_the_next_call():
    pool = WorkerPool(1)
    try:
        pool.start(1)
        assert pool._wait_for_boot() is None
        for worker in list(pool._all):  # every worker gone, as after a failed boot
            pool._discard(worker, replace=False)
        pool._boot_error, pool._booted = 'scoring worker failed to start: test', False
        assert pool.run(pow, (2, 3), 60.0).value == 8
    finally:
        pool.shutdown()


@pytest.mark.skipif(not limits.start_context().get_start_method() == 'forkserver', reason='no forkserver here')
def test_only_the_forkserver_skips_the_interpreter_teardown_at_exit():
    # the forkserver leaves by os._exit (it would hold the caller's stdout open through SymPy's
    # teardown); its workers inherit the flag, and a caller importing the module never sets it
    from evalscope_phys.scoring.run import pool_warm_up

    assert run_limited(exits_at_once).value is True
    assert pool_warm_up.EXITS_AT_ONCE is False


def test_scoring_processes_start_no_blas_threads_and_the_callers_environment_is_untouched():
    # numpy's OpenBLAS would start a spinning thread per core in the forkserver, during the boot
    from evalscope_phys.scoring.run import pool_setup  # noqa: F401  (imported outside a forkserver: does nothing)
    from evalscope_phys.scoring.run.worker import BLAS_THREADS_ENV
    caller = {name: os.environ.get(name) for name in BLAS_THREADS_ENV}
    settings, threads = run_limited(blas_threads_and_native_threads).value
    assert settings == {name: '1' for name in BLAS_THREADS_ENV}
    assert threads in (1, None)  # the worker's own thread only
    assert {name: os.environ.get(name) for name in BLAS_THREADS_ENV} == caller
