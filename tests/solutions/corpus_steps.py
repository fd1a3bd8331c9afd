"""The corpus of natural agent solutions (``corpus.json``): loading it, checking its shape,
and resolving its steps into the actions an agent would send.

An entry is ``{"task", "name", "kind", "steps", "expect"}`` with optional ``"backends"``
(the shell backends it runs on) and ``"reason"`` (why it is restricted), and ``"note"``
(``"weak: ..."`` where OSWorld's checker is as weak). A step is either a string, sent as
it is (pyautogui code, or a control word ``DONE``/``FAIL``/``WAIT``), or a click found in
the accessibility tree at run time, as agents find their targets::

    {"click": {"role": "menu-item", "name": "Settings"}}
    {"click": {"role": "icon", "name": "dir1", "in": {"role": "layered-pane",
                                                      "name": "Files View"}},
     "clicks": 2}
    {"click": {"role": "push-button", "name": "Vim"}, "button": "right"}
    {"click": {"role": "slider", "name": "Volume"}, "edge": "right"}
    {"click": {"role": "slider", "name": "Volume"},
     "as": "pyautogui.moveTo({x}, {y})\npyautogui.dragTo(1910, {y}, duration=0.5)"}

A locator without ``name`` matches the first node of that role (the top bar's clock label,
whose text is the time); ``in`` narrows the search to a node's subtree. The point is the
node's centre, or with ``edge`` the middle of its ``left`` or ``right`` end (a slider's
extremes); ``as`` formats pyautogui code of one's own with it.

>>> tree = {"role": "desktop-frame", "name": "Desktop", "position": [0, 0], "size": [99, 99],
...         "children": [{"role": "icon", "name": "a", "position": [10, 10], "size": [20, 20]}]}
>>> resolve({"click": {"role": "icon", "name": "a"}, "clicks": 2}, tree)
'pyautogui.doubleClick(20, 20)'
>>> resolve({"click": {"role": "icon"}, "edge": "right"}, tree)
'pyautogui.click(29, 20)'
>>> resolve("DONE", tree)
'DONE'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from drums_gym.solvers.a11y import Node, center, find

__all__ = ["BACKENDS", "CONTROL", "KINDS", "CorpusError", "load", "locate", "resolve", "validate"]

CORPUS = Path(__file__).with_name("corpus.json")
KINDS = ("terminal", "gui", "settings", "sudo", "answer", "wrong")
BACKENDS = ("simulated", "sandbox")
CONTROL = ("DONE", "FAIL", "WAIT")
_KEYS = {"task", "name", "kind", "steps", "expect", "backends", "reason", "note"}
_CLICK_KEYS = {"click", "clicks", "button", "as", "edge"}


class CorpusError(ValueError):
    """An entry of the corpus is malformed (the message names the entry and the field)."""


def locate(tree: Node, where: Mapping[str, Any]) -> Node:
    """The node ``where`` (``role``, optional ``name``, optional ``in``) names in ``tree``;
    `LookupError` when it is not on screen."""
    if "in" in where:
        tree = locate(tree, where["in"])
    return find(tree, where["role"], where.get("name"))


def resolve(step: str | Mapping[str, Any], tree: Node) -> str:
    """The action a step sends, given the accessibility tree on screen now."""
    if isinstance(step, str):
        return step
    node = locate(tree, step["click"])
    x, y = center(node)
    if step.get("edge") in ("left", "right"):
        (left, _top), (width, _height) = node["position"], node["size"]
        x = int(left) if step["edge"] == "left" else int(left + width - 1)
    if "as" in step:
        return str(step["as"]).format(x=x, y=y)
    if step.get("button") == "right":
        return f"pyautogui.rightClick({x}, {y})"
    if step.get("clicks", 1) == 2:
        return f"pyautogui.doubleClick({x}, {y})"
    return f"pyautogui.click({x}, {y})"


def _check_locator(where: Any, label: str) -> None:
    if not isinstance(where, Mapping) or not isinstance(where.get("role"), str) or (
            set(where) - {"role", "name", "in"}):
        raise CorpusError(f"{label}: a locator is {{role, name?, in?}}, got {where!r}")
    if "in" in where:
        _check_locator(where["in"], label)


def validate(entries: Any, tasks: set[str] | None = None) -> list[dict[str, Any]]:
    """``entries`` if every one is well formed (``tasks``: the short ids allowed), else
    `CorpusError` naming the first bad entry and what is wrong with it."""
    if not isinstance(entries, list):
        raise CorpusError(f"the corpus is a list of entries, got {type(entries).__name__}")
    seen: set[tuple[str, str]] = set()
    for i, e in enumerate(entries):
        label = f"entry {i} ({e.get('task')}/{e.get('name')})" if isinstance(e, dict) else \
            f"entry {i}"
        if not isinstance(e, dict) or not {"task", "name", "kind", "steps", "expect"} <= set(e):
            raise CorpusError(f"{label}: needs task, name, kind, steps and expect")
        if set(e) - _KEYS:
            raise CorpusError(f"{label}: unknown fields {sorted(set(e) - _KEYS)}")
        if tasks is not None and e["task"] not in tasks:
            raise CorpusError(f"{label}: unknown task {e['task']!r}")
        if (e["task"], e["name"]) in seen:
            raise CorpusError(f"{label}: the name is used twice for this task")
        seen.add((e["task"], e["name"]))
        if e["kind"] not in KINDS:
            raise CorpusError(f"{label}: kind must be one of {KINDS}, got {e['kind']!r}")
        if e["expect"] not in (0.0, 1.0):
            raise CorpusError(f"{label}: expect must be 1.0 or 0.0, got {e['expect']!r}")
        if (e["kind"] == "wrong") != (e["expect"] == 0.0) and "weak" not in e.get("note", ""):
            raise CorpusError(f"{label}: a wrong entry expects 0.0 and a right one 1.0 "
                              "(else a note saying why: 'weak: ...')")
        backends = e.get("backends", list(BACKENDS))
        if not backends or set(backends) - set(BACKENDS) or (
                "backends" in e and not e.get("reason")):
            raise CorpusError(f"{label}: backends must be a non-empty subset of {BACKENDS}, "
                              "given with a reason")
        steps = e["steps"]
        if not isinstance(steps, list) or not steps or steps[-1] not in ("DONE", "FAIL"):
            raise CorpusError(f"{label}: steps must end with DONE or FAIL")
        for step in steps:
            if isinstance(step, str):
                continue
            if not isinstance(step, dict) or "click" not in step or set(step) - _CLICK_KEYS:
                raise CorpusError(f"{label}: a step is a string or {{click, clicks?, "
                                  f"button?, edge?, as?}}, got {step!r}")
            _check_locator(step["click"], label)
    return entries


def load(path: Path = CORPUS, tasks: set[str] | None = None) -> list[dict[str, Any]]:
    """The corpus at ``path``, validated."""
    return validate(json.loads(path.read_text(encoding="utf-8")), tasks)
