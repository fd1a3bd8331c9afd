"""docs/step-limit.md's example runs (on its own embedded host) and prints what the page says."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

PAGE = (Path(__file__).resolve().parents[2] / "docs" / "step-limit.md").read_text()


def test_the_step_limit_example_prints_what_the_page_says():
    code, printed = re.search(r"```python\n(.*?)```\n\nprints\n\n```text\n(.*?)```", PAGE,
                              re.S).groups()
    env = {**os.environ, "DRUMS_LOCAL_GATE_DELAY": "0.05"}
    env.pop("DRUMS_URL", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout == printed
