"""Evaluator metrics: ``func`` of a task's evaluator, by OSWorld name, in `METRICS`.

A metric is one function ``(result, expected, **options) -> float`` (``expected`` is left
out when the evaluator has none); anything it cannot read (a None result, text that is not
a number) scores 0.0, as a failed check, never an error.

>>> METRICS["check_include_exclude"]("a\\nb\\n", {"include": ["a"], "exclude": ["c"]})
1.0
>>> METRICS["check_gnome_favorite_apps"]("['a.desktop', 'b.desktop']\\n",
...                                      {"expected": ["b.desktop", "a.desktop"]})
1.0
>>> parse_string_list("@as []"), parse_string_list("['it\\\\'s']")
([], ["it's"])
"""

from __future__ import annotations

from typing import Any

from .registry import Registry

__all__ = ["METRICS", "parse_string_list"]

METRICS: Registry[float] = Registry("metric")


def _score(ok: bool) -> float:
    return 1.0 if ok else 0.0


@METRICS.register("exact_match")
def exact_match(result: Any, rules: Any) -> float:
    """``result`` equals ``rules["expected"]``."""
    return _score(isinstance(rules, dict) and result == rules.get("expected"))


@METRICS.register("check_include_exclude")
def check_include_exclude(result: Any, rules: Any) -> float:
    """Every ``include`` string is in ``result`` and no ``exclude`` string is."""
    if not isinstance(result, str) or not isinstance(rules, dict):
        return 0.0
    include, exclude = rules.get("include", []), rules.get("exclude", [])
    return _score(all(s in result for s in include) and all(s not in result for s in exclude))


@METRICS.register("infeasible")
def infeasible(*_: Any, **__: Any) -> float:
    """Never judged from the desktop: the host's scoring gives 1.0 iff the episode ended with
    FAIL (`Task.infeasible`); the desktop alone scores 0.0."""
    return 0.0


@METRICS.register("check_moved_jpgs")
def check_moved_jpgs(tree: Any, rule: Any) -> float:
    """The names directly in the listed directory are the expected names (same count)."""
    if not isinstance(tree, dict) or not isinstance(rule, dict):
        return 0.0
    names = [child.get("name") for child in tree.get("children", [])]
    expected = rule.get("expected", [])
    return _score(len(names) == len(expected) and set(names) == set(expected))


def _float(text: Any) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


@METRICS.register("check_text_enlarged")
def check_text_enlarged(scaling_factor: Any) -> float:
    """The text scaling factor (``gsettings get`` output) is above 1.0."""
    value = _float(scaling_factor)
    return _score(value is not None and value > 1.0)


@METRICS.register("is_utc_0")
def is_utc_0(timedatectl_output: Any) -> float:
    """Line 4 of ``timedatectl status`` (``Time zone: ... (UTC, +0000)``) ends in +0000)."""
    if not isinstance(timedatectl_output, str):
        return 0.0
    lines = timedatectl_output.split("\n")
    return _score(len(lines) > 3 and lines[3].endswith("+0000)"))


def parse_string_list(text: str) -> list[str] | None:
    """A GVariant array of strings as ``gsettings get`` prints it (``['a', "b's"]``,
    ``@as []``), or None when ``text`` is not one. A parser, not an evaluator."""
    s = text.strip()
    if s.startswith("@as"):
        s = s[3:].lstrip()
    if not (s.startswith("[") and s.endswith("]")):
        return None
    items: list[str] = []
    i, n = 1, len(s) - 1
    while True:
        while i < n and s[i] in " \t\n":
            i += 1
        if i >= n:
            return items if not items or s[i - 1] != "," else None
        quote = s[i]
        if quote not in "'\"":
            return None
        i += 1
        buf = []
        while i < n and s[i] != quote:
            if s[i] == "\\" and i + 1 < n:
                i += 1
            buf.append(s[i])
            i += 1
        if i >= n:
            return None
        items.append("".join(buf))
        i += 1
        while i < n and s[i] in " \t\n":
            i += 1
        if i < n:
            if s[i] != ",":
                return None
            i += 1


@METRICS.register("check_gnome_favorite_apps")
def check_gnome_favorite_apps(apps: Any, rule: Any) -> float:
    """The favourite apps (``gsettings get org.gnome.shell favorite-apps``) are the expected
    ones, same count; upstream evals the text, this parses it."""
    parsed = parse_string_list(apps) if isinstance(apps, str) else None
    if parsed is None or not isinstance(rule, dict):
        return 0.0
    expected = rule.get("expected", [])
    return _score(len(parsed) == len(expected) and set(parsed) == set(expected))
