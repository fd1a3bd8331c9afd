"""One member's info out of a vector env's infos (Gymnasium's ``key`` / ``_key`` convention).

A vector env reports ``infos[key]`` as an array over its members and ``infos["_" + key]`` as
the mask of members that reported it this step. These helpers give back what a single env
would have reported, so per-member code (a policy, a logger) reads vector infos as it reads
an env's ``info``:

>>> import numpy as np
>>> infos = {"valid": np.array([True, False]), "_valid": np.array([True, True]),
...          "score": np.array([1.0, 0.0]), "_score": np.array([True, False])}
>>> member_info(infos, 0)
{'valid': True, 'score': 1.0}
>>> member_info(infos, 1)
{'valid': False}
>>> info_at(infos, "score", 1, default="not reported")
'not reported'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["info_at", "member_info"]


def info_at(infos: Mapping[str, Any], key: str, i: int, default: Any = None) -> Any:
    """Member ``i``'s ``key`` in vector infos, or ``default`` where its ``_key`` mask is unset.

    NumPy scalars come back as Python values; a nested dict of per-key arrays (e.g.
    ``infos["timings"]``) comes back as member ``i``'s dict.
    """
    if key not in infos:
        return default
    mask = infos.get(f"_{key}")
    if mask is not None and not bool(np.asarray(mask)[i]):
        return default
    values = infos[key]
    if isinstance(values, Mapping):  # a nested dict of per-key arrays
        return {k: info_at(values, k, i) for k in values if not str(k).startswith("_")}
    value = values[i]
    return value.item() if isinstance(value, np.generic) else value


def member_info(infos: Mapping[str, Any], i: int, *, keep_none: bool = False) -> dict[str, Any]:
    """Member ``i``'s info, as a single env would give it, from vector infos: the keys whose
    ``_key`` mask is set for ``i`` (None values dropped unless ``keep_none``)."""
    missing = object()
    out: dict[str, Any] = {}
    for key in infos:
        if str(key).startswith("_"):
            continue
        value = info_at(infos, key, i, missing)
        if value is not missing and (keep_none or value is not None):
            out[key] = value
    return out
