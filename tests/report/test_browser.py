"""The report and the live view in a real browser: headless Chromium driven by Playwright.

Checks what a person sees: the report's chart bars, rows, filters, a trajectory's frames
with the click marked, the enlarged frame; the live view's status, its frame changing after
an action is posted, the action log, and that every request it makes carries the token in
the Authorization header (never in a URL). Screenshots go to test-artifacts/; with
``DRUMS_UPDATE_DOCS=1`` also to docs/report.png and docs/live-view.png.

Needs Debian's ``chromium`` (/usr/bin/chromium, or $DRUMS_CHROMIUM) and ``pip install
playwright`` (never ``playwright install``: the system browser is used). Skipped, with the
reason, when either is missing.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
from conftest import FAST, assert_no_leaks
from report_fixture import SECOND_TASK, SOLVED_TASK, make_run

from drums_gym import protocol as P
from drums_gym.local.faults import FaultSpec
from drums_gym.local.server import LocalHost
from drums_gym.report import load_run, write_report

CHROMIUM = os.environ.get("DRUMS_CHROMIUM", "/usr/bin/chromium")
playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)
if not Path(CHROMIUM).exists():
    pytest.skip(
        f"no Chromium at {CHROMIUM} (apt-get install chromium, or set DRUMS_CHROMIUM)",
        allow_module_level=True,
    )

DOCS = Path(__file__).resolve().parents[2] / "docs"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
#: how many polls of the live page a frame change may take before the test fails
MAX_POLLS = 40
#: a bound on one wait for the page (a hang, not a race: the page polls every 0.5 s)
WAIT_MS = 15_000
TOKEN = "br0wser+t0ken/="  # a + and a / : sent as they are
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with playwright_api.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=CHROMIUM,
            headless=True,
            args=ARGS,
            viewport={"width": 1280, "height": 800},
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    yield page
    page.close()
    assert errors == [], errors


def save(page: Any, name: str, artifacts: Path, **kwargs: Any) -> None:
    path = artifacts / name
    page.screenshot(path=str(path), **kwargs)
    if os.environ.get("DRUMS_UPDATE_DOCS") == "1":
        shutil.copyfile(path, DOCS / name)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("browser-run") / "eval"
    with LocalHost(FAST) as healthy, LocalHost(
        FAST, faults=FaultSpec.parse("gate_fail=1")
    ) as failing:
        make_run(folder, healthy.url, failing.url)
        assert_no_leaks(healthy)
        assert_no_leaks(failing)
    write_report(folder)
    return folder


def visible_rows(page: Any) -> list[tuple[str, str]]:
    rows = page.locator("#episode-table tr.episode:visible")
    return [
        (rows.nth(i).get_attribute("data-task"), rows.nth(i).get_attribute("data-outcome"))
        for i in range(rows.count())
    ]


def test_the_report_as_a_person_sees_it(page: Any, run_dir: Path, artifacts: Path) -> None:
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto((run_dir / "report.html").as_uri())
    run = load_run(run_dir)

    # the chart: a bar per task and the overall one, as long as their success rates
    bars = page.locator("svg.chart rect.bar")
    assert bars.count() == 3
    widths = [bars.nth(i).bounding_box()["width"] for i in range(3)]
    full = widths[0]  # e0df059f: 2 of 2
    assert full > 300
    assert widths[1] == 0  # 7688b85f: 0 of 1 valid
    assert widths[2] == pytest.approx(full * 2 / 3, abs=1.5)  # overall: 2 of 3 valid
    assert page.locator("svg.chart g.ci").count() == 3

    # the rows, and the filters
    everything = [(e.task_short, e.outcome) for e in run.episodes]
    assert visible_rows(page) == everything
    page.select_option("#filter-outcome", "solved")
    assert visible_rows(page) == [r for r in everything if r[1] == "solved"] != []
    assert page.inner_text("#shown") == "2 of 4 episodes"
    page.select_option("#filter-task", SECOND_TASK)
    assert visible_rows(page) == []
    page.select_option("#filter-outcome", "invalid")
    assert visible_rows(page) == [(SECOND_TASK, "invalid")]
    assert page.locator("details.trajectory:visible").count() == 1
    page.select_option("#filter-task", "")
    page.select_option("#filter-outcome", "")
    assert visible_rows(page) == everything

    # a trajectory: following its row opens it; every frame is there and loaded
    episode = run.episodes[0]
    assert episode.task_short == SOLVED_TASK
    section = follow_first_row(page, episode.anchor)
    images = section.locator(".step img")
    assert images.count() == len(episode.steps) + 1  # the steps and the final screen
    for i in range(images.count()):
        images.nth(i).scroll_into_view_if_needed()
        assert images.nth(i).evaluate("img => img.complete && img.naturalWidth") == 1920
    assert section.locator(".verdict").inner_text() == "solved (score 1.00)"

    # the click is marked on the frame it was chosen on, where it pressed
    first = section.locator(".step").first
    click = episode.steps[0].clicks[0]
    frame_box = first.locator(".frame img").bounding_box()
    mark_box = first.locator(".click").bounding_box()
    centre = (mark_box["x"] + mark_box["width"] / 2, mark_box["y"] + mark_box["height"] / 2)
    scale = frame_box["width"] / 1920
    assert centre[0] == pytest.approx(frame_box["x"] + click.x * scale, abs=1.5)
    assert centre[1] == pytest.approx(frame_box["y"] + click.y * scale, abs=1.5)
    page.evaluate("window.scrollTo(0, 0)")
    save(page, "report.png", artifacts, full_page=True)

    # click to enlarge: the frame, its mark, and a way back
    thumb = first.locator(".frame img").bounding_box()["width"]
    first.locator(".frame").click()
    box = page.locator("#lightbox")
    assert box.is_visible()
    assert box.locator("img").bounding_box()["width"] > 2.5 * thumb
    assert box.locator(".click").is_visible()
    assert box.locator("figcaption").inner_text().startswith("step 1")
    page.keyboard.press("ArrowRight")  # the episode's next frame
    assert box.locator("figcaption").inner_text() == "step 2"
    assert box.locator("img").get_attribute("src") == episode.steps[1].frame
    page.keyboard.press("ArrowLeft")
    assert box.locator("figcaption").inner_text().startswith("step 1")
    page.keyboard.press("Escape")
    assert box.is_hidden()

    # the invalid episode says it was invalid, and why (not that its recording was cut)
    invalid = next(e for e in run.episodes if e.outcome == "invalid")
    page.locator(f"details#{invalid.anchor} > summary").click()
    ending = page.locator(f"details#{invalid.anchor} .ending")
    assert ending.inner_text().startswith("the episode was invalid (gate_failed)")
    assert "did not reach" not in page.locator(f"details#{invalid.anchor}").inner_text()

    # nothing but the folder's own files was loaded
    assert requests and all(u.startswith(run_dir.as_uri()) for u in requests), requests


@pytest.fixture(scope="module")
def model_run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from model_run import model_eval

    folder = tmp_path_factory.mktemp("browser-model") / "eval"
    with LocalHost(FAST) as host:
        model_eval(folder, host.url, suite=False)
        assert_no_leaks(host)
    return folder


def test_the_report_shows_each_models_reply_and_the_instruction(
    page: Any, model_run_dir: Path, artifacts: Path
) -> None:
    from model_run import INSTRUCTION_START, MODEL, REPLIES, TOKENS

    page.goto((model_run_dir / "report.html").as_uri())
    run = load_run(model_run_dir)
    [episode] = run.episodes
    section = follow_first_row(page, episode.anchor)
    assert section.locator(".instruction").inner_text().startswith(INSTRUCTION_START)
    replies = section.locator(".step .reply")
    assert replies.count() == len(REPLIES)
    for i, reply in enumerate(REPLIES):
        card = replies.nth(i)
        assert card.is_visible()  # open: the reply is what a researcher came for
        assert card.locator("pre").inner_text() == reply  # as text: <b> is not bold
        prompt, completion = TOKENS[i]
        assert card.locator("summary").inner_text() == (
            f"model reply (model {MODEL} · {prompt} prompt + {completion} completion tokens)")
    actions = section.locator(".step pre.action")
    assert actions.nth(len(REPLIES) - 1).inner_text() == "DONE"
    assert section.locator(".step .label").first.inner_text() == "parsed action"
    assert section.locator(".verdict").inner_text() == "solved (score 1.00)"
    section.scroll_into_view_if_needed()
    save(page, "report-model.png", artifacts, full_page=True)


def follow_first_row(page: Any, anchor: str) -> Any:
    """Follow the table's first row and wait until its trajectory has opened.

    The page opens a ``<details>`` on ``hashchange``, which the browser fires
    after the click has returned: reading the section at once races the page.
    """
    page.locator("#episode-table tr.episode a").first.click()
    page.wait_for_selector(f"details#{anchor}[open]", state="attached", timeout=WAIT_MS)
    return page.locator(f"details#{anchor}")


def poll_until(page: Any, done: Any) -> int:
    """Let the page poll (up to MAX_POLLS times) until ``done()``; the polls it took."""
    for polls in range(MAX_POLLS):
        if done():
            return polls
        n = page.locator("body").get_attribute("data-polls")
        page.wait_for_selector(f'body:not([data-polls="{n}"])', state="attached",
                               timeout=WAIT_MS)
    raise AssertionError(f"not after {MAX_POLLS} polls of the page")


def test_the_live_view_follows_a_desktop(
    page: Any, browser: Any, make_host: Any, artifacts: Path
) -> None:
    host = make_host(tokens=[TOKEN])
    slot = httpx.post(host.url + P.SLOTS, json={"task": SOLVED_TASK}, headers=AUTH).json()
    sid = slot["id"]
    try:
        httpx.get(host.url + P.slot_episode_path(sid), params={"wait": "true"}, headers=AUTH)
        seen: list[tuple[str, str | None]] = []
        page.on("request", lambda r: seen.append((r.url, r.headers.get("authorization"))))
        view = host.url + P.slot_view_path(sid)
        page.goto(view + "#token=" + TOKEN)
        screen = page.locator("#screen")
        poll_until(page, lambda: screen.get_attribute("data-frame") is not None)
        poll_until(page, lambda: page.inner_text("#status") == "valid")
        assert page.url == view  # the token left the address bar
        assert page.inner_text("#slot") == sid
        before_frame = screen.get_attribute("data-frame")
        before = screen.screenshot()

        for code in ("pyautogui.click(142, 98)", "pyautogui.hotkey('f2')"):
            reply = httpx.post(host.url + P.slot_actions_path(sid), json={"code": code},
                               headers=AUTH)
            assert reply.status_code == 200, reply.text
        poll_until(page, lambda: screen.get_attribute("data-frame") != before_frame)
        poll_until(page, lambda: page.locator("#log li").count() == 2)
        assert screen.screenshot() != before  # what a person sees changed
        log = page.locator("#log li")
        assert "pyautogui.click(142, 98)" in log.nth(0).inner_text()
        assert "pyautogui.hotkey('f2')" in log.nth(1).inner_text()
        assert page.inner_text("#actions") == "2" and page.inner_text("#last") == "code"
        page.set_viewport_size({"width": 1280, "height": 600})
        save(page, "live-view.png", artifacts)

        # every request went with the token in its header, and none carried it in its URL
        data = [(u, a) for u, a in seen if u.startswith(host.url) and not u.startswith(view)]
        assert {u.split(":")[0] for u, _ in seen} <= {"http", "blob"}  # blob: the frames
        assert data, seen
        assert all(a == f"Bearer {TOKEN}" for _, a in data), data
        assert all(TOKEN not in unquote(u) for u, _ in seen), seen
        suffixes = {u.split(sid)[1].split("?")[0] for u, _ in data}
        assert suffixes == {P.SCREENSHOT_SUFFIX, P.EPISODE_SUFFIX, P.ACTIONS_SUFFIX}

        # a control word shows in the log and the status
        httpx.post(host.url + P.slot_actions_path(sid), json={"code": "DONE"}, headers=AUTH)
        poll_until(page, lambda: page.inner_text("#last") == "DONE")
        assert "DONE" in page.locator("#log li.control").inner_text()
    finally:
        httpx.delete(host.url + P.slot_path(sid), headers=AUTH)


def test_the_live_view_says_no_token_was_given_then_asks_for_it(
    page: Any, make_host: Any
) -> None:
    host = make_host(tokens=[TOKEN])
    slot = httpx.post(host.url + P.SLOTS, json={"task": SOLVED_TASK}, headers=AUTH).json()
    try:
        page.goto(host.url + P.slot_view_path(slot["id"]))  # no token
        form = page.locator("#token-form")
        poll_until(page, form.is_visible)
        assert page.inner_text("#message") == (
            "no token was given: enter the token the host was started with")
        # no broken image: the frame is hidden until one arrives, and the page says so
        assert page.locator("#screen").is_hidden()
        assert page.locator("#no-frame").inner_text() == "no frame yet"
        assert page.locator("#screen").get_attribute("data-frame") is None
        page.fill("#token", "not-the-token")
        page.click("#token-form button")
        poll_until(page, lambda: "refused the token" in page.inner_text("#message"))
        page.fill("#token", TOKEN)
        page.click("#token-form button")
        poll_until(page, lambda: page.inner_text("#status") == "valid")
        assert form.is_hidden() and page.inner_text("#message") == ""
        assert page.locator("#screen").get_attribute("data-frame") is not None
        assert page.locator("#screen").is_visible() and page.locator("#no-frame").is_hidden()
    finally:
        httpx.delete(host.url + P.slot_path(slot["id"]), headers=AUTH)
        assert_no_leaks(host)


RENAME = ("pyautogui.click(142, 98)\npyautogui.press('f2')\npyautogui.hotkey('ctrl', 'a')\n"
          "pyautogui.write('todo_list_Jan_2')\npyautogui.press('enter')")


def test_the_live_view_shows_the_verdict_and_refused_actions(
    page: Any, make_host: Any, artifacts: Path
) -> None:
    host = make_host(tokens=[TOKEN])
    slot = httpx.post(host.url + P.SLOTS, json={"task": SOLVED_TASK}, headers=AUTH).json()
    sid = slot["id"]
    try:
        httpx.get(host.url + P.slot_episode_path(sid), params={"wait": "true"}, headers=AUTH)
        page.goto(host.url + P.slot_view_path(sid) + "#token=" + TOKEN)
        poll_until(page, lambda: page.inner_text("#status") == "valid")
        refused = httpx.post(host.url + P.slot_actions_path(sid),
                             json={"code": "pyautogui.click("}, headers=AUTH)  # no Python
        assert refused.status_code == 422, refused.text
        for code in (RENAME, "DONE"):
            reply = httpx.post(host.url + P.slot_actions_path(sid), json={"code": code},
                               headers=AUTH)
            assert reply.status_code == 200, reply.text
        verdict = httpx.post(host.url + P.slot_verify_path(sid), json={}, headers=AUTH).json()
        assert verdict["score"] == 1.0
        poll_until(page, lambda: page.inner_text("#status") == "solved · score 1.00")
        assert "solved" in (page.locator("#status").get_attribute("class") or "")
        log = page.locator("#log li")
        assert log.count() == 3
        rejected = page.locator("#log li.rejected")
        assert rejected.count() == 1 and "pyautogui.click(" in rejected.inner_text()
        assert rejected.locator(".why").inner_text().startswith("rejected: ")
        assert page.inner_text("#actions") == "2"  # the refused one is no action
        save(page, "live-view-verdict.png", artifacts)
    finally:
        httpx.delete(host.url + P.slot_path(sid), headers=AUTH)


def test_the_live_view_of_a_deleted_slot_says_so_and_stops(page: Any, make_host: Any) -> None:
    host = make_host(tokens=[TOKEN])
    slot = httpx.post(host.url + P.SLOTS, json={"task": SOLVED_TASK}, headers=AUTH).json()
    sid = slot["id"]
    page.goto(host.url + P.slot_view_path(sid) + "#token=" + TOKEN)
    poll_until(page, lambda: page.locator("#screen").get_attribute("data-frame") is not None)
    assert httpx.delete(host.url + P.slot_path(sid), headers=AUTH).is_success
    poll_until(page, lambda: page.locator("body").get_attribute("data-stopped") == "1")
    assert page.inner_text("#message").startswith("the slot is gone (slot ")
    assert "stopped watching" in page.inner_text("#message")
    assert page.inner_text("#status") == "gone"
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.wait_for_timeout(4 * 500)  # four polls' time: a page still polling asks again
    assert asked == []
