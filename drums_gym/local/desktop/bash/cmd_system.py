"""System tools of Ubuntu 22.04: ``timedatectl``, ``pactl``/``pulseaudio``/``amixer``,
``apt``/``apt-get``/``snap`` (for the packages in `PACKAGES`), ``stty``, ``xdg-open``.

Their state lives in the simulated filesystem, where Ubuntu keeps it, so it is part of the
desktop (clones copy it): the time zone in ``/etc/timezone``, the default sink's volume in
``~/.config/pulse/default-sink`` (PulseAudio's own database is binary; this is one line
``volume mute``), installed programs as files in ``/usr/bin`` or ``/snap/bin`` (``which``
finds them). Changing the system needs root (``sudo``), as it does on Ubuntu.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo

from ..fs import HOME, FileSystem
from .context import Ctx
from .registry import Args, Opts, command

__all__ = ["IMAGE_TIMEZONE", "OPEN_REQUESTS", "PACKAGES", "SINK_FILE", "TIMEZONE_FILE", "Package",
           "sink_volume", "timezone_name"]

TIMEZONE_FILE = "/etc/timezone"
#: The zone of a fresh desktop (OSWorld's image is not in UTC; its zone is not published).
IMAGE_TIMEZONE = "America/New_York"
SINK_FILE = HOME + "/.config/pulse/default-sink"
#: What ``xdg-open`` asks the session to open, one path or URI a line (the desktop opens
#: each and removes the file).
OPEN_REQUESTS = "/run/user/1000/drums/xdg-open"
_FULL = 65536  # PulseAudio's PA_VOLUME_NORM (100%)
IMAGE_VOLUME = 26214  # 40%: the image's default sink volume
_MAX_VOLUME = _FULL * 3 // 2  # pactl refuses nothing below; GNOME allows up to 150%

# Winter offsets (hours) of common zones, for machines without the tz database.
_FALLBACK_ZONES = {
    "Etc/UTC": (0, "UTC"), "UTC": (0, "UTC"), "Etc/GMT": (0, "GMT"), "GMT": (0, "GMT"),
    "Europe/London": (0, "GMT"), "Europe/Berlin": (1, "CET"), "Europe/Paris": (1, "CET"),
    "America/New_York": (-5, "EST"), "America/Chicago": (-6, "CST"),
    "America/Denver": (-7, "MST"), "America/Los_Angeles": (-8, "PST"),
    "Asia/Shanghai": (8, "CST"), "Asia/Hong_Kong": (8, "HKT"), "Asia/Tokyo": (9, "JST"),
    "Asia/Kolkata": (5.5, "IST"), "Australia/Sydney": (11, "AEDT"),
}


def _zone(name: str) -> tzinfo | None:
    try:
        import zoneinfo
        return zoneinfo.ZoneInfo(name)
    except (ImportError, ValueError, OSError, KeyError):
        pass
    found = _FALLBACK_ZONES.get(name)
    if found is None:
        return None
    return timezone(timedelta(hours=found[0]), found[1])


def _zone_names() -> list[str]:
    try:
        import zoneinfo
        names = zoneinfo.available_timezones()
    except (ImportError, OSError):
        names = set()
    return sorted(names | set(_FALLBACK_ZONES))


def timezone_name(fs: FileSystem) -> str:
    """The system's time zone (``/etc/timezone``, else the image's)."""
    if fs.is_file(TIMEZONE_FILE):
        name = fs.read_file(TIMEZONE_FILE).decode(errors="replace").strip()
        if name and _zone(name) is not None:
            return name
    return IMAGE_TIMEZONE


def _need_root(ctx: Ctx, what: str) -> bool:
    if ctx.root:
        return True
    ctx.err(f"Failed to {what}: Interactive authentication required.")
    return False


@command("timedatectl", opts=Opts("hHMpa", {
    "help": "h", "version": "", "no-pager": "", "no-ask-password": "", "host": "H",
    "machine": "M", "adjust-system-clock": "", "monotonic": "", "property": "p", "all": "a",
    "value": ""}, with_value="HMp", usage=""))
def timedatectl(ctx: Ctx, a: Args) -> int:
    words = a.operands
    verb = words[0] if words else "status"
    if verb == "status":
        name = timezone_name(ctx.fs)
        zone = _zone(name) or timezone.utc
        now = datetime.fromtimestamp(ctx.fs.clock.now(), tz=timezone.utc)
        local = now.astimezone(zone)
        offset = local.strftime("%z")
        rows = [("Local time", local.strftime("%a %Y-%m-%d %H:%M:%S ") + (local.tzname() or "")),
                ("Universal time", now.strftime("%a %Y-%m-%d %H:%M:%S UTC")),
                ("RTC time", now.strftime("%a %Y-%m-%d %H:%M:%S")),
                ("Time zone", f"{name} ({local.tzname()}, {offset})"),
                ("System clock synchronized", "yes"), ("NTP service", "active"),
                ("RTC in local TZ", "no")]
        ctx.out("".join(f"{k:>25}: {v}\n" for k, v in rows))
        return 0
    if verb == "list-timezones":
        ctx.out("".join(f"{z}\n" for z in _zone_names() if "/" in z or z == "UTC"))
        return 0
    if verb == "set-timezone":
        if len(words) != 2:
            ctx.err("Too few arguments." if len(words) < 2 else "Too many arguments.")
            return 1
        if _zone(words[1]) is None or words[1].startswith("/") or ".." in words[1]:
            ctx.err(f"Failed to set time zone: Invalid or not installed time zone "
                    f"'{words[1]}'")
            return 1
        if not _need_root(ctx, "set time zone"):
            return 1
        if not ctx.fs.is_dir("/etc"):
            ctx.fs.mkdir("/etc", mode=0o755)
        ctx.fs.write_file(TIMEZONE_FILE, words[1] + "\n", mode=0o644)
        return 0
    if verb in ("set-time", "set-local-rtc", "set-ntp"):
        return 0 if _need_root(ctx, verb.replace("-", " ")) else 1
    ctx.err(f"Unknown command verb {verb}.")
    return 1


# -- sound -----------------------------------------------------------------------------

def sink_volume(fs: FileSystem) -> tuple[int, bool]:
    """The default sink's (volume, muted): PulseAudio units, 65536 is 100%."""
    if fs.is_file(SINK_FILE):
        parts = fs.read_file(SINK_FILE).decode(errors="replace").split()
        if len(parts) == 2 and parts[0].isdecimal():
            return min(int(parts[0]), _MAX_VOLUME * 2), parts[1] == "yes"
    return IMAGE_VOLUME, False


def _set_sink(fs: FileSystem, volume: int, muted: bool) -> None:
    parent = SINK_FILE.rsplit("/", 1)[0]
    if not fs.is_dir(parent):
        fs.mkdir(parent, parents=True)
    fs.write_file(SINK_FILE, f"{volume} {'yes' if muted else 'no'}\n")


def _percent(v: int) -> int:
    return round(v * 100 / _FULL)


def _db(v: int) -> str:
    if v == 0:
        return "-inf dB"
    return f"{60 * math.log10(v / _FULL):.2f} dB"


def _volume_line(v: int) -> str:
    one = f"{v} / {_percent(v):>3}% / {_db(v)}"
    return f"front-left: {one},   front-right: {one}"


_SINK = "alsa_output.pci-0000_02_02.0.analog-stereo"
_DESC = "ES1371/ES1373 / Creative Labs CT2518 (Audio PCI 64V/128/5200) Analog Stereo"


def _sink_listing(v: int, muted: bool) -> str:
    return (f"Sink #0\n\tState: SUSPENDED\n\tName: {_SINK}\n\tDescription: {_DESC}\n"
            "\tDriver: module-alsa-card.c\n\tSample Specification: s16le 2ch 44100Hz\n"
            "\tChannel Map: front-left,front-right\n\tOwner Module: 7\n"
            f"\tMute: {'yes' if muted else 'no'}\n\tVolume: {_volume_line(v)}\n"
            "\t        balance 0.00\n\tBase Volume: 65536 / 100% / 0.00 dB\n"
            f"\tMonitor Source: {_SINK}.monitor\n\tLatency: 0 usec, configured 0 usec\n"
            "\tFlags: HARDWARE HW_MUTE_CTRL HW_VOLUME_CTRL DECIBEL_VOLUME LATENCY \n"
            "\tProperties:\n\t\talsa.resolution_bits = \"16\"\n\t\tdevice.api = \"alsa\"\n"
            "\t\tdevice.class = \"sound\"\n\t\tdevice.description = \"" + _DESC + "\"\n"
            "\tPorts:\n\t\tanalog-output: Analog Output (type: Analog, priority: 9900, "
            "availability unknown)\n\tActive Port: analog-output\n\tFormats:\n\t\tpcm\n")


def _parse_volume(text: str, old: int) -> int | None:
    """pactl's VOLUME: ``75%``, ``+5%``, ``-5%``, ``0.5`` (linear), ``32768`` (raw), ``-6dB``."""
    sign = text[0] if text[:1] in "+-" else ""
    body = text[1:] if sign else text
    try:
        if body.endswith("%"):
            value = round(float(body[:-1]) * _FULL / 100)
        elif body.lower().endswith("db"):
            value = round(_FULL * 10 ** (float(body[:-2]) / 60))
            sign = ""
        elif "." in body:
            value = round(float(body) ** (1 / 3) * _FULL)
        else:
            value = int(body)
    except (ValueError, OverflowError):
        return None
    if value < 0:
        return None
    new = old + value if sign == "+" else old - value if sign == "-" else value
    return max(0, min(new, 2**31))


_SINK_NAMES = ("@DEFAULT_SINK@", "0", _SINK)


@command("pactl")
def pactl(ctx: Ctx, args: list[str]) -> int:
    v, muted = sink_volume(ctx.fs)
    words = [a for a in args if a != "--"]
    if words[:2] in (["list", "sinks"], ["list"]):
        ctx.out(_sink_listing(v, muted))
        return 0
    if words[:3] == ["list", "short", "sinks"] or words[:2] == ["list", "short"]:
        ctx.out(f"0\t{_SINK}\tmodule-alsa-card.c\ts16le 2ch 44100Hz\tSUSPENDED\n")
        return 0
    if words[:1] == ["get-default-sink"]:
        ctx.out(_SINK + "\n")
        return 0
    if words[:1] == ["get-sink-volume"] and len(words) == 2:
        if words[1] not in _SINK_NAMES:
            ctx.err("Failed to get sink information: No such entity")
            return 1
        ctx.out(f"Volume: {_volume_line(v)}\n        balance 0.00\n")
        return 0
    if words[:1] == ["get-sink-mute"] and len(words) == 2:
        ctx.out(f"Mute: {'yes' if muted else 'no'}\n")
        return 0
    if words[:1] in (["set-sink-volume"], ["set-sink-mute"]):
        if len(words) != 3:
            ctx.err(f"You have to specify a sink name/index and a "
                    f"{'volume' if words[0] == 'set-sink-volume' else 'mute action'}")
            return 1
        if words[1] not in _SINK_NAMES:
            ctx.err("Failure: No such entity")
            return 1
        if words[0] == "set-sink-mute":
            choice = {"1": True, "yes": True, "true": True, "on": True, "0": False,
                      "no": False, "false": False, "off": False, "toggle": not muted}
            if words[2] not in choice:
                ctx.err("Invalid mute specification")
                return 1
            _set_sink(ctx.fs, v, choice[words[2]])
            return 0
        new = _parse_volume(words[2], v)
        if new is None:
            ctx.err("Invalid volume specification")
            return 1
        _set_sink(ctx.fs, new, muted)
        return 0
    if words[:1] == ["info"]:
        ctx.out(f"Server String: /run/user/1000/pulse/native\nLibrary Protocol Version: 35\n"
                f"Server Protocol Version: 35\nIs Local: yes\nClient Index: 12\n"
                f"Tile Size: 65472\nUser Name: user\nHost Name: ubuntu\n"
                f"Server Name: pulseaudio\nServer Version: 15.99.1\n"
                f"Default Sample Specification: s16le 2ch 44100Hz\n"
                f"Default Channel Map: front-left,front-right\nDefault Sink: {_SINK}\n"
                f"Default Source: {_SINK}.monitor\nCookie: 1a2b:3c4d\n")
        return 0
    ctx.err("No valid command specified." if not words else
            f"Specify a valid command: {words[0]} is not one pactl knows here.")
    return 1


@command("pulseaudio")
def pulseaudio(ctx: Ctx, args: list[str]) -> int:
    if "--check" in args or "--start" in args:
        return 0  # the daemon is running
    if "-k" in args or "--kill" in args:
        return 0
    ctx.err("E: [pulseaudio] pid.c: Daemon already running.\n"
            "E: [pulseaudio] main.c: pa_pid_file_create() failed.")
    return 1


@command("amixer")
def amixer(ctx: Ctx, args: list[str]) -> int:
    words = [a for k, a in enumerate(args) if not a.startswith("-")
             and not (k and args[k - 1] in ("-D", "-c"))]
    v, muted = sink_volume(ctx.fs)
    if len(words) >= 3 and words[0] in ("set", "sset") and words[1] == "Master":
        spec = words[2]
        if spec in ("mute", "unmute", "toggle"):
            muted = (spec == "mute") if spec != "toggle" else not muted
        else:
            sign = spec[-1] if spec[-1:] in "+-" else ""
            new = _parse_volume(sign + spec[:-1] if sign else spec, v)
            if new is None:
                ctx.err("amixer: Invalid command!")
                return 1
            v = new
        _set_sink(ctx.fs, v, muted)
    elif words and not (len(words) >= 2 and words[0] in ("get", "sget")
                        and words[1] == "Master"):
        ctx.err("amixer: Unknown command " + repr(words[0]))
        return 1
    state = "off" if muted else "on"
    ctx.out("Simple mixer control 'Master',0\n  Capabilities: pvolume pswitch pswitch-joined\n"
            "  Playback channels: Front Left - Front Right\n  Limits: Playback 0 - 65536\n"
            "  Mono:\n"
            f"  Front Left: Playback {v} [{_percent(v)}%] [{state}]\n"
            f"  Front Right: Playback {v} [{_percent(v)}%] [{state}]\n")
    return 0


# -- packages --------------------------------------------------------------------------

@dataclass(frozen=True)
class Package:
    """A package the simulated archive (apt) or store (snap) has, and what it installs."""

    name: str
    via: str  # "apt" or "snap"
    programs: tuple[str, ...]
    version: str
    publisher: str = ""


#: The packages ``apt``/``snap`` can install here (others are not found, as without a
#: network mirror that has them).
PACKAGES: dict[tuple[str, str], Package] = {(p.via, p.name): p for p in (
    Package("spotify", "snap", ("/snap/bin/spotify",), "1.2.31.1205.g4d59ad7c", "Spotify✓"),
    Package("vlc", "snap", ("/snap/bin/vlc",), "3.0.20", "VideoLAN✓"),
    Package("code", "snap", ("/snap/bin/code",), "1.85.1", "Visual Studio Code (vscode✓)"),
    Package("expect", "apt", ("/usr/bin/expect",), "5.45.4-2build1"),
    Package("python-is-python3", "apt", ("/usr/bin/python",), "3.9.2-2"),
    Package("vim", "apt", ("/usr/bin/vim",), "2:8.2.3995-1ubuntu2.15"),
    Package("curl", "apt", ("/usr/bin/curl",), "7.81.0-1ubuntu1.15"),
    Package("tree", "apt", ("/usr/bin/tree",), "2.0.2-1"),
    Package("htop", "apt", ("/usr/bin/htop",), "3.0.5-7build2"),
    Package("gnome-mahjongg", "apt", ("/usr/games/gnome-mahjongg",), "1:3.38.3-2"),
)}


def _install(fs: FileSystem, pkg: Package) -> None:
    for path in pkg.programs:
        parent = path.rsplit("/", 1)[0]
        if not fs.is_dir(parent):
            fs.mkdir(parent, parents=True, mode=0o755)
        fs.write_file(path, f"#!/bin/sh\n# {pkg.name} {pkg.version} (simulated)\n"
                            f"echo \"{path.rsplit('/', 1)[1]}: cannot open display\" >&2\n"
                            "exit 1\n", mode=0o755)


def _uninstall(fs: FileSystem, pkg: Package) -> None:
    for path in pkg.programs:
        if fs.is_file(path):
            fs.remove(path)


def installed(fs: FileSystem, pkg: Package) -> bool:
    return all(fs.is_file(p) for p in pkg.programs)


@command("snap")
def snap(ctx: Ctx, args: list[str]) -> int:
    words = [a for a in args if not a.startswith("-")]
    if words[:1] == ["install"] and len(words) > 1:
        if not ctx.root:
            ctx.err("error: access denied (try with sudo)")
            return 1
        for name in words[1:]:
            pkg = PACKAGES.get(("snap", name))
            if pkg is None:
                ctx.err(f"error: snap \"{name}\" not found")
                return 1
            if installed(ctx.fs, pkg):
                ctx.out(f"snap \"{name}\" is already installed, see 'snap help refresh'\n")
                continue
            _install(ctx.fs, pkg)
            ctx.out(f"{name} {pkg.version} from {pkg.publisher} installed\n")
        return 0
    if words[:1] == ["remove"] and len(words) > 1:
        if not ctx.root:
            ctx.err("error: access denied (try with sudo)")
            return 1
        for name in words[1:]:
            pkg = PACKAGES.get(("snap", name))
            if pkg is None or not installed(ctx.fs, pkg):
                ctx.out(f"snap \"{name}\" is not installed\n")
                continue
            _uninstall(ctx.fs, pkg)
            ctx.out(f"{name} removed\n")
        return 0
    if words[:1] == ["list"]:
        ctx.out("Name      Version    Rev    Tracking       Publisher   Notes\n")
        for (via, name), pkg in PACKAGES.items():
            if via == "snap" and installed(ctx.fs, pkg):
                ctx.out(f"{name:<9} {pkg.version[:10]:<10} 1      latest/stable  "
                        f"{pkg.publisher:<11} -\n")
        return 0
    ctx.err(f"error: unknown command \"{words[0]}\", see 'snap help'." if words else
            "error: missing command, see 'snap help'.")
    return 1


def _apt(ctx: Ctx, args: list[str], prog: str) -> int:
    words = [a for a in args if not a.startswith("-")]
    verb = words[0] if words else ""
    if verb in ("install", "remove", "purge", "update", "upgrade") and not ctx.root:
        ctx.err("E: Could not open lock file /var/lib/dpkg/lock-frontend - open (13: "
                "Permission denied)\nE: Unable to acquire the dpkg frontend lock "
                "(/var/lib/dpkg/lock-frontend), are you root?")
        return 100
    if verb == "update":
        ctx.out("Hit:1 http://archive.ubuntu.com/ubuntu jammy InRelease\n"
                "Reading package lists... Done\n")
        return 0
    if verb == "install":
        names = words[1:]
        ctx.out("Reading package lists... Done\nBuilding dependency tree... Done\n"
                "Reading state information... Done\n")
        pkgs = []
        for name in names:
            pkg = PACKAGES.get(("apt", name))
            if pkg is None:
                ctx.err(f"E: Unable to locate package {name}")
                return 100
            pkgs.append(pkg)
        for pkg in pkgs:
            if installed(ctx.fs, pkg):
                ctx.out(f"{pkg.name} is already the newest version ({pkg.version}).\n")
                continue
            _install(ctx.fs, pkg)
            ctx.out(f"Setting up {pkg.name} ({pkg.version}) ...\n")
        return 0
    if verb in ("remove", "purge"):
        for name in words[1:]:
            pkg = PACKAGES.get(("apt", name))
            if pkg is None:
                ctx.err(f"E: Unable to locate package {name}")
                return 100
            if not installed(ctx.fs, pkg):
                ctx.out(f"Package '{name}' is not installed, so not removed\n")
                continue
            _uninstall(ctx.fs, pkg)
            ctx.out(f"Removing {name} ({pkg.version}) ...\n")
        return 0
    if verb in ("search", "show", "list"):
        pattern = words[1] if len(words) > 1 else ""
        found = [p for (via, _), p in PACKAGES.items() if via == "apt" and pattern in p.name
                 and (verb != "list" or "--installed" not in args or installed(ctx.fs, p))]
        if verb == "show":
            found = [p for p in found if p.name == pattern]
            if not found:
                ctx.err("E: No packages found")
                return 100
        ctx.out("Sorting... Done\nFull Text Search... Done\n" if verb == "search" else
                "Listing... Done\n" if verb == "list" else "")
        for p in found:
            ctx.out(f"Package: {p.name}\nVersion: {p.version}\n\n" if verb == "show" else
                    f"{p.name}/jammy {p.version} amd64"
                    f"{' [installed]' if installed(ctx.fs, p) else ''}\n")
        return 0
    if verb == "upgrade":
        ctx.out("0 upgraded, 0 newly installed, 0 to remove and 0 not upgraded.\n")
        return 0
    if not verb:
        ctx.out(f"{prog} 2.4.11 (amd64)\nUsage: {prog} [options] command\n")
        return 1
    ctx.err(f"E: Invalid operation {verb}")
    return 100


@command("apt")
def apt(ctx: Ctx, args: list[str]) -> int:
    return _apt(ctx, args, "apt")


@command("apt-get")
def apt_get(ctx: Ctx, args: list[str]) -> int:
    return _apt(ctx, args, "apt-get")


# -- the terminal ------------------------------------------------------------------------

@command("stty")
def stty(ctx: Ctx, args: list[str]) -> int:
    if not ctx.io.tty:
        ctx.err("stty: 'standard input': Inappropriate ioctl for device")
        return 1
    rows, cols = getattr(ctx.state, "rows", 24), ctx.state.columns
    if args == ["size"]:
        ctx.out(f"{rows} {cols}\n")
        return 0
    if not args or args in (["-a"], ["--all"]):
        ctx.out(f"speed 38400 baud; rows {rows}; columns {cols}; line = 0;\n")
        return 0
    return 0  # settings (``stty sane``, ``stty cols 132``) change nothing drawn here


@command("xdg-open")
def xdg_open(ctx: Ctx, args: list[str]) -> int:
    if len(args) != 1:
        ctx.err("xdg-open: unexpected argument" if args else
                "xdg-open: file argument missing\nTry 'xdg-open --help' for more information.")
        return 1
    target = args[0]
    if "://" not in target and not ctx.fs.exists(ctx.path(target)):
        ctx.err(f'gio: file://{ctx.path(target)}: Error when getting information for file '
                f'“{ctx.path(target)}”: No such file or directory')
        return 4
    # the session opens it (the desktop reads OPEN_REQUESTS: Desktop.open_requested)
    line = (target if "://" in target else ctx.path(target)) + "\n"
    old = ctx.fs.read_file(OPEN_REQUESTS) if ctx.fs.is_file(OPEN_REQUESTS) else b""
    if not ctx.fs.is_dir(OPEN_REQUESTS.rsplit("/", 1)[0]):
        ctx.fs.mkdir(OPEN_REQUESTS.rsplit("/", 1)[0], parents=True)
    ctx.fs.write_file(OPEN_REQUESTS, old + line.encode())
    return 0
