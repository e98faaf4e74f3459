"""Ships the one-line ``.pth`` file that lets an unpatched EvalScope see our benchmarks,
and a copy of ``patches/`` inside the package for ``evalscope-phys patches``."""
import glob
import os

from setuptools import setup
from setuptools.command.build_py import build_py

PTH = 'evalscope_phys_autoload.pth'


class BuildWithPth(build_py):
    """Copy the ``.pth`` file to the wheel root, where site-packages picks it up."""

    def run(self) -> None:
        super().run()
        here = os.path.dirname(os.path.abspath(__file__))
        self.copy_file(os.path.join(here, 'evalscope_phys', PTH), os.path.join(self.build_lib, PTH))
        shipped = os.path.join(self.build_lib, 'evalscope_phys', '_patches')
        self.mkpath(shipped)
        for patch in glob.glob(os.path.join(here, 'patches', '*.patch')):
            self.copy_file(patch, os.path.join(shipped, os.path.basename(patch)))

    def get_outputs(self, include_bytecode: bool = True):
        return super().get_outputs(include_bytecode) + [os.path.join(self.build_lib, PTH)]


setup(cmdclass={'build_py': BuildWithPth})
