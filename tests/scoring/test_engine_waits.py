"""``score_answer`` under concurrency: each caller's own bound, a digest-keyed cache bounded in bytes.

No timing: callers meet at events; only the callers' own (sub-second) budgets run out.
"""
from __future__ import annotations

import threading

from evalscope_phys.scoring import engine
from evalscope_phys.scoring.verdict import Verdict


def _ok(seconds: float = 0.0) -> Verdict:
    return Verdict(eed=None, strict=True, lenient=True, reason='equivalent', extracted='2', seconds=seconds)


def test_a_caller_is_not_held_past_its_budget_by_another_scoring_the_same_text(monkeypatch):
    engine.clear_cache()
    a_running, release = threading.Event(), threading.Event()

    def slow_run(job, started, timeout, wait=None, flight=None):
        with engine._flight_changed:  # what the pool's on_start does when a worker takes the call
            flight.started = engine.time.perf_counter()
            engine._flight_changed.notify_all()
        a_running.set()
        assert release.wait(60)
        return _ok()

    monkeypatch.setattr(engine, '_run', slow_run)
    results = {}
    a = threading.Thread(target=lambda: results.setdefault('a', engine.score_answer('2', r'\boxed{2}', timeout=None)))
    a.start()
    assert a_running.wait(60)
    b = threading.Thread(target=lambda: results.setdefault('b', engine.score_answer('2', r'\boxed{2}', timeout=0.3)))
    b.start()
    b.join(60)
    try:
        assert not b.is_alive() and not release.is_set()  # B returned while A still works
        assert results['b'].reason == 'timeout' and 'another caller' in results['b'].detail
    finally:
        release.set()
        a.join(60)
    assert results['a'].strict is True
    assert engine.score_answer('2', r'\boxed{2}', timeout=0.3).strict is True  # A's verdict is cached
    engine.clear_cache()


def test_the_cache_key_is_a_digest_and_the_cache_is_bounded_in_bytes():
    engine.clear_cache()
    engine.set_cache_limit(20_000)
    try:
        long_reply = 'x' * 50_000
        for index in range(60):
            engine.score_answer('2', long_reply + rf'\boxed{{{index}}}', timeout=None)
        assert 0 < engine.cache_bytes() <= 20_000
        with engine._cache_lock:
            assert all(isinstance(key, bytes) and len(key) == 16 for key in engine._cache)
            assert len(engine._cache) < 60
        full = engine.cache_bytes()
        engine.set_cache_limit(full // 2)  # a smaller bound evicts at once
        assert 0 < engine.cache_bytes() <= full // 2
    finally:
        engine.set_cache_limit(engine.CACHE_MAX_BYTES)
    engine.clear_cache()
    assert engine.cache_bytes() == 0
