"""Compositing a `Desktop` into an image: chrome, icons, windows, popups, pointer.

The static chrome (wallpaper, dock, top bar) is drawn once per screen size;
a frame copies it and draws what changed on top. The pointer is pasted last
onto a copy of the cached scene, so pointer-only moves are cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PIL import Image

from . import art, topbar_dock
from .file_icons import file_icon
from .fs import DESKTOP_DIR
from .icons import ICON_SIZE, draw_icons
from .shell_menu import draw_osd
from .volume import NORM

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["compose_scene", "pointer_box", "pointer_overlay", "pointer_patch"]


def compose_scene(desk: Desktop) -> Image.Image:
    """Everything but the pointer, as a new RGB image."""
    img = topbar_dock.chrome(desk.width, desk.height, desk.wallpaper).copy()
    topbar_dock.draw_dynamic(img, desk.clock_text(), frozenset(w.app for w in desk.windows),
                             desk.dock.apps())
    draw_icons(img, desk.grid, set(), desk.selected, desk.hovered_icon(),
               icon_for=lambda n: file_icon(desk.fs, f"{DESKTOP_DIR}/{n}", ICON_SIZE))
    active = desk.active_window()
    for w in desk.windows:
        w.draw(img, desk, w is active)
    if desk.activities.is_open:
        desk.activities.draw(img)
    if desk.rename is not None:
        desk.rename.draw(img)
    if desk.menu is not None:
        desk.menu.draw(img, desk.hovered_menu_item())
    osd = desk.osd_level()
    if osd is not None:
        volume, muted, top = osd
        draw_osd(img, volume / NORM, muted, top / NORM)
    return img


def pointer_overlay(scene: Image.Image, at: tuple[int, int],
                    overlay: Callable[[Image.Image], None] | None = None) -> Image.Image:
    """A copy of ``scene`` with the arrow pointer at ``at`` (its hotspot is the tip);
    ``overlay`` draws what follows the pointer first (a dragged file)."""
    img = scene.copy()
    if overlay is not None:
        overlay(img)
    sprite = art.pointer()
    img.paste(sprite, (at[0] - 1, at[1] - 1), sprite)  # the tip sits 1px into the sprite
    return img


def pointer_box(size: tuple[int, int], at: tuple[int, int]) -> tuple[int, int, int, int]:
    """The screen rectangle ``(x, y, w, h)`` the pointer at ``at`` covers, clipped to a
    screen of ``size`` (``w`` or ``h`` is 0 when it is wholly off screen)."""
    sprite = art.pointer()
    x0, y0 = max(0, at[0] - 1), max(0, at[1] - 1)
    x1 = min(size[0], at[0] - 1 + sprite.width)
    y1 = min(size[1], at[1] - 1 + sprite.height)
    return x0, y0, max(0, x1 - x0), max(0, y1 - y0)


def pointer_patch(scene: Image.Image, at: tuple[int, int]) -> tuple[tuple[int, int, int, int],
                                                                       Image.Image]:
    """The pixels `pointer_overlay` (without an overlay) makes of the pointer's box: the box
    and that crop of the scene with the sprite pasted as the whole frame pastes it."""
    x, y, w, h = box = pointer_box(scene.size, at)
    crop = scene.crop((x, y, x + w, y + h))
    sprite = art.pointer()
    crop.paste(sprite, (at[0] - 1 - x, at[1] - 1 - y), sprite)
    return box, crop
