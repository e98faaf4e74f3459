"""Class shares per model, domain and difficulty, as markdown (with the lists worth reading) and TSV.

A share is a class's count over the samples the judge answered (``unparseable`` included, ``none``
included), so a row sums to 100%; ``error`` samples have no answer yet and are only counted.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from .classify import Diagnosis
from .contract import CLASSES, ERROR, NONE, UNPARSEABLE
from .reviews import ReviewScan

#: table columns, in order: the judge's classes, then what we record ourselves
LABELS = CLASSES + (UNPARSEABLE,)
ALL = 'all'


@dataclass(frozen=True)
class ShareRow:
    """One line of the table: a model, and a group of its samples (``all``, ``domain=...``, ``difficulty=...``)."""

    model: str
    dataset: str
    group: str
    counts: Dict[str, int]
    errors: int

    @property
    def judged(self) -> int:
        return sum(self.counts.get(label, 0) for label in LABELS)

    def share(self, label: str) -> Optional[float]:
        return self.counts.get(label, 0) / self.judged if self.judged else None


def share_rows(outcomes: Sequence[Diagnosis]) -> List[ShareRow]:
    """``all`` first, then each domain, then each difficulty (where the records have them), per model."""
    rows: List[ShareRow] = []
    for model in sorted({o.sample.model for o in outcomes}):
        mine = [o for o in outcomes if o.sample.model == model]
        dataset = mine[0].sample.dataset
        groups = [(ALL, mine)]
        for attr in ('domain', 'difficulty'):
            values = sorted({getattr(o.sample, attr) for o in mine if getattr(o.sample, attr)}, key=_natural)
            groups += [(f'{attr}={v}', [o for o in mine if getattr(o.sample, attr) == v]) for v in values]
        for group, members in groups:
            counts = Counter(o.label for o in members if o.label != ERROR)
            rows.append(ShareRow(model, dataset, group, dict(counts), sum(o.label == ERROR for o in members)))
    return rows


def _natural(value: str):
    return (0, int(value), '') if value.isdigit() else (1, 0, value)


def tsv(rows: Sequence[ShareRow]) -> str:
    """One row per model and group: counts and shares (0-1, blank when nothing was judged)."""
    head = ['model', 'dataset', 'group', 'judged', 'errors']
    for label in LABELS:
        head += [label, f'{label}_share']
    lines = ['\t'.join(head)]
    for row in rows:
        cells = [row.model, row.dataset, row.group, str(row.judged), str(row.errors)]
        for label in LABELS:
            share = row.share(label)
            cells += [str(row.counts.get(label, 0)), '' if share is None else f'{share:.4f}']
        lines.append('\t'.join(cells))
    return '\n'.join(lines) + '\n'


def markdown_table(rows: Sequence[ShareRow]) -> str:
    """``count (share)`` per class; the table docs/error-analysis.md shows."""
    head = ['model', 'group', 'judged', *LABELS, 'errors']
    lines = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * 2 + '---:|' * (len(head) - 2)]
    for row in rows:
        cells = [row.model, row.group, str(row.judged)]
        for label in LABELS:
            share = row.share(label)
            cells.append(f'{row.counts.get(label, 0)} ({share:.0%})' if share is not None else '0')
        cells.append(str(row.errors))
        lines.append('| ' + ' | '.join(cells) + ' |')
    return '\n'.join(lines)


def markdown_report(scan: ReviewScan, outcomes: Sequence[Diagnosis], rows: Sequence[ShareRow],
                    judge_model: str, limit: Optional[int] = None) -> str:
    """The whole report: what was analysed, the shares, then ``none`` answers, unparseable replies and errors."""
    analysed = len(outcomes)
    lines = [f'# Error analysis: {scan.dataset}', '',
             f'Judge: `{judge_model}`. Reviews: {scan.total} samples, {len(scan.wrong)} wrong (strict false or '
             f'EED < 100), {scan.right} right, {scan.unscored} unscored (no verdict, not analysed).'
             + (f' Analysed: the first {analysed} wrong samples (--limit {limit}) per model.' if limit else '')]
    if scan.unreadable:
        lines.append(f'Skipped {len(scan.unreadable)} unreadable review line(s): {", ".join(scan.unreadable[:5])}.')
    lines += ['', 'Share = count / judged; `none` = the judge found the solution right (a scorer disagreement, listed '
              'below); `errors` = judge calls that failed (rerun to retry them).', '',
              markdown_table(rows) if rows else '(no wrong samples)', '']
    nones = [o for o in outcomes if o.label == NONE]
    lines += [f'## `none`: the judge found the solution right ({len(nones)})', '']
    if nones:
        lines += ['| model | id | subset | reference | scorer read | scorer reason | judge reason |',
                  '|---|---|---|---|---|---|---|']
        for o in nones:
            cells = [o.sample.model, o.sample.sample_id, o.sample.subset, o.sample.reference_answer,
                     o.sample.scorer.get('extracted') or '', o.sample.scorer.get('reason') or '', o.reason]
            lines.append('| ' + ' | '.join(_cell(c) for c in cells) + ' |')
    else:
        lines.append('None.')
    for label, title in ((UNPARSEABLE, 'unparseable: two replies broke the contract'),
                         (ERROR, 'errors: the judge call failed (not cached; a rerun asks again)')):
        found = [o for o in outcomes if o.label == label]
        if found:
            lines += ['', f'## {title} ({len(found)})', '']
            lines += [f'- {o.sample.model} {o.sample.sample_id} ({o.sample.subset}): {_cell(o.reason)}' for o in found]
    mismatched = [o for o in outcomes if o.quote_in_step is False]
    if mismatched:
        lines += ['', f'## Quotes not found in the step they cite ({len(mismatched)})', '']
        lines += [f'- {o.sample.model} {o.sample.sample_id} step {o.step}: "{_cell(o.quote)}"' for o in mismatched]
    return '\n'.join(lines) + '\n'


def _cell(text: str, limit: int = 200) -> str:
    flat = ' '.join(str(text).split()).replace('|', '\\|')
    return flat[:limit] + ('…' if len(flat) > limit else '')
