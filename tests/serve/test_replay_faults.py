"""The --faults grammar and the thread-safe request numbering it relies on."""
import threading

import pytest

from evalscope_phys.serve.faults import FaultSchedule, FaultSpecError, RequestCounter, parse_faults

# (spec, {request number: expected fault or None})
SCHEDULES = [
    ('', {1: None, 5: None}),
    ('3:500,5:slow,7:badjson', {1: None, 3: '500', 4: None, 5: 'slow', 7: 'badjson', 8: None}),
    ('every=4:500', {3: None, 4: '500', 8: '500', 12: '500', 13: None}),
    ('every=3:badjson, 6:slow', {3: 'badjson', 6: 'slow', 9: 'badjson'}),
    ('every=2:500,every=3:slow', {2: '500', 3: 'slow', 6: '500', 7: None}),
]


@pytest.mark.parametrize('spec,expected', SCHEDULES)
def test_schedule_fires_on_the_requested_numbers(spec, expected):
    schedule = parse_faults(spec)
    assert {n: schedule.fault_for(n) for n in expected} == expected


BAD_SPECS = [
    ('3:404', 'KIND one of'),
    ('3', 'expected N:KIND'),
    ('x:500', 'not a whole number'),
    ('0:500', 'start at 1'),
    ('every=0:slow', 'start at 1'),
    ('3:500,3:slow', 'already scheduled'),
]


@pytest.mark.parametrize('spec,needle', BAD_SPECS)
def test_bad_specs_name_the_item(spec, needle):
    with pytest.raises(FaultSpecError, match=needle):
        parse_faults(spec)


def test_describe_round_trips():
    spec = '3:500,7:badjson,every=4:slow'
    assert parse_faults(parse_faults(spec).describe()) == parse_faults(spec)
    assert FaultSchedule().describe() == 'none'


def test_counter_numbers_each_request_once_across_threads():
    counter = RequestCounter(schedule=parse_faults('every=10:500'))
    seen = []
    lock = threading.Lock()

    def worker():
        for _ in range(250):
            number, _ = counter.next()
            with lock:
                seen.append(number)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(seen) == list(range(1, 2001))
    assert counter.snapshot()['requests'] == 2000
    assert len(counter.snapshot()['faults_fired']) == 200
