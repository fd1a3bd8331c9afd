"""Reading one key per sub-env out of Gymnasium's vector infos (``key`` plus ``_key`` mask)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..envs.vector_info import info_at, member_info
from ._tally import info_score, info_validity

__all__ = ["column", "info_at", "member_info", "validity"]


def column(infos: Mapping[str, Any], key: str, n: int) -> list[tuple[bool, Any]]:
    """``(present, value)`` for each of ``n`` sub-envs: present where ``infos["_" + key]``."""
    if key not in infos:
        return [(False, None)] * n
    values = infos[key]
    mask = np.asarray(infos.get(f"_{key}", np.ones(n, dtype=bool)), dtype=bool)
    if mask.shape != (n,):
        raise ValueError(f"infos['_{key}'] must have shape ({n},), got {mask.shape}")
    out: list[tuple[bool, Any]] = []
    for i in range(n):
        if not mask[i]:
            out.append((False, None))
            continue
        value = values[i]
        out.append((True, value.item() if isinstance(value, np.generic) else value))
    return out


def validity(infos: Mapping[str, Any], n: int) -> list[tuple[bool, str | None, float | None]]:
    """``(valid, invalid_reason, score)`` for each sub-env; no ``valid`` entry means valid."""
    keys = ("valid", "invalid_reason", "score")
    columns = {key: column(infos, key, n) for key in keys}
    out = []
    for i in range(n):
        info = {key: columns[key][i][1] for key in keys if columns[key][i][0]}
        valid, reason = info_validity(info)
        out.append((valid, reason, info_score(info)))
    return out
