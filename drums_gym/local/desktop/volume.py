"""The output volume as GNOME changes it: the media keys, the System menu's slider, the OSD.

The volume lives in the default sink's file (`settings_panels.set_sink`, where ``pactl``
reads it). The media keys follow gnome-settings-daemon 42's ``do_sound_action``: a step of
``org.gnome.settings-daemon.plugins.media-keys volume-step`` percent (6 by default), capped
at 100% (153% with ``allow-volume-above-100-percent``); Volume Down at or below one step goes
to 0 and mutes; Volume Up unmutes (raising only from 0); Mute toggles. Each press shows
GNOME Shell's volume OSD for 1.5 s of the desktop's clock.

>>> from drums_gym.local.desktop.fs import FileSystem
>>> fs = FileSystem()
>>> level(fs)
(26214, False)
>>> for _ in range(12):
...     _ = media_key(fs, "volumeup")
>>> level(fs), percent(fs)
((65536, False), 100)
"""

from __future__ import annotations

from dataclasses import dataclass

from .bash.cmd_system import sink_volume
from .fs import FileSystem
from .settings_panels import set_sink
from .settings_store import SettingsStore

__all__ = ["MEDIA_KEYS", "NORM", "OSD_SECONDS", "UI_MAX", "Osd", "level", "max_volume",
           "media_key", "percent", "set_fraction"]

NORM = 65536  # PA_VOLUME_NORM: 100%
UI_MAX = 99957  # PA_VOLUME_UI_MAX: +11 dB, the cap with over-amplification (153%)
OSD_SECONDS = 1.5  # gnome-shell's osdWindow.js HIDE_TIMEOUT
MEDIA_KEYS = frozenset({"volumeup", "volumedown", "volumemute"})
_STEP = ("org.gnome.settings-daemon.plugins.media-keys", "volume-step")
_OVER = ("org.gnome.desktop.sound", "allow-volume-above-100-percent")


def level(fs: FileSystem) -> tuple[int, bool]:
    """The default sink's ``(volume, muted)`` (PulseAudio units)."""
    return sink_volume(fs)


def percent(fs: FileSystem) -> int:
    """The volume in percent, as ``pactl`` prints it."""
    return round(level(fs)[0] * 100 / NORM)


def max_volume(fs: FileSystem) -> int:
    """The highest volume the shell's slider and the keys set (100%, or 153%)."""
    return UI_MAX if SettingsStore(fs).get(*_OVER) else NORM


def set_fraction(fs: FileSystem, fraction: float) -> None:
    """The System menu's slider: ``fraction`` of `NORM` (0..`max_volume`); a slider at 0
    mutes, above 0 unmutes, as gnome-shell's volume slider does."""
    volume = max(0, min(max_volume(fs), round(fraction * NORM)))
    set_sink(fs, volume, volume == 0)


def media_key(fs: FileSystem, key: str) -> bool:
    """Apply media ``key`` (``volumeup``, ``volumedown``, ``volumemute``); False for any
    other key. The volume changes even where nothing on screen has focus (a global grab)."""
    if key not in MEDIA_KEYS:
        return False
    old, muted = level(fs)
    setting = SettingsStore(fs).get(*_STEP)
    step = NORM * (setting if isinstance(setting, int) else 6) // 100
    new, new_muted = old, muted
    if key == "volumemute":
        new_muted = not muted
    elif key == "volumedown":
        if old <= step:
            new, new_muted = 0, True
        else:
            new = old - step
    else:
        new_muted = False
        if not muted or old == 0:
            new = min(old + step, max_volume(fs))
    if (new, new_muted) != (old, muted):
        set_sink(fs, new, new_muted)
    return True


@dataclass(frozen=True)
class Osd:
    """The volume OSD: shown at ``since`` (desktop clock seconds) for `OSD_SECONDS`."""

    since: float

    def showing(self, clock: float) -> bool:
        return clock < self.since + OSD_SECONDS
