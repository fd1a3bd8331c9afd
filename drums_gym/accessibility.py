"""Accessibility trees as OSWorld's XML: a leaf module (standard library only).

A tree is what the local host serves (``GET /v1/slots/{id}/accessibility``, format
``drums-a11y-v1``), what ``DrumsDesktopEnv(..., accessibility=True)`` puts in
``info["accessibility"]`` and what ``Desktop.accessibility()`` builds: nested dicts with
``role``, ``name``, ``position``, ``size``, ``states``, ``children`` and optional
``text`` and ``description`` (``docs/accessibility.md`` describes them). `to_xml` renders
one the way OSWorld's ``/accessibility`` endpoint does, so OSWorld's linearizers and
XPath-style checks work on it, with no need to import the host:

>>> tree = {"role": "desktop-frame", "name": "Desktop", "position": [0, 0],
...         "size": [1920, 1080], "states": ["enabled", "showing", "visible"],
...         "children": [{"role": "push-button", "name": "Close", "position": [10, 20],
...                       "size": [24, 24], "states": ["showing", "visible"]}]}
>>> print(to_xml(tree))  # doctest: +NORMALIZE_WHITESPACE
<desktop-frame xmlns:cp="https://accessibility.ubuntu.example.org/ns/component"
  xmlns:st="https://accessibility.ubuntu.example.org/ns/state" name="Desktop"
  st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(0, 0)"
  cp:size="(1920, 1080)"><push-button name="Close" st:showing="true" st:visible="true"
  cp:screencoord="(10, 20)" cp:size="(24, 24)" /></desktop-frame>
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from xml.etree import ElementTree as ET

__all__ = ["NAMESPACES", "VALUE_ATTRIBUTES", "to_xml"]

#: OSWorld's namespaces for the XML form (Ubuntu).
NAMESPACES: dict[str, str] = {
    "st": "https://accessibility.ubuntu.example.org/ns/state",
    "attr": "https://accessibility.ubuntu.example.org/ns/attributes",
    "cp": "https://accessibility.ubuntu.example.org/ns/component",
    "val": "https://accessibility.ubuntu.example.org/ns/value",
}

#: A node's numeric keys and the at-spi Value attributes OSWorld writes for them
#: (``val:value``, ``val:min``, ``val:max``, ``val:step``: doubles, as ``str(float)``).
VALUE_ATTRIBUTES: dict[str, str] = {"value": "value", "minimum": "min", "maximum": "max",
                                    "step": "step"}


def _element(n: Mapping[str, Any]) -> ET.Element:
    attrs = {"name": str(n.get("name", ""))}
    states = n.get("states", [])
    for state in states:
        attrs[f"{{{NAMESPACES['st']}}}{state.replace('-', '_')}"] = "true"
    if n.get("description"):
        attrs[f"{{{NAMESPACES['attr']}}}description"] = str(n["description"])
    for key, attr in VALUE_ATTRIBUTES.items():
        if isinstance(n.get(key), (int, float)) and not isinstance(n.get(key), bool):
            attrs[f"{{{NAMESPACES['val']}}}{attr}"] = str(float(n[key]))
    if "showing" in states and "visible" in states:
        (x, y), (w, h) = n["position"], n["size"]
        attrs[f"{{{NAMESPACES['cp']}}}screencoord"] = f"({x}, {y})"
        attrs[f"{{{NAMESPACES['cp']}}}size"] = f"({w}, {h})"
    el = ET.Element(str(n["role"]), attrs)
    if n.get("text"):
        el.text = str(n["text"])
    el.extend(_element(c) for c in n.get("children", ()))
    return el


def to_xml(tree: Mapping[str, Any]) -> str:
    """The tree as OSWorld's XML (tags are roles; ``st:`` states, ``cp:`` geometry,
    ``attr:description``, ``val:`` the value of sliders; a node's ``text`` is its
    element's text)."""
    for prefix, uri in NAMESPACES.items():
        ET.register_namespace(prefix, uri)
    return ET.tostring(_element(tree), encoding="unicode")
