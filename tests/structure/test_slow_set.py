"""The slow end-to-end set names real tests: a renamed test cannot drop out of CI unseen."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import SLOW, is_slow

ROOT = Path(__file__).resolve().parents[2]


def missing(keys: dict[str, str]) -> list[str]:
    """The keys of ``keys`` that name no test file, or no test function in their file."""
    gone = []
    for key in keys:
        path, _, name = key.partition("::")
        file = ROOT / path
        defined = file.is_file() and (
            not name or re.search(rf"^def {re.escape(name)}\(", file.read_text(), re.M)
        )
        if not defined:
            gone.append(key)
    return gone


def test_every_slow_key_names_a_test() -> None:
    assert missing(SLOW) == []


def test_a_renamed_test_is_caught() -> None:
    planted = {**SLOW, "tests/loops/test_suite.py::test_that_was_renamed": "planted"}
    assert missing(planted) == ["tests/loops/test_suite.py::test_that_was_renamed"]
    assert missing({"tests/nope/test_gone.py": "planted"}) == ["tests/nope/test_gone.py"]


def test_a_key_marks_its_tests_and_only_them() -> None:
    assert is_slow("tests/docs/test_docs_pages.py::test_the_pages_snippets_and_commands_run[x]")
    assert is_slow("tests/reliability/test_fuzz.py::test_every_endpoint_survives_schemathesis")
    assert not is_slow("tests/reliability/test_fuzz.py::test_disguised_hostile_code_never_runs")
    assert not is_slow("tests/docs/test_docs_pages_extra.py::test_x")
