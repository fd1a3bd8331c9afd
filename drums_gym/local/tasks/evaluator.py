"""A task's ``evaluator``: postconfig steps, getters and a metric (or lists of them).

`Evaluator.score` follows OSWorld's ``DesktopEnv.evaluate`` (the FAIL rule is the host's,
`drums_gym.local.scoring`): run ``postconfig``, read ``result`` (and ``expected``) with
their getters, apply the metric with ``options``. A getter raising `FileNotFoundError`
scores 0. With lists and ``conj`` ``"and"`` (the default): stop at the first 0, else the
average; with ``"or"``: stop at the first 1, else the maximum.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..desktop import Desktop
from .errors import TaskFileError
from .getters import GETTERS, REQUIRED, VALIDATORS
from .metrics import METRICS
from .steps import Step, load_steps, run_steps

__all__ = ["Evaluator", "Judgement", "load_evaluator"]

_MISSING = object()


@dataclass(frozen=True)
class Judgement:
    """One metric with its getters' configs (``expected`` None: the metric takes none)."""

    func: str
    result: Mapping[str, Any] | None
    expected: Mapping[str, Any] | None
    options: Mapping[str, Any]


@dataclass(frozen=True)
class Evaluator:
    """The evaluator of a task file, validated."""

    judgements: tuple[Judgement, ...]
    conj: str = "and"
    postconfig: tuple[Step, ...] = ()
    is_list: bool = False

    @property
    def infeasible(self) -> bool:
        """Whether this is OSWorld's ``infeasible`` evaluator (judged by the FAIL rule)."""
        return not self.is_list and self.judgements[0].func == "infeasible"

    def score(self, desktop: Desktop, task_id: str) -> float:
        """Run postconfig, the getters and the metric(s) on ``desktop``."""
        run_steps(desktop, self.postconfig, task_id)
        if not self.is_list:
            return _judge(desktop, self.judgements[0])
        results: list[float] = []
        for j in self.judgements:
            value = _judge(desktop, j)
            if self.conj == "and" and value == 0.0:
                return 0.0
            if self.conj == "or" and value == 1.0:
                return 1.0
            results.append(value)
        return sum(results) / len(results) if self.conj == "and" else max(results)


def _judge(desktop: Desktop, j: Judgement) -> float:
    try:
        result = GETTERS[j.result["type"]](desktop, j.result) if j.result is not None else None
        if j.expected is None:
            return float(METRICS[j.func](result, **j.options))
        expected = GETTERS[j.expected["type"]](desktop, j.expected)
    except FileNotFoundError:
        return 0.0
    return float(METRICS[j.func](result, expected, **j.options))


def _getter(raw: Any, source: str, where: str) -> Mapping[str, Any] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise TaskFileError(source, f"{where} must be an object with a 'type'")
    try:
        GETTERS.lookup(raw.get("type"), source)
    except TaskFileError as exc:
        raise TaskFileError(source, f"{where}: {exc.problem}") from None
    for key in REQUIRED[raw["type"]]:
        if key not in raw:
            raise TaskFileError(source, f"{where}: the {raw['type']} getter needs {key!r}")
    check = VALIDATORS.get(raw["type"])
    if check is not None:
        try:
            check(raw, source)
        except TaskFileError as exc:
            raise TaskFileError(source, f"{where}: {exc.problem}") from None
    return raw


def _as_list(value: Any, n: int, source: str, where: str) -> list[Any]:
    if value is _MISSING:
        return [None] * n
    if not isinstance(value, list) or len(value) != n:
        raise TaskFileError(source, f"evaluator.{where} must be a list of {n} (one per func)")
    return value


def load_evaluator(raw: Any, source: str, task_id: str) -> Evaluator:
    """Validate a task file's ``evaluator``; unknown getters and metrics are refused."""
    if not isinstance(raw, dict):
        raise TaskFileError(source, "evaluator must be an object")
    func = raw.get("func")
    is_list = isinstance(func, list)
    funcs = func if is_list else [func]
    if not funcs:
        raise TaskFileError(source, "evaluator.func is an empty list")
    for f in funcs:
        if f == "" or f is None:
            raise TaskFileError(source, "evaluator.func is empty: the task has no metric")
        try:
            METRICS.lookup(f, source)
        except TaskFileError as exc:
            raise TaskFileError(source, f"evaluator.func: {exc.problem}") from None
    n = len(funcs)
    if is_list:
        results = _as_list(raw.get("result", _MISSING), n, source, "result")
        expected = _as_list(raw.get("expected", _MISSING), n, source, "expected")
        options = _as_list(raw.get("options", _MISSING), n, source, "options")
    else:
        results, expected = [raw.get("result")], [raw.get("expected")]
        options = [raw.get("options")]
    judgements = []
    for i, f in enumerate(funcs):
        at = f"[{i}]" if is_list else ""
        res = _getter(results[i] or None, source, f"evaluator.result{at}")
        exp = _getter(expected[i] or None, source, f"evaluator.expected{at}")
        if res is None and f != "infeasible":
            raise TaskFileError(source, f"evaluator.result{at} is missing (func {f!r})")
        opts = options[i] if options[i] is not None else {}
        if not isinstance(opts, dict):
            raise TaskFileError(source, f"evaluator.options{at} must be an object")
        try:
            args = (None,) if exp is None else (None, None)
            inspect.signature(METRICS[f]).bind(*args, **opts)
        except TypeError as exc:
            what = "with" if exp is not None else "without"
            raise TaskFileError(source, f"evaluator: the metric {f!r} cannot be called {what} "
                                        f"an expected value and options {opts!r}: {exc}"
                                ) from None
        judgements.append(Judgement(f, res, exp, opts))
    conj = raw.get("conj", "and")
    if conj not in ("and", "or"):
        raise TaskFileError(source, f"evaluator.conj must be 'and' or 'or', got {conj!r}")
    post = load_steps(raw.get("postconfig"), source, task_id, "evaluator.postconfig")
    return Evaluator(tuple(judgements), conj, post, is_list)
