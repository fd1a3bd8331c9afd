"""``drums-gym doctor``: the sandbox's state, the programs, what is missing, which tasks."""

from __future__ import annotations

import json
import shutil

import pytest

from drums_gym.cli import main
from drums_gym.local.sandbox import unavailable_reason
from drums_gym.local.sandbox.userland import PROGRAMS, task_programs


def test_doctor_reports_the_sandbox_and_the_programs(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    status = main(["doctor", "--json"])
    found = json.loads(capsys.readouterr().out)
    assert found["sandbox"] == {"works": unavailable_reason() is None,
                                "reason": unavailable_reason()}
    assert set(found["programs"]) == set(PROGRAMS)
    missing = [p for p in PROGRAMS if shutil.which(p) is None
               and not (p == "vim" and shutil.which("vi"))]
    assert found["missing"] == missing
    assert status == (0 if found["sandbox"]["works"] and not missing else 1)


def test_doctor_names_the_tasks_a_missing_program_affects(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "openssl"
                        else real(name, *a, **k))
    users = sorted(t for t, progs in task_programs().items() if "openssl" in progs)
    assert users, "some bundled task's scripts use openssl"
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "missing: openssl" in out and "install: apt-get install -y openssl" in out
    for task in users:
        assert f"task {task} needs missing openssl" in out
