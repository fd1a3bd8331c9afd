"""The interactive elements of an accessibility tree, and stable slot numbers for them.

An element's identity is ``(window, role, name, occurrence)``: the title of the window (or
dialog, or menu) it is in, its role and accessible name, and how many same-named elements
of that window came before it in drawing order. `ElementSlots` gives each identity a slot
number the first time it is seen and keeps it for the run, so slot ``k`` means the same
button on every screen where it shows (the policy can learn it); identities beyond the
slots are left out (``overflow`` counts them).

>>> tree = {"role": "desktop-frame", "name": "Desktop", "position": [0, 0],
...         "size": [100, 100], "states": [], "children": [
...             {"role": "push-button", "name": "Files", "position": [0, 10],
...              "size": [10, 10], "states": ["enabled"], "children": []},
...             {"role": "label", "name": "9:00", "position": [50, 0],
...              "size": [10, 10], "states": [], "children": []}]}
>>> [(e.role, e.name, e.center) for e in interactive_elements(tree)]
[('push-button', 'Files', (5, 15))]
>>> slots = ElementSlots(4)
>>> [e.name if e else None for e in slots.place(interactive_elements(tree))]
['Files', None, None, None]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["INTERACTIVE_ROLES", "Element", "ElementSlots", "interactive_elements"]

#: roles a click acts on (AT-SPI role names, as the tree spells them)
INTERACTIVE_ROLES: tuple[str, ...] = (
    "push-button", "toggle-button", "check-box", "radio-button", "menu-item",
    "check-menu-item", "radio-menu-item", "list-item", "icon", "entry", "password-text",
    "combo-box", "slider", "spin-button", "page-tab", "link", "terminal", "table-cell",
)
#: roles that name the window their descendants are in
_WINDOW_ROLES = frozenset({"frame", "dialog", "menu", "alert", "window"})


@dataclass(frozen=True)
class Element:
    """One interactive node: its identity, where to click it, what it shows."""

    key: tuple[str, str, str, int]
    role: str
    name: str
    window: str
    center: tuple[int, int]
    box: tuple[int, int, int, int]  # x, y, width, height
    states: frozenset[str]
    text: str

    def contains(self, x: int, y: int) -> bool:
        bx, by, bw, bh = self.box
        return bx <= x < bx + bw and by <= y < by + bh


def _walk(node: Mapping[str, Any], window: str) -> Iterator[tuple[Mapping[str, Any], str]]:
    yield node, window
    inner = str(node.get("name", "")) if node.get("role") in _WINDOW_ROLES else window
    for child in node.get("children", ()) or ():
        if isinstance(child, Mapping):
            yield from _walk(child, inner)


def _tree_root(tree: Any) -> Mapping[str, Any]:
    if isinstance(tree, Mapping) and "role" not in tree and isinstance(tree.get("tree"), Mapping):
        tree = tree["tree"]  # the HTTP API's envelope ({"format", "tree"})
    if not isinstance(tree, Mapping):
        raise ValueError(f"an accessibility tree must be a dict node, got {type(tree).__name__}")
    return tree


def interactive_elements(tree: Any) -> list[Element]:
    """The interactive nodes of ``tree`` (a dict node, or the API's envelope), in drawing
    order (later is on top), each with its identity."""
    seen: dict[tuple[str, str, str], int] = {}
    found: list[Element] = []
    for node, window in _walk(_tree_root(tree), ""):
        role = str(node.get("role", ""))
        if role not in INTERACTIVE_ROLES:
            continue
        try:
            (x, y), (w, h) = node["position"], node["size"]
            x, y, w, h = int(x), int(y), int(w), int(h)
        except (KeyError, TypeError, ValueError):
            continue  # a node with no place on screen cannot be clicked
        name = str(node.get("name", ""))
        base = (window, role, name)
        occurrence = seen.get(base, 0)
        seen[base] = occurrence + 1
        found.append(Element(
            key=(*base, occurrence), role=role, name=name, window=window,
            center=(x + w // 2, y + h // 2), box=(x, y, w, h),
            states=frozenset(str(s) for s in node.get("states", ()) or ()),
            text=str(node.get("text", "") or ""),
        ))
    return found


class ElementSlots:
    """Slot numbers for element identities: the first seen takes the first free slot and
    keeps it. Share one between envs (a training and an evaluation env) so that a slot
    means the same element in both."""

    def __init__(self, size: int) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"size must be a positive int (element slots), got {size!r}")
        self.size = size
        self._slot: dict[tuple[str, str, str, int], int] = {}
        self.overflow = 0  # identities seen when every slot was taken

    def __len__(self) -> int:
        """How many slots are taken."""
        return len(self._slot)

    def slot_of(self, element: Element) -> int | None:
        """``element``'s slot, assigned now if it is new and a slot is free."""
        slot = self._slot.get(element.key)
        if slot is None:
            if len(self._slot) >= self.size:
                self.overflow += 1
                return None
            slot = self._slot[element.key] = len(self._slot)
        return slot

    def place(self, elements: Iterable[Element]) -> list[Element | None]:
        """A list of ``size``: at each slot, the element of that slot on this screen, else
        None."""
        placed: list[Element | None] = [None] * self.size
        for element in elements:
            slot = self.slot_of(element)
            if slot is not None:
                placed[slot] = element
        return placed

    def keys(self) -> list[tuple[str, str, str, int]]:
        """The identities by slot (the slots taken so far)."""
        return sorted(self._slot, key=self._slot.__getitem__)

    def __repr__(self) -> str:
        return f"ElementSlots(size={self.size}, taken={len(self._slot)})"
