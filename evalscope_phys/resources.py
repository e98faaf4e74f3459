"""Where the files that live beside the package in a checkout are found in any install.

``yamls/`` (suites and dataset YAMLs), ``scripts/`` (the bash report scorer and its schema) and
``patches/`` have one source: the top of the repository. The build copies them into the wheel as
``evalscope_phys/_shipped/<name>/`` (``setup.py``), so a wheel or ``pip install .`` carries them; an
editable install or a plain checkout reads the repository's own folders. Nothing is duplicated in git.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

PACKAGE_DIR = Path(__file__).resolve().parent
SHIPPED_DIR = PACKAGE_DIR / '_shipped'
#: the folders the build ships (setup.py reads this list)
SHIPPED = ('yamls', 'scripts', 'patches')


def checkout_root() -> Optional[Path]:
    """The repository this package is imported from (editable install or checkout), or None."""
    root = PACKAGE_DIR.parent
    try:
        if 'name = "evalscope-phys"' in (root / 'pyproject.toml').read_text(encoding='utf-8'):
            return root
    except OSError:
        pass
    return None


def resource_dir(name: str) -> Optional[Path]:
    """``yamls``, ``scripts`` or ``patches``: the checkout's folder if we run from one, else the shipped copy."""
    if name not in SHIPPED:
        raise ValueError(f'unknown resource folder {name!r}; shipped: {SHIPPED}')
    root = checkout_root()
    for candidate in ((root / name) if root else None, SHIPPED_DIR / name):
        if candidate is not None and candidate.is_dir():
            return candidate
    return None


def resource_file(name: str, relative: str) -> Path:
    """A file inside a shipped folder; FileNotFoundError names both places looked in."""
    directory = resource_dir(name)
    if directory is not None and (directory / relative).is_file():
        return directory / relative
    root = checkout_root()
    places = [str(p / name / relative) for p in (root, ) if p] + [str(SHIPPED_DIR / name / relative)]
    raise FileNotFoundError(f'{relative} not found (looked in {", ".join(places)}); is evalscope-phys installed '
                            f'from a complete wheel or checkout?')
