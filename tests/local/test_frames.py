"""Screenshot formats: PNG, raw, and raw deltas rebuild exactly the screen the host shows."""

from __future__ import annotations

import numpy as np
import pytest

from drums_gym.client import connect


@pytest.fixture
def slot(local_host):
    with connect(url=local_host.url) as client:
        slot = client.create(task="e0df059f")
        slot.wait_valid()
        yield slot
        slot.delete()


def test_raw_deltas_rebuild_the_exact_screen(slot):
    first = slot.observe(format="raw")
    assert first.array.shape == (1080, 1920, 3) and len(first.data) == 1920 * 1080 * 3
    first.array[:] = 0  # a caller scribbling on its array must not corrupt the next frame
    for x, y in ((300, 400), (310, 405), (1500, 900), (1500, 900)):
        slot.step(f"pyautogui.moveTo({x}, {y})")
        raw = slot.observe(format="raw")
        png = slot.observe(format="png")
        assert raw.frame == png.frame
        np.testing.assert_array_equal(raw.array, png.array)
        assert len(raw.data) < 200_000, "only the changed rectangle travels"
    again = slot.observe(format="raw")
    assert again.data == b"" and not np.shares_memory(again.array, raw.array)
    np.testing.assert_array_equal(again.array, raw.array)


def test_deltas_stay_exact_across_a_reset(slot):
    slot.observe(format="raw")
    slot.step("pyautogui.moveTo(1200, 700)")
    slot.observe(format="raw")
    slot.reset()  # a new desktop whose frame counter starts again
    slot.wait_valid()
    frame = slot.observe(format="raw")
    np.testing.assert_array_equal(frame.array, slot.observe(format="png").array)


def test_a_pointer_move_is_two_small_rectangles(slot):
    slot.observe(format="raw")
    slot.step("pyautogui.moveTo(100, 1000)")  # far from where the pointer was
    frame = slot.observe(format="raw")
    assert 0 < len(frame.data) < 20_000


def test_preferred_format_is_raw_on_loopback(local_host):
    with connect(url=local_host.url) as client:
        assert client.preferred_screenshot_format() == "raw"


@pytest.mark.parametrize("fmt", ["raw", "png"])
def test_observe_into_a_batch_row(slot, fmt):
    batch = np.zeros((2, 1080, 1920, 3), dtype=np.uint8)
    frame = slot.observe(format=fmt, out=batch[1])
    assert np.shares_memory(frame.array, batch) and batch[1].any() and not batch[0].any()
    np.testing.assert_array_equal(batch[1], slot.observe(format="png").array)
    with pytest.raises(ValueError, match="out"):
        slot.observe(format=fmt, out=np.zeros((10, 10, 3), np.uint8))


def test_a_row_filled_ahead_gets_only_the_delta(slot):
    """copy_frame fills a row with the last raw frame; observe(out_holds=its token) then
    writes only what changed there. A stale or foreign token falls back to the whole copy."""
    assert slot.copy_frame(np.zeros((1080, 1920, 3), np.uint8)) is None  # no raw frame yet
    slot.observe(format="raw")
    rows = np.zeros((2, 1080, 1920, 3), dtype=np.uint8)
    for k, (x, y) in enumerate(((300, 400), (900, 100), (1500, 900))):
        row = rows[k % 2]
        token = slot.copy_frame(row)
        assert token is not None
        base = row.copy()
        row[:8, :8] = 255  # outside the delta (the top-left corner): must stay as it is
        slot.step(f"pyautogui.moveTo({x}, {y})")
        frame = slot.observe(format="raw", out=row, out_holds=token)
        assert frame.array is row and len(frame.data) < 200_000
        png = slot.observe(format="png").array
        changed = np.any(png != base, axis=2, keepdims=True)
        assert changed.any(), "the pointer moved"
        base[:8, :8] = 255
        np.testing.assert_array_equal(row, np.where(changed, png, base))
    for holds in ("0.0", None):  # not the base: the whole screen is copied into out
        row = np.zeros((1080, 1920, 3), dtype=np.uint8)
        slot.step("pyautogui.moveTo(640, 480)")
        slot.observe(format="raw", out=row, out_holds=holds)
        np.testing.assert_array_equal(row, slot.observe(format="png").array)
    with pytest.raises(ValueError, match="out"):
        slot.copy_frame(np.zeros((10, 10, 3), np.uint8))
