"""Reading YAML a user may be handed (suites, dataset YAMLs) under size limits.

Why: ``yaml.safe_load`` runs no code, but aliases share one object many times over, so 382 bytes of
nested anchors expanded to 22 MB when the config was written out (``suite.json``, ``task_config.yaml``)
and to 1.8 GB in EvalScope. Here a file is refused when it is larger than :data:`MAX_YAML_BYTES`, when
the document it describes, with every alias expanded, has more than :data:`MAX_YAML_NODES` values, or
when it refers to itself. The count is done on the shared objects (each one once), so it costs no more
than the file itself.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, Union

import yaml

MAX_YAML_BYTES = 1 << 20
#: values (scalars, lists, mappings) the document may hold with every alias expanded
MAX_YAML_NODES = 100_000


class YamlLimitError(ValueError):
    """A YAML file over a limit; the message says which."""


def expanded_size(value: Any, limit: int = MAX_YAML_NODES) -> int:
    """Values in ``value`` with shared parts counted each time they occur; raises past ``limit`` or on a cycle."""
    sizes: Dict[int, int] = {}
    active = set()

    def size(item: Any) -> int:
        if not isinstance(item, (list, dict)):
            return 1
        key = id(item)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise YamlLimitError('the document refers to itself (a recursive alias)')
        active.add(key)
        children = list(item.keys()) + list(item.values()) if isinstance(item, dict) else item
        total = 1
        for child in children:
            total += size(child)
            if total > limit:
                raise YamlLimitError(f'more than {limit} values once its aliases are expanded (an alias bomb?)')
        active.discard(key)
        sizes[key] = total
        return total

    return size(value)


def load_limited(path: Union[str, 'os.PathLike[str]']) -> Any:
    """``yaml.safe_load`` of ``path`` within :data:`MAX_YAML_BYTES` and :data:`MAX_YAML_NODES`."""
    path = Path(path)
    with open(path, 'rb') as handle:
        data = handle.read(MAX_YAML_BYTES + 1)
    if len(data) > MAX_YAML_BYTES:
        raise YamlLimitError(f'larger than {MAX_YAML_BYTES} bytes')
    value = yaml.safe_load(data.decode('utf-8'))
    expanded_size(value)
    return value
