"""Reading positions from accessibility trees, as scripted solvers and tests do."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def walk(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node.get("children", ()):
        yield from walk(child)


def find(tree: dict[str, Any], name: str, role: str | None = None) -> dict[str, Any]:
    for node in walk(tree):
        if node.get("name") == name and (role is None or node.get("role") == role):
            return node
    raise LookupError(f"no node named {name!r} (role {role}) in the accessibility tree")


def center(node: dict[str, Any]) -> tuple[int, int]:
    (x, y), (w, h) = node["position"], node["size"]
    return x + w // 2, y + h // 2
