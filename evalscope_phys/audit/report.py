"""Outputs of an audit: per-pair JSONL, the per-(pool, eval) summary (the paper's Table 2) as
markdown and JSON, a PNG of candidate cosines with the duplicate share per bin, and clean pools."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

import numpy as np

from .corpus import Corpus, write_records
from .judge import ERROR, NEAR_DUPLICATE, SAME_TOPIC, UNPARSEABLE


@dataclass(frozen=True)
class PairRecord:
    """One (eval item, pool item) pair that stage 1 or stage 2 selected, with what each stage said."""

    pool: str
    eval: str
    eval_id: str
    pool_id: str
    jaccard: float
    """Exact word n-gram Jaccard of the pair."""
    cosine: Optional[float]
    """Embedding cosine of the pair (None when stage 2 did not run)."""
    stage1_hit: bool
    stage2_candidate: bool
    label: Optional[str] = None
    """Stage-3 label: near_duplicate, same_topic_neighbour, unparseable, error; None if not judged."""
    reason: Optional[str] = None


def cosine_bins(threshold: float, step: float = 0.02, top: float = 0.95) -> List[Tuple[float, float]]:
    """Bins from the threshold up in ``step``s to ``top``, then one bin ``[top, 1]`` (as in the paper)."""
    edges = [round(x, 4) for x in np.arange(threshold, top - 1e-9, step)] if threshold < top else []
    edges.append(top if threshold < top else threshold)
    bins = list(zip(edges[:-1], edges[1:]))
    bins.append((edges[-1], 1.0))
    return bins


def bin_table(records: Sequence[PairRecord], threshold: float, judged: bool) -> List[Dict[str, Any]]:
    """Candidates and judged near-duplicates per cosine bin; the last bin includes 1.0 (and float noise above)."""
    bins = cosine_bins(threshold)
    rows = []
    for k, (lo, hi) in enumerate(bins):
        last = k == len(bins) - 1
        inside = [r for r in records if r.stage2_candidate and r.cosine is not None
                  and r.cosine >= lo and (last or r.cosine < hi)]
        dup = sum(r.label == NEAR_DUPLICATE for r in inside)
        labelled = sum(r.label in (NEAR_DUPLICATE, SAME_TOPIC) for r in inside)
        rows.append({'low': lo, 'high': hi, 'candidates': len(inside),
                     'near_duplicates': dup if judged else None,
                     'share': (dup / labelled if labelled else None) if judged else None})
    return rows


def summarise(pool: Corpus, evalset: Corpus, records: Sequence[PairRecord], settings: Dict[str, Any],
              judged: bool, embedded: bool) -> Dict[str, Any]:
    """The Table-2 row for one (pool, eval) pair plus the duplicate share per cosine bin."""
    s1 = [r for r in records if r.stage1_hit]
    s2 = [r for r in records if r.stage2_candidate]
    dups = [r for r in s2 if r.label == NEAR_DUPLICATE]
    return {
        'pool': pool.name, 'eval': evalset.name, 'pool_items': len(pool), 'eval_items': len(evalset),
        'stage1_hits': len(s1), 'stage1_eval_items': len({r.eval_id for r in s1}),
        'stage2_candidates': len(s2) if embedded else None,
        'stage2_eval_items': len({r.eval_id for r in s2}) if embedded else None,
        'stage2_candidates_not_stage1': sum(not r.stage1_hit for r in s2) if embedded else None,
        'stage3_near_duplicates': len(dups) if judged else None,
        'stage3_eval_items': len({r.eval_id for r in dups}) if judged else None,
        'stage3_near_duplicates_not_stage1': sum(not r.stage1_hit for r in dups) if judged else None,
        'stage3_same_topic': sum(r.label == SAME_TOPIC for r in s2) if judged else None,
        'stage3_unparseable': sum(r.label == UNPARSEABLE for r in s2) if judged else None,
        'stage3_errors': sum(r.label == ERROR for r in s2) if judged else None,
        'bins': bin_table(records, settings['cosine_threshold'], judged) if embedded else [],
        'settings': settings,
    }


def _fmt(value: Any) -> str:
    if value is None:
        return '–'
    if isinstance(value, float):
        return f'{value:.1%}'
    return str(value)


def summary_markdown(summaries: Sequence[Dict[str, Any]]) -> str:
    """Table 2 (one row per pool x eval) and, per pair, the duplicate share per cosine bin."""
    lines = ['# Contamination audit', '',
             '| pool | eval | pool items | eval items | stage-1 hits (eval items) | stage-2 candidates (eval items) '
             '| stage-3 near-duplicates (eval items) | unparseable / errors |',
             '|---|---|---:|---:|---:|---:|---:|---:|']
    for s in summaries:
        lines.append(
            f"| {s['pool']} | {s['eval']} | {s['pool_items']} | {s['eval_items']} "
            f"| {s['stage1_hits']} ({s['stage1_eval_items']}) "
            f"| {_fmt(s['stage2_candidates'])} ({_fmt(s['stage2_eval_items'])}) "
            f"| {_fmt(s['stage3_near_duplicates'])} ({_fmt(s['stage3_eval_items'])}) "
            f"| {_fmt(s['stage3_unparseable'])} / {_fmt(s['stage3_errors'])} |")
    for s in summaries:
        if not s['bins']:
            continue
        st = s['settings']
        lines += ['', f"## {s['pool']} × {s['eval']}: duplicate share per cosine bin",
                  f"n-gram n={st['ngram_n']}, Jaccard ≥ {st['jaccard_threshold']}; "
                  f"embedder `{st['embed_model']}`, cosine ≥ {st['cosine_threshold']}, top-{st['top_k']}"
                  + (f"; judge `{st['judge_model']}`" if st.get('judge_model') else '; not judged'), '',
                  '| cosine | candidates | near-duplicates | share |', '|---|---:|---:|---:|']
        for b in s['bins']:
            hi = '1.00]' if b['high'] >= 1.0 else f"{b['high']:.2f})"
            lines.append(f"| [{b['low']:.2f}, {hi} | {b['candidates']} | {_fmt(b['near_duplicates'])} "
                         f"| {_fmt(b['share'])} |")
    return '\n'.join(lines) + '\n'


def write_pairs(path: Path, records: Iterable[PairRecord]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open('w', encoding='utf-8') as fh:
        for r in records:
            fh.write(json.dumps(asdict(r), ensure_ascii=False) + '\n')


def write_summaries(out_dir: Path, summaries: Sequence[Dict[str, Any]]) -> Tuple[Path, Path]:
    md, js = out_dir / 'summary.md', out_dir / 'summary.json'
    md.write_text(summary_markdown(summaries), encoding='utf-8')
    js.write_text(json.dumps(list(summaries), indent=1, ensure_ascii=False), encoding='utf-8')
    return md, js


def plot_cosines(path: Path, records: Sequence[PairRecord], summary: Dict[str, Any]) -> Optional[Path]:
    """Bar chart of stage-2 candidates per cosine bin (near-duplicates stacked) with the share as a line."""
    if not summary['bins']:
        return None
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    bins = summary['bins']
    labels = [f"{b['low']:.2f}" for b in bins]
    total = np.array([b['candidates'] for b in bins])
    dup = np.array([b['near_duplicates'] or 0 for b in bins])
    fig, ax = plt.subplots(figsize=(7, 4))
    x = np.arange(len(bins))
    ax.bar(x, total - dup, color='#9ecae1', label='other candidates')
    ax.bar(x, dup, bottom=total - dup, color='#de2d26', label='judged near-duplicate')
    ax.set_xticks(x, labels)
    ax.set_xlabel('cosine (bin lower edge)')
    ax.set_ylabel('stage-2 candidate pairs')
    ax.set_title(f"{summary['pool']} × {summary['eval']}")
    handles, names = ax.get_legend_handles_labels()
    if any(b['share'] is not None for b in bins):
        ax2 = ax.twinx()
        share = [np.nan if b['share'] is None else 100 * b['share'] for b in bins]
        handles += ax2.plot(x, share, 'k.-', label='duplicate share (right axis)')
        names.append('duplicate share (right axis)')
        ax2.set_ylim(0, 105)
        ax2.set_ylabel('duplicate share (%)')
    ax.legend(handles, names, loc='upper left')
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def write_clean(pool: Corpus, flagged_ids: Set[str], out_dir: Path) -> Tuple[Path, int]:
    """Write the pool without ``flagged_ids`` in its own format; returns (path, rows removed)."""
    keep = [pool.records[item.row] for item in pool.items if item.id not in flagged_ids]
    path = out_dir / 'clean' / f'{pool.path.stem}.clean{pool.path.suffix}'
    write_records(path, keep, like=pool.path)
    return path, len(pool) - len(keep)
