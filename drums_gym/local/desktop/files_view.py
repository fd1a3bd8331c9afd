"""Drawing and accessibility nodes of a Files window (`FilesModel`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw

from . import art
from .file_icons import file_icon
from .files_model import PLACES, SIDEBAR_W, TILE_W, TRASH_BAR_H, TRASH_URI, FilesModel
from .fs import HOME
from .textfield import TextField
from .theme import ACCENT, SIDEBAR_BG, TEXT, TEXT_DIM, ellipsize, font, rounded, text_width, wrap
from .windows import Box, node

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["accessibility", "draw_content", "draw_header"]

ICON = 64
SELECT_BG = (250, 221, 208)
_SHOWN = ["enabled", "sensitive", "showing", "visible"]


def _house(d: ImageDraw.ImageDraw, x: int, cy: int, fill: tuple[int, int, int]) -> None:
    d.polygon([(x, cy - 1), (x + 7, cy - 8), (x + 14, cy - 1)], fill=fill)
    d.rectangle((x + 2, cy - 1, x + 12, cy + 7), fill=fill)
    d.rectangle((x + 6, cy + 2, x + 8, cy + 7), fill=(255, 255, 255))


def _place_glyph(d: ImageDraw.ImageDraw, label: str, x: int, cy: int) -> None:
    """A small symbolic icon for a sidebar place."""
    c = (90, 90, 90)
    if label == "Home":
        _house(d, x, cy, c)
    elif label == "Recent":
        d.ellipse((x, cy - 7, x + 14, cy + 7), outline=c, width=2)
        d.line((x + 7, cy - 4, x + 7, cy, x + 10, cy + 2), fill=c, width=2)
    elif label == "Starred":
        pts = []
        for i in range(10):
            r = 7.5 if i % 2 == 0 else 3.2
            a = math.pi / 2 + i * math.pi / 5
            pts.append((x + 7 + r * math.cos(a), cy - r * math.sin(a)))
        d.polygon(pts, outline=c, width=2)
    elif label == "Trash":
        d.rectangle((x + 2, cy - 4, x + 12, cy + 7), outline=c, width=2)
        d.line((x, cy - 6, x + 14, cy - 6), fill=c, width=2)
    elif label == "Other Locations":
        d.line((x + 7, cy - 7, x + 7, cy + 7), fill=c, width=2)
        d.line((x, cy, x + 14, cy), fill=c, width=2)
    else:
        d.polygon([(x, cy - 6), (x + 5, cy - 6), (x + 7, cy - 4), (x + 14, cy - 4),
                   (x + 14, cy + 6), (x, cy + 6)], outline=c, width=2)


# -- header -----------------------------------------------------------------

def draw_header(win: FilesModel, img: Image.Image, d: ImageDraw.ImageDraw, host: Desktop,
                active: bool) -> None:
    fg = TEXT if active else TEXT_DIM
    for glyph, box, on in (("<", win.back_rect(), bool(win.history)),
                           (">", win.forward_rect(), bool(win.future))):
        x0, y0, x1, y1 = box
        rounded(d, box, 6, fill=(222, 221, 219) if on else None)
        d.text(((x0 + x1) // 2, (y0 + y1) // 2), glyph, font=font(16, bold=True),
               fill=fg if on else (180, 180, 180), anchor="mm")
    px0, py0, px1, py1 = win.pathbar_rect()
    rounded(d, (px0, py0, px1, py1), 6, fill=(255, 255, 255), outline=(210, 208, 206))
    if win.location is not None:
        _draw_entry(img, win.location, (px0 + 2, py0 + 2, px1 - 2, py1 - 2))
    else:
        crumbs = win.crumb_rects()
        f, fb = font(14), font(14, bold=True)
        for i, (label, path, (x0, y0, x1, y1)) in enumerate(crumbs):
            last = i == len(crumbs) - 1
            cy = (y0 + y1) // 2
            x = x0 + 6
            if path == HOME:
                _house(d, x, cy, fg)
                x += 20
            elif path == TRASH_URI:
                _place_glyph(d, "Trash", x, cy)
                x += 20
            text = ellipsize(label, fb if last else f, max(10, x1 - x - 4))
            d.text((x, cy), text, font=fb if last else f, fill=fg, anchor="lm")
            if not last:
                d.text((x1 + 3, cy), "/", font=f, fill=TEXT_DIM, anchor="lm")
    cy = win.y + win.HEADER_H // 2
    cx = px1 + 26
    d.ellipse((cx - 7, cy - 7, cx + 3, cy + 3), outline=fg, width=2)
    d.line((cx + 2, cy + 2, cx + 7, cy + 7), fill=fg, width=2)
    cx += 40
    for dy in (-5, 0, 5):
        d.line((cx - 7, cy + dy, cx + 7, cy + dy), fill=fg, width=2)


def _draw_entry(img: Image.Image, field: TextField, box: Box) -> None:
    x0, y0, x1, y1 = box
    d = ImageDraw.Draw(img)
    rounded(d, box, 5, fill=(255, 255, 255), outline=ACCENT, width=2)
    inner = Image.new("RGB", (max(1, x1 - x0 - 8), max(1, y1 - y0 - 6)), (255, 255, 255))
    di = ImageDraw.Draw(inner)
    f, text = font(14), field.text
    off = 4 - max(0.0, text_width(text[: field.cursor], f) - inner.width + 8)
    cy = inner.height // 2
    di.text((off, cy), text, font=f, fill=TEXT, anchor="lm")
    a, b = field.selection()
    if a != b:
        sx0, sx1 = off + text_width(text[:a], f), off + text_width(text[:b], f)
        di.rectangle((sx0, cy - 9, sx1, cy + 9), fill=ACCENT)
        di.text((sx0, cy), text[a:b], font=f, fill=(255, 255, 255), anchor="lm")
    else:
        cx = off + text_width(text[: field.cursor], f)
        di.line((cx, cy - 9, cx, cy + 9), fill=TEXT, width=1)
    img.paste(inner, (x0 + 4, y0 + 3))


# -- content ----------------------------------------------------------------

def draw_content(win: FilesModel, img: Image.Image, d: ImageDraw.ImageDraw, host: Desktop,
                 active: bool) -> None:
    cx0, cy0, _cx1, cy1 = win.content_rect()
    d.rectangle((cx0, cy0 + 1, cx0 + SIDEBAR_W, cy1 - 8), fill=SIDEBAR_BG)
    d.rounded_rectangle((cx0, cy0 + 1, cx0 + SIDEBAR_W, cy1), radius=10, fill=SIDEBAR_BG,
                        corners=(False, False, False, True))
    d.line((cx0 + SIDEBAR_W, cy0 + 1, cx0 + SIDEBAR_W, cy1), fill=(220, 218, 216))
    for i, (label, path) in enumerate(PLACES):
        x0, y0, x1, y1 = win.place_rect(i)
        if path and path == win.path:
            rounded(d, (x0, y0, x1, y1), 6, fill=(222, 221, 219))
        d.text((x0 + 36, (y0 + y1) // 2), label, font=font(14), fill=TEXT, anchor="lm")
        _place_glyph(d, label, x0 + 10, (y0 + y1) // 2)
        if label in ("Starred", "Videos"):
            d.line((x0 + 4, y1 + 7, x1 - 4, y1 + 7), fill=(222, 220, 218))
    if win.in_trash:
        _draw_trash_bar(win, d, bool(win.selected))
    vx0, vy0, vx1, vy1 = win.view_rect()
    view = Image.new("RGB", (max(1, vx1 - vx0), max(1, vy1 - vy0 - 8)), (255, 255, 255))
    _draw_items(win, view, host)
    img.paste(view, (vx0, vy0 + 1))


def _draw_trash_bar(win: FilesModel, d: ImageDraw.ImageDraw, has_selection: bool) -> None:
    _, cy0, cx1, _ = win.content_rect()
    x0 = win.content_rect()[0] + SIDEBAR_W + 1
    d.rectangle((x0, cy0 + 1, cx1, cy0 + TRASH_BAR_H), fill=(240, 240, 239))
    d.line((x0, cy0 + TRASH_BAR_H, cx1, cy0 + TRASH_BAR_H), fill=(220, 218, 216))
    d.text((x0 + 16, cy0 + TRASH_BAR_H // 2), "Trash", font=font(14, bold=True), fill=TEXT,
           anchor="lm")
    for label, (bx0, by0, bx1, by1) in win.trash_button_rects().items():
        on = has_selection or label != "Restore"
        red = label != "Restore"
        rounded(d, (bx0, by0, bx1, by1), 6,
                fill=((224, 27, 36) if red else (222, 221, 219)) if on else (236, 236, 236))
        color = ((255, 255, 255) if red else TEXT) if on else (170, 170, 170)
        d.text(((bx0 + bx1) // 2, (by0 + by1) // 2), label, font=font(13, bold=True),
               fill=color, anchor="mm")


def _draw_items(win: FilesModel, view: Image.Image, host: Desktop) -> None:
    items = win.items(host)
    d = ImageDraw.Draw(view)
    vx0, vy0, _, _ = win.view_rect()
    if not items:
        mx, my = view.width // 2, view.height // 2
        big = art.folder_icon(128, (200, 200, 200))
        view.paste(big, (mx - 64, my - 110), big)
        text = "Trash is Empty" if win.in_trash else "Folder is Empty"
        d.text((mx, my + 40), text, font=font(20, bold=True), fill=(160, 160, 160), anchor="mm")
        return
    f = font(13)
    for i in win.visible_indices(len(items)):
        item = items[i]
        tx0, ty0, tx1, ty1 = win.tile(i)
        x0, y0, x1, y1 = tx0 - vx0, ty0 - vy0 - 1, tx1 - vx0, ty1 - vy0 - 1
        sel = item.key in win.selected
        if sel:
            rounded(d, (x0, y0, x1, y1), 8, fill=SELECT_BG)
        icon = file_icon(host.fs, item.path, ICON)
        view.paste(icon, ((x0 + x1) // 2 - ICON // 2, y0 + 4), icon)
        for j, line in enumerate(wrap(item.label, f, TILE_W - 14, 3 if sel else 2)):
            cx, ty = (x0 + x1) // 2, y0 + ICON + 12 + j * 17
            if sel:
                half = int(f.getlength(line)) // 2 + 4
                rounded(d, (cx - half, ty - 2, cx + half, ty + 15), 4, fill=ACCENT)
            d.text((cx, ty), line, font=f, fill=(255, 255, 255) if sel else TEXT, anchor="ma")
    total = win.max_scroll(len(items))
    if total > 0:  # an overlay scrollbar
        h = view.height
        bar = max(30, h * h // (h + total))
        top = (h - bar) * win.scroll // total
        rounded(d, (view.width - 9, top + 2, view.width - 4, top + bar - 2), 3,
                fill=(170, 170, 170))


# -- accessibility ----------------------------------------------------------

def accessibility(win: FilesModel, host: Desktop) -> list[dict[str, Any]]:
    """Nodes of the window's content: navigation buttons, location, places, (Trash bar), view."""
    def button(name: str, box: Box, on: bool) -> dict[str, Any]:
        return node("push-button", name, box, ["focusable", "showing", "visible"]
                    + (["enabled", "sensitive"] if on else []))

    out = [button("Back", win.back_rect(), bool(win.history)),
           button("Forward", win.forward_rect(), bool(win.future))]
    if win.location is not None:
        a, b = win.location.selection()
        out.append(node("entry", "Location", win.pathbar_rect(),
                        ["editable", "enabled", "focusable", "focused", "sensitive", "showing",
                         "single-line", "visible"], text=win.location.text,
                        caret=win.location.cursor, selection=[a, b]))
    else:
        bar = node("tool-bar", "Location", win.pathbar_rect(), text=win.path)
        crumbs = win.crumb_rects()
        bar["children"] = [node("push-button", label, box,
                                _SHOWN + (["checked"] if i == len(crumbs) - 1 else []))
                           for i, (label, _, box) in enumerate(crumbs)]
        out.append(bar)
    cx0, cy0, _, cy1 = win.content_rect()
    places = node("list", "Places", (cx0, cy0, cx0 + SIDEBAR_W, cy1))
    places["children"] = [
        node("list-item", label, win.place_rect(i),
             _SHOWN + ["selectable"] + (["selected"] if path and path == win.path else []))
        for i, (label, path) in enumerate(PLACES)]
    out.append(places)
    if win.in_trash:
        x0 = cx0 + SIDEBAR_W + 1
        bar = node("info-bar", "Trash", (x0, cy0, win.content_rect()[2], cy0 + TRASH_BAR_H))
        bar["children"] = [button(label, box, label != "Restore" or bool(win.selected))
                           for label, box in win.trash_button_rects().items()]
        out.append(bar)
    view = node("layered-pane", "Files View", win.view_rect(),
                [*_SHOWN, "focusable", "multiselectable"])
    items = win.items(host)
    for i in win.visible_indices(len(items)):
        item = items[i]
        states = [*_SHOWN, "focusable", "selectable"]
        states += ["selected"] if item.key in win.selected else []
        view["children"].append(node("icon", item.label, win.tile(i), states,
                                     description="Folder" if item.is_dir else "File"))
    out.append(view)
    return out
