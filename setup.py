"""Ships the one-line ``.pth`` file that lets an unpatched EvalScope see our benchmarks."""
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

    def get_outputs(self, include_bytecode: bool = True):
        return super().get_outputs(include_bytecode) + [os.path.join(self.build_lib, PTH)]


setup(cmdclass={'build_py': BuildWithPth})
