"""scripts/bench_judge.py on the first Yale PHYSICS comparisons: the replay judge answers Yale's recorded verdicts."""
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / 'scripts' / 'bench_judge.py'


def test_help_exits_zero():
    done = subprocess.run([sys.executable, str(SCRIPT), '--help'], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and 'replay' in done.stdout


def test_the_hybrid_is_measured_through_the_real_judge_path(shared_data, tmp_path):
    outputs = shared_data / 'physics_yale' / 'outputs' / 'o3-mini_together_output'
    questions = shared_data / 'physics_yale' / 'PHYSICS' / 'PHYSICS-textonly'
    out = tmp_path / 'figures.json'
    done = subprocess.run([sys.executable, str(SCRIPT), '--outputs', str(outputs), '--questions', str(questions),
                           '--limit', '60', '--json', str(out)], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(out.read_text())
    undecided, rejected = figures['scopes']['undecided'], figures['scopes']['rejected']
    assert figures['comparisons'] == 60
    for scope in (undecided, rejected):
        # every routed comparison was one real HTTP judge call answering a recorded verdict
        assert scope['usage']['judge_calls'] == scope['judged'] > 0
        assert scope['usage']['judge_failed_calls'] == 0 and scope['fell_back_to_rules'] == 0
        assert scope['usage']['judge_prompt_tokens'] > 100 * scope['judged']
        assert sum(r['routed'] for r in scope['routed_by_reason'].values()) == scope['judged']
        assert scope['agree'] + sum(scope['disagreements'].values()) == 60
    assert rejected['judged'] >= undecided['judged'] and 'rule_rejected' in rejected['routed_by_reason']
    assert 'rule_rejected' not in undecided['routed_by_reason']
    assert 'scope undecided: the hybrid agrees' in done.stdout
