"""The desktop's own ``/etc``: Ubuntu 22.04's accounts and host name, plus the pieces of the
machine's ``/etc`` that programs need to run (loader cache, PAM, alternatives, terminfo...).

Nothing of the machine's accounts is copied: ``passwd``, ``group``, ``shadow`` and
``gshadow`` are written here with root and ``user`` (uid 1000, password ``password``, in
``sudo``), so a desktop never shows the machine's users or hashes.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable

__all__ = ["COPIED", "USER_GID", "USER_UID", "set_timezone", "write_etc"]

USER_UID = 1000
USER_GID = 1000
#: machine /etc entries a program may need (copied when present; symlinks kept)
COPIED: tuple[str, ...] = (
    "alternatives", "bash.bashrc", "bash_completion", "bash_completion.d", "profile",
    "profile.d", "inputrc", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "nsswitch.conf",
    "pam.d", "pam.conf", "security", "login.defs", "default", "skel", "shells",
    "environment", "mime.types", "ssl", "ca-certificates", "vim", "nanorc", "terminfo",
    "magic", "magic.mime", "locale.alias", "locale.gen", "gai.conf", "host.conf",
    "protocols", "services", "networks", "adduser.conf", "deluser.conf", "libaudit.conf",
    "python3", "python3.11", "perl", "X11", "fonts", "gtk-3.0", "dconf", "gnutls",
    "opt", "xdg", "mke2fs.conf", "debconf.conf", "dpkg", "apt", "lsb-release",
    "issue", "issue.net", "debian_version", "timezone", "rmt", "mtab",
)
# uid 1000's hash of "password" (sha512-crypt), fixed so desktops are byte-identical
_HASH = ("$6$drumsgym$hxKhECuTsh.hSMh29pOxkWx07u2imAuimi/pcmw58hdY40arFG83nJ4NiJ."
         "wgJtgdmq7CUh/yCTa8v8Kx8EVL0")
_SYSTEM = (("root", 0, 0, "root", "/root", "/bin/bash"),
           ("daemon", 1, 1, "daemon", "/usr/sbin", "/usr/sbin/nologin"),
           ("bin", 2, 2, "bin", "/bin", "/usr/sbin/nologin"),
           ("sys", 3, 3, "sys", "/dev", "/usr/sbin/nologin"),
           ("sync", 4, 65534, "sync", "/bin", "/bin/sync"),
           ("games", 5, 60, "games", "/usr/games", "/usr/sbin/nologin"),
           ("man", 6, 12, "man", "/var/cache/man", "/usr/sbin/nologin"),
           ("lp", 7, 7, "lp", "/var/spool/lpd", "/usr/sbin/nologin"),
           ("mail", 8, 8, "mail", "/var/mail", "/usr/sbin/nologin"),
           ("news", 9, 9, "news", "/var/spool/news", "/usr/sbin/nologin"),
           ("www-data", 33, 33, "www-data", "/var/www", "/usr/sbin/nologin"),
           ("nobody", 65534, 65534, "nobody", "/nonexistent", "/usr/sbin/nologin"),
           ("user", USER_UID, USER_GID, "user,,,", "/home/user", "/bin/bash"))
_GROUPS = (("root", 0, ""), ("daemon", 1, ""), ("bin", 2, ""), ("sys", 3, ""),
           ("adm", 4, "user"), ("tty", 5, ""), ("disk", 6, ""), ("lp", 7, ""), ("mail", 8, ""),
           ("news", 9, ""), ("man", 12, ""), ("cdrom", 24, "user"), ("sudo", 27, "user"),
           ("audio", 29, ""), ("www-data", 33, ""), ("shadow", 42, ""), ("utmp", 43, ""),
           ("video", 44, ""), ("plugdev", 46, "user"), ("staff", 50, ""), ("games", 60, ""),
           ("users", 100, ""), ("nogroup", 65534, ""), ("lpadmin", 120, "user"),
           ("user", USER_GID, ""))
_OS_RELEASE = """PRETTY_NAME="Ubuntu 22.04.3 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.3 LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
UBUNTU_CODENAME=jammy
"""
_SUDOERS = """# Read by the drums sudo shim: members of group sudo may run any command.
Defaults\tenv_reset
Defaults\tsecure_path="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
root\tALL=(ALL:ALL) ALL
%sudo\tALL=(ALL:ALL) ALL
"""


def _write(path: str, text: str, mode: int = 0o644, gid: int = 0) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, mode)
    os.chown(path, 0, gid)


def _copy_entries(src: str, dst: str, names: Iterable[str]) -> None:
    for name in names:
        s, d = os.path.join(src, name), os.path.join(dst, name)
        if os.path.lexists(d) or not os.path.lexists(s):
            continue
        try:
            if os.path.islink(s):
                os.symlink(os.readlink(s), d)
            elif os.path.isdir(s):
                shutil.copytree(s, d, symlinks=True)
            elif os.path.isfile(s):
                shutil.copy2(s, d)
        except OSError:
            continue  # an unreadable machine file is left out, never an error


def _ubuntu_login_defs(path: str) -> None:
    """Ubuntu 22.04's ``ENCRYPT_METHOD SHA512`` (chpasswd, newusers), whatever the machine's
    distribution chose (Debian 12 says YESCRYPT)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    lines = [ln for ln in lines if not ln.strip().startswith("ENCRYPT_METHOD")]
    _write(path, "\n".join([*lines, "ENCRYPT_METHOD SHA512"]) + "\n")


def _sha512_passwords(path: str) -> None:
    """New passwords (passwd, chpasswd through PAM) hashed SHA-512 (``$6$``), not yescrypt:
    the os tasks' reconstructed check_password.sh compares ``openssl passwd -6`` hashes
    (docs/terminal.md lists this difference from Ubuntu 22.04)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return
    _write(path, text.replace(" yescrypt", " sha512"))


def write_etc(etc: str, hostname: str = "ubuntu", timezone: str = "Etc/UTC",
              machine_etc: str = "/etc") -> None:
    """Fill the empty directory ``etc`` with a desktop's /etc."""
    _copy_entries(machine_etc, etc, COPIED)
    _ubuntu_login_defs(os.path.join(etc, "login.defs"))
    _sha512_passwords(os.path.join(etc, "pam.d", "common-password"))
    passwd = "".join(f"{n}:x:{u}:{g}:{gecos}:{home}:{sh}\n" for n, u, g, gecos, home, sh in _SYSTEM)
    shadow = "".join(f"{n}:{_HASH if n == 'user' else '*'}:19700:0:99999:7:::\n"
                     for n, *_ in _SYSTEM)
    _write(os.path.join(etc, "passwd"), passwd)
    _write(os.path.join(etc, "group"), "".join(f"{n}:x:{g}:{m}\n" for n, g, m in _GROUPS))
    _write(os.path.join(etc, "shadow"), shadow, 0o640, 42)
    _write(os.path.join(etc, "gshadow"), "".join(f"{n}:*::{m}\n" for n, _, m in _GROUPS),
           0o640, 42)
    _write(os.path.join(etc, "hostname"), hostname + "\n")
    _write(os.path.join(etc, "hosts"), f"127.0.0.1\tlocalhost\n127.0.1.1\t{hostname}\n"
                                        "::1\tip6-localhost ip6-loopback\n")
    _write(os.path.join(etc, "os-release"), _OS_RELEASE)
    _write(os.path.join(etc, "lsb-release"), "DISTRIB_ID=Ubuntu\nDISTRIB_RELEASE=22.04\n"
           "DISTRIB_CODENAME=jammy\nDISTRIB_DESCRIPTION=\"Ubuntu 22.04.3 LTS\"\n")
    _write(os.path.join(etc, "sudoers"), _SUDOERS, 0o440)
    _write(os.path.join(etc, "subuid"), "user:100000:65536\n")
    _write(os.path.join(etc, "subgid"), "user:100000:65536\n")
    _write(os.path.join(etc, "machine-id"), "0123456789abcdef0123456789abcdef\n", 0o444)
    _write(os.path.join(etc, "resolv.conf"), "# no network in this desktop\n")
    set_timezone(etc, timezone)


def set_timezone(etc: str, name: str) -> None:
    """Make ``name`` the system time zone of the /etc at ``etc`` (``/etc/timezone`` and the
    ``/etc/localtime`` link into the read-only /usr/share/zoneinfo), as timedatectl does."""
    _write(os.path.join(etc, "timezone"), name + "\n")
    local = os.path.join(etc, "localtime")
    if os.path.lexists(local):
        os.remove(local)
    os.symlink("/usr/share/zoneinfo/" + name, local)
