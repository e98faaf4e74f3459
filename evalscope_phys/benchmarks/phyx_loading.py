"""PhyX loading shared by ``phyx_oe_rules`` and the fixed upstream ``phyx_oe``: both folder layouts, bad rows counted.

Why not upstream's ``load()``: it reads only ``<root>/test/PhyX_test.jsonl`` (the hub snapshot), so a
folder with ``PhyX_test.jsonl`` next to ``test_image/`` (PhyX's GitHub layout, and our bundled sample)
cannot be a ``local_path``; and one bad row (unknown category, options other than A-D) stops the
whole run. Here either layout is found and bad rows are excluded with a logged count.

Upstream names are read through :func:`evalscope_phys.compat.phyx_upstream` when loading, not at import,
so this module can be imported by the hook that runs while EvalScope's PhyX module is being imported.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from evalscope_phys import compat
from evalscope_phys.benchmarks.base import Excluded, Kept, Placement, RecordLoader, find_data_file, locate_dataset
from evalscope_phys.benchmarks.vision import check_images, image_data_uri, resolve_image


class PhyXLocalLoading(RecordLoader, compat.FigureLoaderHook):
    """Mixin placed before EvalScope's ``PhyXOEAdapter``: ``load()`` and figures for either PhyX layout."""

    def dataset_files(self) -> Tuple[List[Path], str]:
        phyx = compat.phyx_upstream()
        if self.eval_split not in (phyx.full_split, phyx.mini_split):
            raise ValueError(f"Unknown PhyX eval_split {self.eval_split!r}: use '{phyx.full_split}' or "
                             f"'{phyx.mini_split}'.")
        unknown = [subset for subset in self.subset_list if subset not in phyx.subset_list]
        if unknown:
            raise ValueError(f'Unknown PhyX subsets {unknown}. Valid subsets are: {phyx.subset_list}')
        root = locate_dataset(self, allow_file_pattern=[f'{phyx.data_dir}/{phyx.record_file}',
                                                        f'{phyx.data_dir}/{phyx.image_dir}/*'])
        path = find_data_file(root, [phyx.record_file], 'PhyX')
        self.image_root = str(path.parent / phyx.image_dir)
        self._phyx = phyx
        return [path], str(path)

    def sort_record(self, record: Any, path: Path, row: int) -> Placement:
        if not isinstance(record, dict):
            return Excluded('not a JSON object', '?')
        phyx = self._phyx
        problem = self._problem(record, phyx)
        if problem is not None:
            return Excluded(problem, str(record.get('index', '?')))
        if self.eval_split == phyx.mini_split and int(record['index']) >= phyx.mini_size:
            return None
        return Kept(phyx.category_to_subset[record['category']], record)

    def _problem(self, record: Dict[str, Any], phyx: compat.PhyXUpstream) -> Optional[str]:
        """Why ``record`` cannot become a sample (the exclusion reason), or None."""
        try:
            int(record.get('index'))
        except (TypeError, ValueError):
            return 'no integer index'
        if record.get('category') not in phyx.category_to_subset:
            return 'unknown category'
        if not all(isinstance(record.get(key), str) for key in ('question', 'question_simply', 'options')):
            return 'question or options missing'
        options = phyx.parse_options(record['options'])
        if set(options) != set(phyx.option_labels) or record.get('answer') not in options:
            return 'options are not exactly A-D with the answer among them'
        return check_images(Path(self.image_root), record.get('image'))

    def load_figure(self, image_name: str) -> str:
        return image_data_uri(self, resolve_image(Path(self.image_root), image_name))
