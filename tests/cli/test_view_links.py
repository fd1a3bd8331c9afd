"""``rollout --view`` and ``eval --view`` print the live view's address of each desktop as
its episode starts (issue 22, item 2), on stderr, and each address serves the page."""

from __future__ import annotations

import re

import httpx
import pytest

from drums_gym.cli import main

pytestmark = pytest.mark.timeout(120)

LINE = re.compile(r"^view     (.+): (http://127\.0\.0\.1:\d+/v1/slots/(slot_\w+)/view)$")


def links(err: str) -> list[tuple[str, str]]:
    found = [LINE.match(line) for line in err.splitlines() if line.startswith("view ")]
    assert all(found), err
    return [(m.group(1), m.group(2)) for m in found if m]


@pytest.mark.parametrize(("argv", "who"), [
    (["rollout", "--n", "2", "--groups", "1", "--steps", "1"],
     ["parent", "group 1 member 0", "group 1 member 1"]),
    (["eval", "--episodes", "2", "--num-envs", "2", "--steps", "1"], ["env 0", "env 1"]),
])
def test_view_prints_where_to_watch_each_desktop(
    local_host, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    argv: list[str], who: list[str]
) -> None:
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    monkeypatch.delenv("DRUMS_TOKEN", raising=False)
    assert main([*argv, "--view", "--json", "--no-progress"]) == 0
    seen = links(capsys.readouterr().err)
    for _, url in seen:  # each address is the host's live view page
        reply = httpx.get(url)
        assert reply.status_code == 200 and "drums-gym live view" in reply.text
    assert [w for w, _ in seen][:len(who)] == who
    assert all(url.startswith(local_host.url) for _, url in seen)
    assert main([*argv, "--json", "--no-progress"]) == 0
    assert "view " not in capsys.readouterr().err  # only when asked
