"""Drawing the Settings window (libadwaita's look: boxed lists, switches, a navigation
sidebar) and its accessibility nodes, as GTK 4 exposes them over AT-SPI: the sidebar is a
``list`` of ``list-item``, a switch is a ``toggle-button`` (``checked`` when on), a
drop-down a ``combo-box`` (its text the value shown), the volume a ``slider`` (``value``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw

from ..budget import charge
from .settings_panels import Row
from .theme import ACCENT, TEXT, TEXT_DIM, ellipsize, font, rounded
from .windows import Box, node

if TYPE_CHECKING:
    from .desktop import Desktop
    from .settings_window import SettingsWindow

__all__ = ["accessibility", "draw_content", "draw_header"]

BG = (250, 250, 250)
SIDEBAR_BG = (242, 242, 242)
CARD_BORDER = (222, 222, 222)
ROW_LINE = (236, 236, 236)
SELECTED = (222, 221, 219)
SWITCH_OFF = (218, 217, 215)
FOCUS = (233, 84, 32)
_SHOWN = ["enabled", "sensitive", "showing", "visible"]


def draw_header(win: SettingsWindow, d: ImageDraw.ImageDraw, host: Desktop,
                active: bool) -> None:
    side_w = win.sidebar_rect()[2] - win.x
    fg = TEXT if active else TEXT_DIM
    cy = win.y + win.HEADER_H // 2
    d.line((win.x + side_w, win.y + 1, win.x + side_w, win.y + win.HEADER_H),
           fill=(214, 212, 210))
    bx0, by0, bx1, by1 = win.search_button_rect()
    if win.search is not None:
        rounded(d, (bx0, by0, bx1, by1), 6, fill=(214, 212, 210))
    scx, scy = (bx0 + bx1) // 2 - 2, (by0 + by1) // 2 - 2
    d.ellipse((scx - 6, scy - 6, scx + 6, scy + 6), outline=fg, width=2)
    d.line((scx + 4, scy + 4, scx + 9, scy + 9), fill=fg, width=2)
    mx0, my0, mx1, my1 = win.menu_button_rect()
    for k in (-5, 0, 5):
        mcy = (my0 + my1) // 2 + k
        d.line((mx0 + 9, mcy, mx1 - 9, mcy), fill=fg, width=2)
    d.text((win.x + side_w // 2, cy), "Settings", font=font(14, bold=True), fill=fg,
           anchor="mm")
    right = (win.x + side_w + win.x + win.w - 110) // 2
    d.text((right, cy), win.page, font=font(14, bold=True), fill=fg, anchor="mm")


def _icon(d: ImageDraw.ImageDraw, name: str, cx: int, cy: int, fg: tuple[int, int, int]) -> None:
    """A small symbolic icon for a sidebar entry."""
    if name == "Network":
        d.rectangle((cx - 7, cy - 6, cx + 7, cy + 3), outline=fg, width=2)
        d.line((cx - 4, cy + 7, cx + 4, cy + 7), fill=fg, width=2)
    elif name == "Notifications":
        d.chord((cx - 7, cy - 8, cx + 7, cy + 8), 180, 360, outline=fg, width=2)
        d.line((cx - 7, cy, cx - 7, cy + 4, cx + 7, cy + 4, cx + 7, cy), fill=fg, width=2)
        d.ellipse((cx - 2, cy + 5, cx + 2, cy + 9), fill=fg)
    elif name == "Sound":
        d.polygon([(cx - 8, cy - 3), (cx - 4, cy - 3), (cx + 1, cy - 8), (cx + 1, cy + 8),
                   (cx - 4, cy + 3), (cx - 8, cy + 3)], fill=fg)
        d.arc((cx - 1, cy - 6, cx + 9, cy + 6), 300, 60, fill=fg, width=2)
    elif name == "Power":
        d.arc((cx - 7, cy - 7, cx + 7, cy + 7), 300, 240, fill=fg, width=2)
        d.line((cx, cy - 9, cx, cy - 1), fill=fg, width=2)
    elif name in ("Date & Time", "Screen"):
        d.ellipse((cx - 8, cy - 8, cx + 8, cy + 8), outline=fg, width=2)
        d.line((cx, cy - 5, cx, cy, cx + 4, cy + 3), fill=fg, width=2)
    elif name == "Accessibility":
        d.ellipse((cx - 8, cy - 8, cx + 8, cy + 8), outline=fg, width=2)
        d.ellipse((cx - 2, cy - 6, cx + 2, cy - 2), fill=fg)
        d.line((cx - 4, cy, cx + 4, cy), fill=fg, width=2)
        d.line((cx, cy, cx, cy + 5), fill=fg, width=2)
    elif name == "Privacy":
        d.rectangle((cx - 6, cy - 1, cx + 6, cy + 8), fill=fg)
        d.arc((cx - 4, cy - 8, cx + 4, cy + 4), 180, 360, fill=fg, width=2)
    elif name == "Bluetooth":
        d.line((cx - 4, cy - 4, cx + 4, cy + 4, cx, cy + 8, cx, cy - 8, cx + 4, cy - 4,
                cx - 4, cy + 4), fill=fg, width=2)
    else:
        d.rounded_rectangle((cx - 7, cy - 7, cx + 7, cy + 7), radius=3, outline=fg, width=2)


def _draw_sidebar(win: SettingsWindow, img: Image.Image, host: Desktop) -> None:
    sx0, sy0, sx1, sy1 = win.sidebar_rect()
    side = Image.new("RGB", (sx1 - sx0, sy1 - sy0), SIDEBAR_BG)
    d = ImageDraw.Draw(side)
    f = font(14)
    current = win.page if win.section is not None else win.panel
    top = win._items_top() - sy0
    for i, name in enumerate(win.sidebar_items()):
        charge()
        x0, y0, x1, y1 = win.item_rect(i)
        if y1 < sy0 + top - 2 or y0 > sy1:
            continue
        box = (x0 - sx0, y0 - sy0, x1 - sx0, y1 - sy0)
        if name == current:
            rounded(d, box, 6, fill=SELECTED)
        _icon(d, name, box[0] + 22, (box[1] + box[3]) // 2, TEXT)
        d.text((box[0] + 44, (box[1] + box[3]) // 2), name, font=f, fill=TEXT, anchor="lm")
    d.rectangle((0, 0, sx1 - sx0, top - 2), fill=SIDEBAR_BG)
    back = win.back_rect()
    if back is not None:
        bx0, by0, bx1, by1 = (back[0] - sx0, back[1] - sy0, back[2] - sx0, back[3] - sy0)
        cy = (by0 + by1) // 2
        d.line((bx0 + 26, cy - 6, bx0 + 20, cy, bx0 + 26, cy + 6), fill=TEXT, width=2)
        d.text((bx0 + 44, cy), "Privacy", font=font(14, bold=True), fill=TEXT, anchor="lm")
        d.line((bx0, by1 + 4, bx1, by1 + 4), fill=(220, 220, 220))
    search = win.search_rect()
    if search is not None and win.search is not None:
        ex0, ey0, ex1, ey1 = (search[0] - sx0, search[1] - sy0, search[2] - sx0,
                              search[3] - sy0)
        rounded(d, (ex0, ey0, ex1, ey1), 6, fill=(255, 255, 255), outline=ACCENT, width=2)
        text = win.search.text
        cy = (ey0 + ey1) // 2
        if text:
            d.text((ex0 + 10, cy), text, font=f, fill=TEXT, anchor="lm")
        else:
            d.text((ex0 + 10, cy), "Search settings", font=f, fill=TEXT_DIM, anchor="lm")
        cx = ex0 + 10 + f.getlength(text[: win.search.cursor])
        d.line((cx, cy - 9, cx, cy + 9), fill=TEXT)
        if not win.sidebar_items():
            d.text(((sx1 - sx0) // 2, ey1 + 60), "No results found", font=font(14, bold=True),
                   fill=TEXT_DIM, anchor="mm")
    img.paste(side, (sx0, sy0))
    d_img = ImageDraw.Draw(img)
    d_img.line((sx1, sy0, sx1, sy1), fill=(214, 212, 210))


def _draw_switch(d: ImageDraw.ImageDraw, box: Box, on: bool, enabled: bool) -> None:
    x0, y0, x1, y1 = box
    track = ACCENT if on else SWITCH_OFF
    if not enabled:
        track = (236, 236, 236) if not on else (240, 170, 140)
    rounded(d, box, (y1 - y0) // 2, fill=track)
    k = y1 - y0 - 4
    kx = x1 - 2 - k if on else x0 + 2
    d.ellipse((kx, y0 + 2, kx + k, y0 + 2 + k), fill=(255, 255, 255), outline=(200, 200, 200))


def _draw_row(win: SettingsWindow, d: ImageDraw.ImageDraw, row: Row, box: Box,
              focused: bool) -> None:
    x0, y0, x1, y1 = box
    cy = (y0 + y1) // 2
    fg = TEXT if row.enabled else (170, 170, 170)
    if row.subtitle:
        d.text((x0 + 16, cy - 10), row.label, font=font(14), fill=fg, anchor="lm")
        d.text((x0 + 16, cy + 11), ellipsize(row.subtitle, font(12), x1 - x0 - 120),
               font=font(12), fill=TEXT_DIM, anchor="lm")
    elif row.kind != "slider":
        d.text((x0 + 16, cy), row.label, font=font(14), fill=fg, anchor="lm")
    if row.kind == "switch":
        _draw_switch(d, win.switch_rect(box), bool(row.value), row.enabled)
    elif row.kind == "combo":
        cx1 = win.combo_rect(box)[2]
        d.text((cx1 - 30, cy), str(row.value), font=font(14), fill=fg, anchor="rm")
        d.line((cx1 - 18, cy - 2, cx1 - 13, cy + 3, cx1 - 8, cy - 2), fill=fg, width=2)
    elif row.kind == "link":
        if row.value:
            d.text((x1 - 40, cy), str(row.value), font=font(14), fill=TEXT_DIM, anchor="rm")
        d.line((x1 - 24, cy - 5, x1 - 19, cy, x1 - 24, cy + 5), fill=fg, width=2)
    elif row.kind == "info":
        d.text((x1 - 16, cy), str(row.value), font=font(14), fill=TEXT_DIM, anchor="rm")
    elif row.kind == "slider":
        d.text((x0 + 16, cy), row.label, font=font(14), fill=fg, anchor="lm")
        tx0, ty0, tx1, ty1 = win.track_rect(box)
        rounded(d, (tx0, ty0, tx1, ty1), 3, fill=(210, 210, 210))
        value = int(row.value)  # type: ignore[call-overload]
        kx = tx0 + round((tx1 - tx0) * min(value, row.maximum) / max(1, row.maximum))
        rounded(d, (tx0, ty0, kx, ty1), 3, fill=ACCENT)
        d.ellipse((kx - 10, cy - 10, kx + 10, cy + 10), fill=(255, 255, 255),
                  outline=(190, 190, 190))
        if row.maximum > 100:
            mark = tx0 + (tx1 - tx0) * 100 // row.maximum
            d.line((mark, ty1 + 6, mark, ty1 + 10), fill=TEXT_DIM)
    if focused:
        rounded(d, (x0 + 2, y0 + 2, x1 - 2, y1 - 2), 10, outline=FOCUS, width=2)


def _draw_pane(win: SettingsWindow, img: Image.Image, host: Desktop) -> None:
    px0, py0, px1, py1 = win.pane_rect()
    pane = Image.new("RGB", (px1 - px0, py1 - py0), BG)
    d = ImageDraw.Draw(pane)
    focused = win.focused_row(host)
    laid = win.layout(host)
    cards: list[list[tuple[Row, Box]]] = []
    for row, box in laid:
        if row.kind == "heading":
            cards.append([])
        elif not cards:
            cards.append([(row, box)])
        else:
            cards[-1].append((row, box))
    for row, box in laid:
        if row.kind == "heading":
            d.text((box[0] + 4 - px0, box[3] - 12 - py0), row.label, font=font(14, bold=True),
                   fill=TEXT, anchor="lm")
    for card in cards:
        if not card:
            continue
        x0, y0 = card[0][1][0] - px0, card[0][1][1] - py0
        x1, y1 = card[-1][1][2] - px0, card[-1][1][3] - py0
        if y1 < 0 or y0 > py1 - py0:
            continue
        rounded(d, (x0, y0, x1, y1), 12, fill=(255, 255, 255), outline=CARD_BORDER)
        for k, (row, box) in enumerate(card):
            charge()
            local = (box[0] - px0, box[1] - py0, box[2] - px0, box[3] - py0)
            if k:
                d.line((local[0] + 1, local[1], local[2] - 1, local[1]), fill=ROW_LINE)
            _draw_row(win, d, row, local, row == focused)
    if not laid:
        d.text(((px1 - px0) // 2, (py1 - py0) // 2 - 10), win.page, font=font(20, bold=True),
               fill=TEXT_DIM, anchor="mm")
        d.text(((px1 - px0) // 2, (py1 - py0) // 2 + 22), "Nothing to set up here",
               font=font(14), fill=TEXT_DIM, anchor="mm")
    img.paste(pane, (px0, py0))


def draw_content(win: SettingsWindow, img: Image.Image, host: Desktop, active: bool) -> None:
    _draw_sidebar(win, img, host)
    _draw_pane(win, img, host)


# -- accessibility ----------------------------------------------------------------------

def _row_node(win: SettingsWindow, row: Row, box: Box, focused: bool) -> dict[str, Any]:
    states = _SHOWN if row.enabled else ["showing", "visible"]
    extra = ["focusable"] + (["focused"] if focused else [])
    if row.kind == "switch":
        on = ["checked", "pressed"] if row.value else []
        n = node("toggle-button", row.label, win.switch_rect(box),
                 [*states, *extra, "checkable", *on])
    elif row.kind == "combo":
        n = node("combo-box", row.label, win.combo_rect(box), [*states, *extra],
                 text=str(row.value))
    elif row.kind == "slider":
        n = node("slider", row.label, win.track_rect(box), [*states, *extra, "horizontal"],
                 text=f"{row.value}", value=row.value, minimum=0, maximum=row.maximum)
    elif row.kind == "link":
        n = node("list-item", row.label, box, [*states, *extra, "selectable"],
                 text=str(row.value or ""))
    elif row.kind == "heading":
        n = node("label", row.label, box, ["showing", "visible"], text=row.label)
    else:
        n = node("label", row.label, box, ["showing", "visible"], text=str(row.value))
    return n


def accessibility(win: SettingsWindow, host: Desktop) -> list[dict[str, Any]]:
    out = [node("push-button", "Search", win.search_button_rect(),
                [*_SHOWN, "focusable", "checkable"] + (["checked"] if win.search else [])),
           node("push-button", "Main Menu", win.menu_button_rect(), [*_SHOWN, "focusable"])]
    search = win.search_rect()
    if search is not None and win.search is not None:
        a, b = win.search.selection()
        out.append(node("entry", "Search", search, [*_SHOWN, "editable", "focusable",
                                                     "focused", "single-line"],
                        text=win.search.text, caret=win.search.cursor, selection=[a, b]))
    back = win.back_rect()
    if back is not None:
        out.append(node("push-button", "Back", back, [*_SHOWN, "focusable"]))
    side = node("list", "Settings", win.sidebar_rect(), _SHOWN)
    current = win.page if win.section is not None else win.panel
    for i, name in enumerate(win.sidebar_items()):
        charge()
        if win.item_visible(i):
            states = [*_SHOWN, "focusable", "selectable"] + (["selected"] if name == current
                                                             else [])
            side["children"].append(node("list-item", name, win.item_rect(i), states))
    out.append(side)
    pane = node("scroll-pane", win.page, win.pane_rect(), _SHOWN)
    focused = win.focused_row(host)
    for row, box in win.layout(host):
        if win.row_visible(box):
            pane["children"].append(_row_node(win, row, box, row == focused))
    out.append(pane)
    return out
