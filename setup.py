"""Build steps ``pyproject.toml`` cannot express.

1. The one-line ``evalscope_phys_autoload.pth`` that lets an unpatched EvalScope see our benchmarks must
   land in site-packages itself, for a wheel, ``pip install .`` and ``pip install -e .`` alike:
   ``build_py`` puts it at the wheel root (pip unpacks that into site-packages), and the PEP 660
   editable build, which ignores build outputs outside the packages, gets it from
   :class:`EditableWithPth`: whatever editable strategy setuptools picks (a path ``.pth`` or its meta
   path finder), the file is written into the editable wheel beside setuptools' own ``__editable__``
   files. It sorts after them, so the package is importable when its line runs.
2. ``yamls/``, ``scripts/`` (the report scorer and its schema) and ``patches/`` stay at the top of the
   repository (one source) and are copied into the wheel as ``evalscope_phys/_shipped/<name>/``; an
   editable install reads them from the checkout (``evalscope_phys/resources.py``).
"""
import os

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.editable_wheel import editable_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
PTH = 'evalscope_phys_autoload.pth'
PTH_SOURCE = os.path.join(HERE, 'evalscope_phys', PTH)
#: folder -> the files shipped from it (None: all); the folders are evalscope_phys.resources.SHIPPED
SHIPPED = {'yamls': None, 'scripts': ('score_reports.sh', 'report_schema.json'), 'patches': None}
SKIP = ('__pycache__', '.pyc')


class BuildWithShippedFiles(build_py):
    """The ``.pth`` file at the wheel root, and the top-level resource folders inside the package."""

    def run(self) -> None:
        super().run()
        self.copy_file(PTH_SOURCE, os.path.join(self.build_lib, PTH))
        for name, only in SHIPPED.items():
            for folder, dirs, files in os.walk(os.path.join(HERE, name)):
                dirs[:] = [d for d in dirs if d not in SKIP]
                destination = os.path.join(self.build_lib, 'evalscope_phys', '_shipped', os.path.relpath(folder, HERE))
                self.mkpath(destination)
                for file in files:
                    if not file.endswith(SKIP) and (only is None or file in only):
                        self.copy_file(os.path.join(folder, file), os.path.join(destination, file))

    def get_outputs(self, include_bytecode: bool = True):
        return super().get_outputs(include_bytecode) + [os.path.join(self.build_lib, PTH)]


class _StrategyWithPth:
    """Wraps setuptools' editable strategy (``__call__(wheel, files, mapping)``, a context manager)."""

    def __init__(self, strategy) -> None:
        self._strategy = strategy

    def __call__(self, wheel, files, mapping) -> None:
        self._strategy(wheel, files, mapping)
        with open(PTH_SOURCE, 'rb') as handle:
            wheel.writestr(PTH, handle.read())

    def __enter__(self):
        self._strategy.__enter__()
        return self

    def __exit__(self, *exc):
        return self._strategy.__exit__(*exc)


class EditableWithPth(editable_wheel):
    """``pip install -e .``: the editable wheel carries our ``.pth`` too (setuptools >= 64)."""

    def _select_strategy(self, *args, **kwargs):
        return _StrategyWithPth(super()._select_strategy(*args, **kwargs))


if not hasattr(editable_wheel, '_select_strategy'):  # a setuptools that reorganised editable builds
    print(f'evalscope-phys: this setuptools has no editable_wheel._select_strategy; an editable install will '
          f'lack {PTH} (install a wheel, or copy the file into site-packages)')

setup(cmdclass={'build_py': BuildWithShippedFiles, 'editable_wheel': EditableWithPth})
