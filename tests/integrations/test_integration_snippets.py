"""The docs' snippets for Tianshou, skrl and a CleanRL-style loop (docs/integrations.md,
each after a ``<!-- snippet: NAME -->`` line), run as a user runs them, against a local
host with ``crash=0.3`` faults: each library's own figure counts the invalid episodes as
0, drums-gym's statistics wrappers leave them out. Skipped without the library."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"
FAULTS, SEED = "crash=0.3", 1
FIGURES = re.compile(r"mean (\d\.\d{3}) over (\d+) episodes; valid-only (\d\.\d{3}) over (\d+)")


def snippet(name: str) -> str:
    text = DOCS.read_text()
    match = re.search(rf"<!-- snippet: {name} -->\n```python\n(.*?)```", text, re.S)
    assert match, f"docs/integrations.md has no snippet {name!r}"
    return match.group(1)


def run(code: str, url: str, tmp_path: Path) -> str:
    script = tmp_path / "snippet_run.py"  # not named after a library it imports
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "DRUMS_URL": url}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("name", ["tianshou", "skrl"])
def test_library_snippet_counts_invalid_as_zero_the_wrapper_does_not(make_host, tmp_path,
                                                                       name):
    pytest.importorskip(name, reason=f"needs {name}: pip install {name}")
    host = make_host(faults=FAULTS, seed=SEED)
    out = run(snippet(name), host.url, tmp_path)
    match = FIGURES.search(out)
    assert match, out
    plain, episodes, honest, valid = (float(g) for g in match.groups())
    assert episodes == 16 and 0 < valid < episodes, "the seeded faults hit some episodes"
    # the library's mean is the valid episodes' total spread over every episode
    assert plain == pytest.approx(honest * valid / episodes, abs=1e-3)
    assert plain < honest
    print(f"{name.upper()} {out.strip()}")


def test_cleanrl_style_loop_with_the_drums_wrapper_and_gymnasiums(make_host, tmp_path):
    code = snippet("cleanrl")
    out = run(code, make_host(faults=FAULTS, seed=SEED).url, tmp_path)
    match = re.search(r"mean (\d\.\d{3}) over (\d+) valid episodes; invalid (\d+)", out)
    assert match, out
    honest, valid, invalid = float(match.group(1)), int(match.group(2)), int(match.group(3))
    assert invalid >= 1 and valid + invalid == 16
    # the same loop over Gymnasium's RecordEpisodeStatistics, on the same seeded faults
    plain_code = code.replace(
        "DrumsVectorEpisodeStatistics(envs)", "gym.wrappers.vector.RecordEpisodeStatistics(envs)"
    ).replace('infos["_episode"] & infos["episode"]["valid"]', 'infos["_episode"]').replace(
        'f"invalid {envs.invalid_count}"', '"(Gymnasium)"')
    assert plain_code != code
    plain_out = run(plain_code, make_host(faults=FAULTS, seed=SEED).url, tmp_path)
    plain_match = re.search(r"mean (\d\.\d{3}) over (\d+) valid episodes", plain_out)
    assert plain_match, plain_out
    plain, ends = float(plain_match.group(1)), int(plain_match.group(2))
    assert ends == 16 and plain == pytest.approx(honest * valid / 16, abs=1e-3)
    assert plain < honest
    print(f"CLEANRL drums={honest:.3f} gymnasium={plain:.3f} invalid={invalid}")
