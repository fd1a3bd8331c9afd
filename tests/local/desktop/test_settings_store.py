"""The desktop's GNOME settings store: Ubuntu 22.04's defaults as gsettings prints them,
typed values parsed (never evaluated), errors as gsettings gives them, and the state lives
in the desktop (a clone copies it, the original is untouched)."""

from __future__ import annotations

import pytest

from drums_gym.local.desktop import Desktop
from drums_gym.local.desktop.settings_store import (
    DB_PATH,
    SettingsError,
    SettingsStore,
    format_value,
    parse_value,
)
from drums_gym.local.tasks.shell import run_command

UBUNTU_FAVORITES = ("['firefox_firefox.desktop', 'thunderbird.desktop', "
                    "'org.gnome.Nautilus.desktop', 'rhythmbox.desktop', "
                    "'libreoffice-writer.desktop', 'snap-store_ubuntu-software.desktop', "
                    "'yelp.desktop']")
#: a fresh desktop's dock: Ubuntu's favourites with the Terminal where Rhythmbox is (the
#: simulator's dock keeps the Terminal one click away); ``gsettings reset`` gives Ubuntu's
FRESH_FAVORITES = UBUNTU_FAVORITES.replace("'rhythmbox.desktop'", "'org.gnome.Terminal.desktop'")


def sh(d: Desktop, line: str) -> tuple[str, str, int]:
    r = run_command(d, line)
    return r.stdout, r.stderr, r.status


@pytest.mark.parametrize(("schema", "key", "printed"), [
    ("org.gnome.desktop.session", "idle-delay", "uint32 300"),
    ("org.gnome.desktop.notifications", "show-banners", "true"),
    ("org.gnome.desktop.interface", "text-scaling-factor", "1.0"),
    ("org.gnome.desktop.interface", "color-scheme", "'default'"),
    ("org.gnome.desktop.interface", "cursor-size", "24"),
    ("org.gnome.shell", "favorite-apps", FRESH_FAVORITES),
    ("org.gnome.desktop.notifications", "application-children", "@as []"),
    # OSWorld's image has its screen lock off (the schema's default is true)
    ("org.gnome.desktop.screensaver", "lock-enabled", "false"),
])
def test_a_fresh_desktop_prints_ubuntus_values(schema: str, key: str, printed: str) -> None:
    assert sh(Desktop(), f"gsettings get {schema} {key}") == (printed + "\n", "", 0)


def test_set_get_reset_round_trip_each_type() -> None:
    d = Desktop()
    for schema, key, given, printed in [
        ("org.gnome.desktop.session", "idle-delay", "0", "uint32 0"),
        ("org.gnome.desktop.session", "idle-delay", "uint32 900", "uint32 900"),
        ("org.gnome.desktop.notifications", "show-banners", "false", "false"),
        ("org.gnome.desktop.interface", "text-scaling-factor", "1.25", "1.25"),
        ("org.gnome.desktop.interface", "text-scaling-factor", "2", "2.0"),
        ("org.gnome.desktop.interface", "text-scaling-factor", "1.1", "1.1000000000000001"),
        ("org.gnome.desktop.interface", "gtk-theme", "Yaru-dark", "'Yaru-dark'"),  # unquoted
        ("org.gnome.desktop.interface", "gtk-theme", "\"it's\"", "\"it's\""),
        ("org.gnome.shell", "favorite-apps", "['a.desktop','b.desktop']",
         "['a.desktop', 'b.desktop']"),
        ("org.gnome.shell", "favorite-apps", "[]", "@as []"),
    ]:
        assert sh(d, f"gsettings set {schema} {key} {_q(given)}") == ("", "", 0), given
        assert sh(d, f"gsettings get {schema} {key}")[0] == printed + "\n", given
    assert sh(d, "gsettings reset org.gnome.desktop.session idle-delay")[2] == 0
    assert sh(d, "gsettings get org.gnome.desktop.session idle-delay")[0] == "uint32 300\n"
    assert sh(d, "gsettings reset org.gnome.desktop.screensaver lock-enabled")[2] == 0
    assert sh(d, "gsettings get org.gnome.desktop.screensaver lock-enabled")[0] == "true\n"


def _q(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


@pytest.mark.parametrize(("line", "message"), [
    ("gsettings get org.gnome.nope x", "No such schema “org.gnome.nope”"),
    ("gsettings get org.gnome.desktop.session nope", "No such key “nope”"),
    ("gsettings set org.gnome.desktop.session idle-delay true",
     "0-4:can not parse as value of type 'u'"),
    ("gsettings set org.gnome.desktop.session idle-delay -1",
     "0-2:number out of range for type 'u'"),
    ("gsettings set org.gnome.desktop.notifications show-banners yes", "0-3:unknown keyword"),
    ("gsettings set org.gnome.desktop.interface text-scaling-factor 9",
     "The provided value is outside of the valid range"),
    ("gsettings set org.gnome.desktop.interface color-scheme dark",
     "The provided value is outside of the valid range"),
    ("gsettings set org.gnome.shell favorite-apps \"['a.desktop'\"",
     "expected ',' or ']' to follow array element"),
    ("gsettings set org.gnome.shell favorite-apps \"__import__('os')\"",
     "can not parse as value of type 'as'"),
    ("gsettings list-keys org.gnome.Terminal.Legacy.Profile",
     "Schema “org.gnome.Terminal.Legacy.Profile” is relocatable (path must be specified)"),
])
def test_bad_input_is_refused_with_gsettings_message(line: str, message: str) -> None:
    d = Desktop()
    out, err, status = sh(d, line)
    assert status == 1 and out == "" and message in err, err
    assert not d.fs.exists(DB_PATH)  # nothing was written


def test_list_keys_range_and_dconf() -> None:
    d = Desktop()
    keys = sh(d, "gsettings list-keys org.gnome.desktop.notifications")[0].split()
    assert {"show-banners", "show-in-lock-screen"} <= set(keys)
    assert sh(d, "gsettings range org.gnome.desktop.interface text-scaling-factor")[0] == \
        "range d 0.5 3.0\n"
    assert sh(d, "gsettings range org.gnome.desktop.session idle-delay")[0] == "type u\n"
    assert sh(d, "dconf read /org/gnome/desktop/session/idle-delay") == ("", "", 0)
    assert sh(d, "dconf write /org/gnome/desktop/session/idle-delay 'uint32 0'")[2] == 0
    assert sh(d, "dconf read /org/gnome/desktop/session/idle-delay")[0] == "uint32 0\n"
    assert sh(d, "gsettings get org.gnome.desktop.session idle-delay")[0] == "uint32 0\n"
    assert "[org/gnome/desktop/session]\nidle-delay=uint32 0" in sh(d, "dconf dump /")[0]


def test_the_state_is_the_desktops_and_a_clone_copies_it() -> None:
    d = Desktop()
    sh(d, "gsettings set org.gnome.desktop.notifications show-banners false")
    fork = d.clone()
    assert sh(fork, "gsettings get org.gnome.desktop.notifications show-banners")[0] == \
        "false\n"
    sh(fork, "gsettings set org.gnome.desktop.notifications show-banners true")
    assert sh(d, "gsettings get org.gnome.desktop.notifications show-banners")[0] == "false\n"
    assert SettingsStore(Desktop().fs).get("org.gnome.desktop.notifications",
                                           "show-banners") is True


def test_a_damaged_database_line_reads_as_the_default() -> None:
    d = Desktop()
    sh(d, "gsettings set org.gnome.desktop.session idle-delay 7")
    text = d.fs.read_file(DB_PATH).decode().replace("uint32 7", "uint32 banana")
    d.fs.write_file(DB_PATH, text)
    assert sh(d, "gsettings get org.gnome.desktop.session idle-delay")[0] == "uint32 300\n"


def test_values_parse_and_print_without_evaluation() -> None:
    assert parse_value("as", "['a', \"b's\", 'c\\\\d']") == ["a", "b's", "c\\d"]
    assert parse_value("as", "@as []") == []
    assert parse_value("d", "1e-1") == 0.1
    assert format_value("as", ["it's"]) == '["it\'s"]'
    assert format_value("s", "a'b\"c") == "'a\\'b\"c'"
    for bad in ("1+1", "[1]", "('a',)", "true if x else false"):
        with pytest.raises(SettingsError):
            parse_value("as" if bad.startswith(("[", "(")) else "u", bad)


def test_sudo_gsettings_changes_roots_settings_and_loses_the_change() -> None:
    d = Desktop()
    out, err, status = sh(d, "sudo gsettings set org.gnome.desktop.session idle-delay 0")
    assert status == 0 and "failed to commit changes to dconf" in err
    assert sh(d, "gsettings get org.gnome.desktop.session idle-delay")[0] == "uint32 300\n"
    assert sh(d, "sudo gsettings get org.gnome.desktop.screensaver lock-enabled")[0] == \
        "true\n"  # root's settings: the schema's default, not the user's


def test_resetting_the_favourites_gives_ubuntus_list() -> None:
    d = Desktop()
    assert sh(d, "gsettings reset org.gnome.shell favorite-apps")[2] == 0
    assert sh(d, "gsettings get org.gnome.shell favorite-apps")[0] == UBUNTU_FAVORITES + "\n"
