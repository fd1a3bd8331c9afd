"""Files' Properties dialog (Nautilus 42): a Basic tab and a Permissions tab.

Permissions change at once, as in Files: each class (Owner, Group, Others) has an
access combo (for files: None / Read-only / Read and write; for folders the folder
access, List files only / Access files / Create and delete files), and files have
"Allow executing file as program", which sets or clears the three execute bits.

>>> from .fs import FileSystem
>>> fs = FileSystem()
>>> fs.write_file("~/a.sh", "", mode=0o777)
>>> p = PropertiesWindow((100, 100, 560, 620), "/home/user/a.sh")
>>> p.set_access(fs, "Group", "Read-only"); p.set_access(fs, "Others", "Read-only")
>>> p.set_execute(fs, False); oct(fs.stat("~/a.sh").st_mode & 0o777)
'0o644'
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from PIL import Image, ImageDraw

from .file_icons import IMAGE_EXTS, file_icon
from .fs import FileSystem, split_ext
from .popups import Menu, MenuItem
from .theme import ACCENT, TEXT, TEXT_DIM, ellipsize, font, rounded
from .windows import Box, Window, node

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["CLASSES", "PropertiesWindow", "open_properties"]

CLASSES: tuple[tuple[str, int], ...] = (("Owner", 6), ("Group", 3), ("Others", 0))  # bit shift
FILE_ACCESS = {"None": 0, "Read-only": 4, "Read and write": 6}
DIR_ACCESS = {"None": 0, "List files only": 4, "Access files": 5, "Create and delete files": 7}
TABS = ("Basic", "Permissions")
_SHOWN = ["enabled", "sensitive", "showing", "visible"]
_MIME = {".txt": "Text (text/plain)", ".sh": "Shell script (application/x-shellscript)",
         ".pdf": "PDF document (application/pdf)", ".jpg": "JPEG image (image/jpeg)",
         ".jpeg": "JPEG image (image/jpeg)", ".png": "PNG image (image/png)",
         ".webp": "WebP image (image/webp)"}


class _Host(Protocol):
    width: int
    height: int
    fs: FileSystem
    windows: list[Window]
    desktop_focused: bool


def open_properties(host: _Host, path: str) -> PropertiesWindow:
    """Open the Properties dialog of ``path`` (centred, focused)."""
    w, h = 480, 520
    x = max(0, (host.width - w) // 2)
    y = max(28, (host.height - h) // 2)
    win = PropertiesWindow((x, y, x + w, y + h), host.fs.normpath(path))
    host.windows.append(win)
    host.desktop_focused = False
    return win


def _size_text(n: int) -> str:
    """GLib's g_format_size: "1 byte", "5 bytes", "1.2 kB", "3.4 MB"."""
    if n < 1000:
        return f"{n} byte" + ("" if n == 1 else "s")
    for unit in ("kB", "MB", "GB"):
        n_ = n / 1000
        if n_ < 1000 or unit == "GB":
            return f"{n_:.1f} {unit}"
        n = int(n_)
    return f"{n} bytes"


class PropertiesWindow(Window):
    """The Properties dialog of one file or folder."""

    app: ClassVar[str] = "files"
    CONTROLS: ClassVar[tuple[str, ...]] = ("close",)

    def __init__(self, box: Box, path: str) -> None:
        super().__init__(box)
        self.path = path
        self.tab = "Basic"

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[1] or "/"

    @property
    def title(self) -> str:
        return f"{self.name} Properties"

    # -- model --------------------------------------------------------------
    def mode(self, fs: FileSystem) -> int:
        return fs.stat(self.path).st_mode & 0o7777 if fs.exists(self.path) else 0

    def access(self, fs: FileSystem, cls: str) -> str:
        bits = (self.mode(fs) >> dict(CLASSES)[cls]) & 7
        table = DIR_ACCESS if fs.is_dir(self.path) else FILE_ACCESS
        if not fs.is_dir(self.path):
            bits &= 6
        for label, value in table.items():
            if value == bits:
                return label
        return "---"

    def choices(self, fs: FileSystem, cls: str) -> list[str]:
        if fs.is_dir(self.path):
            return [k for k in DIR_ACCESS if cls != "Owner" or k != "None"]
        return [k for k in FILE_ACCESS if cls != "Owner" or k != "None"]

    def set_access(self, fs: FileSystem, cls: str, label: str) -> None:
        shift = dict(CLASSES)[cls]
        mode = self.mode(fs)
        if fs.is_dir(self.path):
            bits = DIR_ACCESS[label]
            mode = (mode & ~(7 << shift)) | (bits << shift)
        else:
            bits = FILE_ACCESS[label]
            mode = (mode & ~(6 << shift)) | (bits << shift)
        fs.chmod(self.path, mode)

    def executable(self, fs: FileSystem) -> bool:
        return bool(self.mode(fs) & 0o111)

    def set_execute(self, fs: FileSystem, on: bool) -> None:
        mode = self.mode(fs)
        fs.chmod(self.path, (mode | 0o111) if on else (mode & ~0o111))

    def path_moved(self, old: str, new: str) -> None:
        if self.path == old or self.path.startswith(old + "/"):
            self.path = new + self.path[len(old):]

    def render_key(self, host: Desktop) -> tuple[Any, ...]:
        fs = host.fs
        return (*super().render_key(host), self.path, self.tab, self.mode(fs),
                fs.is_dir(self.path))

    # -- geometry -----------------------------------------------------------
    def tab_rect(self, i: int) -> Box:
        cx = self.x + self.w // 2
        x0 = cx - 110 + i * 110
        y0 = self.y + self.HEADER_H + 12
        return x0, y0, x0 + 110, y0 + 32

    def _row_y(self, i: int) -> int:
        return self.y + self.HEADER_H + 70 + i * 44

    def combo_rect(self, row: int) -> Box:
        y = self._row_y(row)
        return self.x + 190, y, self.x + self.w - 24, y + 34

    def check_rect(self) -> Box:
        y = self._row_y(3) + 12
        return self.x + 30, y, self.x + self.w - 24, y + 30

    def rows(self) -> list[tuple[str, str]]:
        return [(cls, f"{cls} Access") for cls, _ in CLASSES]

    # -- drawing --------------------------------------------------------------
    def draw_content(self, img: Image.Image, d: ImageDraw.ImageDraw, host: Desktop,
                     active: bool) -> None:
        fs = host.fs
        for i, tab in enumerate(TABS):
            x0, y0, x1, y1 = self.tab_rect(i)
            rounded(d, (x0, y0, x1, y1), 6, fill=(222, 221, 219) if tab == self.tab else None,
                    outline=(210, 208, 206))
            d.text(((x0 + x1) // 2, (y0 + y1) // 2), tab, font=font(14, bold=tab == self.tab),
                   fill=TEXT, anchor="mm")
        if not fs.exists(self.path):
            return
        if self.tab == "Basic":
            self._draw_basic(img, d, fs)
            return
        is_dir = fs.is_dir(self.path)
        for i, (cls, _) in enumerate(self.rows()):
            y = self._row_y(i)
            label = f"{cls}:" if not is_dir else f"{cls} (folder access):"
            d.text((self.x + 30, y + 17), label, font=font(14, bold=True), fill=TEXT_DIM,
                   anchor="lm")
            x0, y0, x1, y1 = self.combo_rect(i)
            rounded(d, (x0, y0, x1, y1), 6, fill=(246, 245, 244), outline=(205, 199, 194))
            d.text((x0 + 12, (y0 + y1) // 2), self.access(fs, cls), font=font(14), fill=TEXT,
                   anchor="lm")
            d.polygon([(x1 - 22, y0 + 14), (x1 - 12, y0 + 14), (x1 - 17, y0 + 20)], fill=TEXT)
        if not is_dir:
            x0, y0, _, y1 = self.check_rect()
            cy = (y0 + y1) // 2
            on = self.executable(fs)
            rounded(d, (x0, cy - 9, x0 + 18, cy + 9), 4, fill=ACCENT if on else (255, 255, 255),
                    outline=ACCENT if on else (160, 160, 160))
            if on:
                d.line((x0 + 4, cy, x0 + 8, cy + 4, x0 + 14, cy - 5), fill=(255, 255, 255),
                       width=2)
            d.text((x0 + 28, cy), "Allow executing file as program", font=font(14), fill=TEXT,
                   anchor="lm")

    def _basic_rows(self, fs: FileSystem) -> list[tuple[str, str]]:
        st = fs.stat(self.path)
        when = datetime.fromtimestamp(st.st_mtime, tz=timezone.utc)
        if fs.is_dir(self.path):
            n = len(fs.listdir(self.path))
            kind, size = "Folder (inode/directory)", f"{n} item" + ("" if n == 1 else "s")
        else:
            ext = split_ext(self.name)[1].lower()
            kind = _MIME.get(ext, "Image" if ext in IMAGE_EXTS else "Plain text document")
            size = _size_text(st.st_size)
        return [("Name", self.name), ("Type", kind), ("Size", size),
                ("Parent Folder", self.path.rsplit("/", 1)[0] or "/"),
                ("Modified", f"{when:%a %d %b %Y %H:%M:%S}")]

    def _draw_basic(self, img: Image.Image, d: ImageDraw.ImageDraw, fs: FileSystem) -> None:
        icon = file_icon(fs, self.path, 64)
        img.paste(icon, (self.x + self.w // 2 - 32, self._row_y(0) - 6), icon)
        for i, (label, value) in enumerate(self._basic_rows(fs)):
            y = self._row_y(i) + 84 + i * -8
            d.text((self.x + 150, y), f"{label}", font=font(14, bold=True), fill=TEXT_DIM,
                   anchor="rm")
            d.text((self.x + 164, y), ellipsize(value, font(14), self.w - 190), font=font(14),
                   fill=TEXT, anchor="lm")

    # -- input ----------------------------------------------------------------
    def on_press(self, host: Desktop, x: int, y: int, button: str, clicks: int) -> None:
        if button != "left":
            return
        for i, tab in enumerate(TABS):
            if _inside(self.tab_rect(i), x, y):
                self.tab = tab
                return
        if self.tab != "Permissions" or not host.fs.exists(self.path):
            return
        for i, (cls, _) in enumerate(self.rows()):
            box = self.combo_rect(i)
            if _inside(box, x, y):
                items = tuple(MenuItem(c, f"access:{cls}:{c}")
                              for c in self.choices(host.fs, cls))
                host.menu = Menu.at(items, (box[0], box[3] + 2), (host.width, host.height),
                                    owner=self, name=f"{cls} Access")
                host.menu_targets = ()
                return
        if not host.fs.is_dir(self.path) and _inside(self.check_rect(), x, y):
            self.set_execute(host.fs, not self.executable(host.fs))

    def run_menu_action(self, host: Desktop, action: str, targets: list[str]) -> None:
        kind, _, rest = action.partition(":")
        cls, _, label = rest.partition(":")
        if kind == "access" and host.fs.exists(self.path) and label in (
                self.choices(host.fs, cls)):
            self.set_access(host.fs, cls, label)

    def on_key(self, host: Desktop, key: str) -> bool:
        if key == "escape":
            host.close_window(self)
            return True
        if host.mods.ctrl and key in ("pagedown", "pageup", "pgdn", "pgup"):
            # GtkNotebook's change-current-page (it wraps around)
            step = 1 if key in ("pagedown", "pgdn") else -1
            self.tab = TABS[(TABS.index(self.tab) + step) % len(TABS)]
            return True
        return False

    # -- accessibility ----------------------------------------------------------
    def content_accessibility(self, host: Desktop) -> list[dict[str, Any]]:
        fs = host.fs
        tabs = node("page-tab-list", "Tabs", (self.tab_rect(0)[0], self.tab_rect(0)[1],
                                              self.tab_rect(len(TABS) - 1)[2],
                                              self.tab_rect(0)[3]))
        tabs["children"] = [node("page-tab", t, self.tab_rect(i),
                                 [*_SHOWN, "selectable"] + (["selected"] if t == self.tab else []))
                            for i, t in enumerate(TABS)]
        out = [tabs]
        if not fs.exists(self.path):
            return out
        if self.tab == "Basic":
            for i, (label, value) in enumerate(self._basic_rows(fs)):
                y = self._row_y(i) + 84 + i * -8
                out.append(node("label", label, (self.x + 30, y - 10, self.x + 150, y + 10),
                                ["showing", "visible"]))
                out.append(node("label", value, (self.x + 164, y - 10, self.x + self.w - 24,
                                                 y + 10), ["showing", "visible"], text=value))
            return out
        for i, (cls, name) in enumerate(self.rows()):
            out.append(node("combo-box", name, self.combo_rect(i), [*_SHOWN, "focusable"],
                            text=self.access(fs, cls)))
        if not fs.is_dir(self.path):
            states = [*_SHOWN, "focusable", "checkable"]
            out.append(node("check-box", "Allow executing file as program", self.check_rect(),
                            states + (["checked"] if self.executable(fs) else [])))
        return out


def _inside(box: Box, x: int, y: int) -> bool:
    return box[0] <= x < box[2] and box[1] <= y < box[3]
