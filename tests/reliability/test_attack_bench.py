"""``benchmarks/attacks.py --quick`` runs and prints a row for every attack class."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "attacks.py"


def _classes() -> list[str]:
    """The class names, read from the benchmark's own table (no import of benchmarks/)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("attacks_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.CLASSES)


def test_the_attack_benchmark_prints_every_class() -> None:
    done = subprocess.run([sys.executable, str(BENCH), "--quick"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = {line[:28].strip(): line[28:].split() for line in done.stdout.splitlines()[1:]
            if not line.startswith("host peak RSS")}
    classes = _classes()
    assert len(classes) >= 22
    for name in classes:
        assert name in rows, f"no row for {name!r}:\n{done.stdout}"
        assert len(rows[name]) == 6 and all(v != "nan" for v in rows[name]), rows[name]
    assert "host peak RSS: " in done.stdout
