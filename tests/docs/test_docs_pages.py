"""Every command and snippet of docs/*.md runs, as the README's do (issue 22, item 6).

Each page's ``python`` blocks run in order in one fresh interpreter (a page's snippets
build on each other, as a reader types them), on its own embedded local host; each
command line of its ``sh``/``bash`` blocks that starts with ``drums-gym`` or ``python``
runs in a shell, in a scratch folder (`tests/docs/doc_blocks.py` says how blocks are
read). A block that cannot run here says why in the page (``<!-- not run: REASON -->`` on
the line before it); every other runnable block must run, and one marked ``<!-- output
-->`` holds lines the block before it prints.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from doc_blocks import DOCS, ROOT, Block, all_blocks, blocks, commands

pytestmark = pytest.mark.timeout(600)

BLOCKS = all_blocks()
PAGES = sorted({b.page for b in BLOCKS if b.runs})
#: the first word of a command this test runs (anything else must be marked)
RUNS = ("drums-gym", "python", "python3")


def env_for(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DRUMS_")}
    env["DRUMS_LOCAL_GATE_DELAY"] = "0.05"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    bin_dir = Path(sys.executable).parent  # drums-gym and python of this interpreter
    env["PATH"] = os.pathsep.join([str(bin_dir), env.get("PATH", "")])
    env["HOME"] = str(tmp)
    return env


def first_word(command: str) -> str:
    words = [w for w in command.split() if not re.fullmatch(r"[A-Z_]+=\S*", w)]
    return words[0] if words else ""


def expected_output(page: list[Block], block: Block) -> list[str]:
    at = page.index(block)
    if at + 1 < len(page) and page[at + 1].mark == "output":
        return [" ".join(line.split()) for line in page[at + 1].text.splitlines() if line]
    return []


def check_output(printed: str, wanted: list[str], where: str) -> None:
    seen = " ".join(printed.split())
    for line in wanted:
        assert line in seen, f"{where}: the page says it prints {line!r}; it printed:\n{printed}"


def test_every_runnable_block_runs_or_says_why_not() -> None:
    assert len(BLOCKS) > 40 and PAGES
    for block in BLOCKS:
        if block.lang in ("sh", "bash") and block.mark is None:
            for command in commands(block):
                assert first_word(command) in RUNS, (
                    f"{block.id}: {command!r} is not run by this test: mark the block "
                    "<!-- not run: REASON -->")
        if block.mark not in (None, "output"):
            assert len(block.mark) > 10, f"{block.id}: say why it is not run"


DRIVER = '''
import json, sys, traceback
ns = {"__name__": "__main__"}
for block in json.load(sys.stdin):
    print(f"@@ {block['id']}", flush=True)
    try:
        exec(compile(block["text"], block["id"], "exec"), ns)
    except BaseException:
        traceback.print_exc()
        print(f"@@ failed {block['id']}", flush=True)
        sys.exit(1)
    sys.stdout.flush()
'''


@pytest.mark.parametrize("page", PAGES)
def test_the_pages_snippets_and_commands_run(page: str, tmp_path: Path) -> None:
    own = blocks(DOCS / page)
    env = env_for(tmp_path)
    snippets = [b for b in own if b.runs and b.lang == "python"]
    if snippets:
        data = json.dumps([{"id": b.id, "text": b.text} for b in snippets])
        proc = subprocess.run([sys.executable, "-c", DRIVER], input=data, cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=540)
        assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
        parts = dict(re.findall(r"^@@ (\S+)\n(.*?)(?=^@@ |\Z)", proc.stdout, re.S | re.M))
        for block in snippets:
            check_output(parts.get(block.id, ""), expected_output(own, block), block.id)
    for block in (b for b in own if b.runs and b.lang in ("sh", "bash")):
        printed = ""
        for command in commands(block):
            proc = subprocess.run(command, shell=True, cwd=tmp_path, env=env,
                                  capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, f"{block.id}: {command}\n{proc.stderr[-3000:]}"
            assert "Traceback" not in proc.stderr, f"{block.id}: {command}\n{proc.stderr}"
            printed += proc.stdout
        check_output(printed, expected_output(own, block), block.id)


def test_a_block_that_fails_fails_the_test(tmp_path: Path) -> None:
    """The planted break: a page with a broken snippet and an unmarked foreign command."""
    page = tmp_path / "planted.md"
    page.write_text("```python\nprint('ok')\n```\n<!-- output -->\n```\nnot ok\n```\n"
                    "```sh\nrm -rf /nothing\n```\n", encoding="utf-8")
    planted = blocks(page)
    assert [b.lang for b in planted] == ["python", "", "sh"]
    assert planted[1].mark == "output" and planted[2].runs
    assert first_word(commands(planted[2])[0]) not in RUNS
    with pytest.raises(AssertionError, match="says it prints 'not ok'"):
        check_output("ok\n", expected_output(planted, planted[0]), planted[0].id)
