"""Stacked bars of class shares by domain (one panel per model), drawn on matplotlib's Agg canvas.

The figure is drawn on its own ``FigureCanvasAgg``: no pyplot, so the caller's backend and figures are
never touched, and matplotlib (about 1 s to import) loads only when a plot is drawn.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from .tables import ALL, LABELS, ShareRow

#: one colour per class, the error classes warm, `none` grey-green, ours grey
COLOURS = {'PP': '#d62728', 'RR-semantic': '#ff7f0e', 'RR-symbolic': '#ffbb78', 'none': '#2ca02c',
           'unclear': '#9467bd', 'unparseable': '#7f7f7f'}


def plot_domains(rows: Sequence[ShareRow], path: Path, title: str) -> Path:
    """Bars for ``all`` and every ``domain=...`` row of each model; n judged above each bar."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    models = sorted({r.model for r in rows})
    fig = Figure(figsize=(8, 3.2 * max(1, len(models))))
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(models) or 1, 1, squeeze=False)
    for ax, model in zip(axes[:, 0], models or ['']):
        bars = [r for r in rows if r.model == model and (r.group == ALL or r.group.startswith('domain='))
                and r.judged]
        names = [r.group.split('=', 1)[-1] for r in bars]
        bottom = [0.0] * len(bars)
        for label in LABELS:
            heights = [r.share(label) or 0.0 for r in bars]
            if any(heights):
                ax.bar(names, heights, bottom=bottom, label=label, color=COLOURS[label])
                bottom = [b + h for b, h in zip(bottom, heights)]
        for x, r in enumerate(bars):
            ax.text(x, 1.02, f'n={r.judged}', ha='center', va='bottom', fontsize=8)
        ax.set_ylim(0, 1.12)
        ax.set_ylabel('share of judged')
        ax.set_title(f'{title} — {model}' if model else title, fontsize=10)
        ax.tick_params(axis='x', labelrotation=30, labelsize=8)
        if bars:
            ax.legend(fontsize=7, loc='upper left', bbox_to_anchor=(1.0, 1.0))
        else:
            ax.text(0.5, 0.5, 'no judged samples', ha='center', va='center', transform=ax.transAxes)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return path
