"""docs/actions.md: its example runs against a real local host and prints what the page shows."""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import FAST

from drums_gym.local.sandbox import available

PAGE = Path(__file__).resolve().parents[2] / "docs" / "actions.md"


@pytest.mark.skipif(not available(), reason="the example's code runs in the sandbox")
def test_the_example_prints_what_the_page_says(make_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", make_host(config=replace(FAST, shell="sandbox")).url)
    text = PAGE.read_text(encoding="utf-8")
    code, shown = re.search(r"```python\n(.*?)```\nprints\n```\n(.*?)```", text, re.S).groups()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(PAGE), "exec"), {"__name__": "__main__"})
    assert out.getvalue() == shown
