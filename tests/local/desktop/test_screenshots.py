"""The README's screenshots come from the simulator: the script that takes them runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[3]


def test_screenshot_script_draws_desktop_files_and_terminal(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "screenshots.py"), str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    for name in ("desktop.png", "files.png", "terminal.png"):
        with Image.open(tmp_path / name) as image:
            assert image.size == (1920, 1080)
        assert (ROOT / "docs" / name).exists(), f"docs/{name} is in the README"
    for name in ("date-menu.png", "system-menu.png", "volume-osd.png"):
        with Image.open(tmp_path / name) as image:
            assert image.size == (1920, 1080)
        assert f"]({name})" in (ROOT / "docs" / "desktop.md").read_text(), name
        with Image.open(ROOT / "docs" / name) as shown, Image.open(tmp_path / name) as fresh:
            assert shown.tobytes() == fresh.tobytes(), f"docs/{name} is out of date"
