"""User accounts of the simulated Ubuntu: ``/etc/passwd``, ``/etc/shadow``, ``/etc/group``.

The files are the state (a cloned desktop copies them with its filesystem); until an
account is changed they do not exist and read as Ubuntu 22.04's (root, the system users,
``user`` with uid 1000 and password ``password``). Passwords are stored as SHA-512 crypt
hashes (``$6$``, what ``openssl passwd -6`` and glibc's ``crypt`` make; Ubuntu 22.04's own
default is yescrypt), salted from the desktop's filesystem clock, never from real
randomness, so that two desktops fed the same input stay identical.

>>> sha512_crypt("Ex@mpleP@55w0rd!", "abcdefgh")[:30]
'$6$abcdefgh$v.b8qRGov4X8UUxDLH'
>>> from drums_gym.local.desktop.fs import FileSystem
>>> acc = Accounts(FileSystem())
>>> acc.add("charles", home="/home/test1")
>>> acc.set_password("charles", "s3cret")
>>> acc.check_password("charles", "s3cret"), acc.check_password("charles", "nope")
(True, False)
>>> acc.user("charles").home
'/home/test1'
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from functools import lru_cache

from ..budget import charge
from .fs import FileSystem

__all__ = ["Account", "AccountError", "Accounts", "sha512_crypt"]

PASSWD, SHADOW, GROUP = "/etc/passwd", "/etc/shadow", "/etc/group"
_ITOA64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_ORDER = ((0, 21, 42), (22, 43, 1), (44, 2, 23), (3, 24, 45), (25, 46, 4), (47, 5, 26),
          (6, 27, 48), (28, 49, 7), (50, 8, 29), (9, 30, 51), (31, 52, 10), (53, 11, 32),
          (12, 33, 54), (34, 55, 13), (56, 14, 35), (15, 36, 57), (37, 58, 16), (59, 17, 38),
          (18, 39, 60), (40, 61, 19), (62, 20, 41))
_NAME = re.compile(r"[a-z_][a-z0-9_-]*\$?")


def _b64(b2: int, b1: int, b0: int, n: int) -> str:
    w = (b2 << 16) | (b1 << 8) | b0
    out = []
    for _ in range(n):
        out.append(_ITOA64[w & 0x3F])
        w >>= 6
    return "".join(out)


def sha512_crypt(password: str, salt: str, rounds: int = 5000) -> str:
    """glibc's SHA-512 crypt (``$6$salt$hash``) of ``password``, default 5000 rounds."""
    pw, sl = password.encode(), salt.encode()[:16]
    b = hashlib.sha512(pw + sl + pw).digest()
    a = hashlib.sha512(pw + sl)
    n = len(pw)
    while n > 64:
        a.update(b)
        n -= 64
    a.update(b[:n])
    n = len(pw)
    while n > 0:
        a.update(b if n & 1 else pw)
        n >>= 1
    c = a.digest()
    dp = hashlib.sha512(pw * len(pw)).digest()
    p = (dp * (len(pw) // 64 + 1))[:len(pw)]
    ds = hashlib.sha512(sl * (16 + c[0])).digest()
    s = (ds * (len(sl) // 64 + 1))[:len(sl)]
    for r in range(rounds):
        if r % 16 == 0:
            charge()
        h = hashlib.sha512(p if r & 1 else c)
        if r % 3:
            h.update(s)
        if r % 7:
            h.update(p)
        h.update(c if r & 1 else p)
        c = h.digest()
    text = "".join(_b64(c[i], c[j], c[k], 4) for i, j, k in _ORDER) + _b64(0, 0, c[63], 2)
    head = f"$6$rounds={rounds}$" if rounds != 5000 else "$6$"
    return f"{head}{sl.decode(errors='replace')}${text}"


def _verify(password: str, stored: str) -> bool:
    m = re.fullmatch(r"\$6\$(?:rounds=(\d+)\$)?([^$]{0,16})\$[./0-9A-Za-z]{86}", stored)
    if not m:
        return False
    rounds = int(m.group(1)) if m.group(1) else 5000
    if not 1000 <= rounds <= 50_000:
        return False
    return sha512_crypt(password, m.group(2), rounds) == stored


@dataclass(frozen=True)
class Account:
    """One line of ``/etc/passwd``."""

    name: str
    uid: int
    gid: int
    gecos: str
    home: str
    shell: str

    def line(self) -> str:
        return f"{self.name}:x:{self.uid}:{self.gid}:{self.gecos}:{self.home}:{self.shell}"


class AccountError(ValueError):
    """What useradd, usermod, chpasswd... print when they refuse (without the prefix)."""


_SYSTEM = ("root:x:0:0:root:/root:/bin/bash\n"
           "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
           "bin:x:2:2:bin:/bin:/usr/sbin/nologin\n"
           "sys:x:3:3:sys:/dev:/usr/sbin/nologin\n"
           "sync:x:4:65534:sync:/bin:/bin/sync\n"
           "games:x:5:60:games:/usr/games:/usr/sbin/nologin\n"
           "man:x:6:12:man:/var/cache/man:/usr/sbin/nologin\n"
           "mail:x:8:8:mail:/var/mail:/usr/sbin/nologin\n"
           "www-data:x:33:33:www-data:/var/www:/usr/sbin/nologin\n"
           "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
           "systemd-network:x:100:102:systemd Network Management,,,:/run/systemd:"
           "/usr/sbin/nologin\n"
           "messagebus:x:102:105::/nonexistent:/usr/sbin/nologin\n"
           "sshd:x:128:65534::/run/sshd:/usr/sbin/nologin\n"
           "user:x:1000:1000:user,,,:/home/user:/bin/bash\n")
_GROUPS = ("root:x:0:\nadm:x:4:syslog,user\ncdrom:x:24:user\nsudo:x:27:user\ndip:x:30:user\n"
           "www-data:x:33:\nplugdev:x:46:user\nusers:x:100:\nlpadmin:x:122:user\n"
           "sambashare:x:135:user\nnogroup:x:65534:\nuser:x:1000:\n")


@lru_cache(maxsize=1)
def _default_shadow() -> str:
    lines = []
    for entry in _SYSTEM.splitlines():
        name = entry.split(":", 1)[0]
        secret = sha512_crypt("password", "drumsimg") if name == "user" else (
            "!" if name == "root" else "*")
        lines.append(f"{name}:{secret}:19700:0:99999:7:::")
    return "\n".join(lines) + "\n"


class Accounts:
    """The accounts in ``fs`` (every call reads and writes the files)."""

    def __init__(self, fs: FileSystem) -> None:
        self.fs = fs

    def _read(self, path: str, default: str) -> list[str]:
        if self.fs.is_file(path):
            return self.fs.read_file(path).decode(errors="replace").splitlines()
        return (default if path != SHADOW else _default_shadow()).splitlines()

    def _write(self, path: str, lines: list[str]) -> None:
        if not self.fs.is_dir("/etc"):
            self.fs.mkdir("/etc", mode=0o755)
        self.fs.write_file(path, "\n".join(lines) + "\n",
                           mode=0o640 if path == SHADOW else 0o644)

    def ensure_files(self) -> None:
        """Write the three files if they are not there yet (``cat /etc/passwd`` reads them)."""
        for path, default in ((PASSWD, _SYSTEM), (SHADOW, ""), (GROUP, _GROUPS)):
            if not self.fs.is_file(path):
                self._write(path, self._read(path, default))

    # -- reading ----------------------------------------------------------------------
    def users(self) -> list[Account]:
        out = []
        for line in self._read(PASSWD, _SYSTEM):
            charge()
            f = line.split(":")
            if len(f) == 7 and f[2].isdecimal() and f[3].isdecimal():
                out.append(Account(f[0], int(f[2]), int(f[3]), f[4], f[5], f[6]))
        return out

    def user(self, name: str) -> Account | None:
        return next((u for u in self.users() if u.name == name or str(u.uid) == name), None)

    def passwd_lines(self) -> list[str]:
        return self._read(PASSWD, _SYSTEM)

    def shadow_lines(self) -> list[str]:
        return self._read(SHADOW, "")

    def group_lines(self) -> list[str]:
        return self._read(GROUP, _GROUPS)

    def check_password(self, name: str, password: str) -> bool:
        for line in self.shadow_lines():
            f = line.split(":")
            if f[0] == name and len(f) > 1:
                return _verify(password, f[1])
        return False

    # -- changing -----------------------------------------------------------------------
    def add(self, name: str, home: str | None = None, shell: str = "/bin/sh",
            gecos: str = "", uid: int | None = None) -> None:
        if not _NAME.fullmatch(name) or len(name) > 32:
            raise AccountError(f"invalid user name '{name}': use --badname to ignore")
        users = self.users()
        if any(u.name == name for u in users):
            raise AccountError(f"user '{name}' already exists")
        taken = {u.uid for u in users}
        if uid is None:
            uid = 1001
            while uid in taken:
                uid += 1
        home = home or f"/home/{name}"
        self.ensure_files()
        self._write(PASSWD, [*self.passwd_lines(), Account(name, uid, uid, gecos, home,
                                                           shell).line()])
        self._write(SHADOW, [*self.shadow_lines(), f"{name}:!:19700:0:99999:7:::"])
        self._write(GROUP, [*self.group_lines(), f"{name}:x:{uid}:"])

    def modify(self, name: str, home: str | None = None, shell: str | None = None) -> None:
        account = self.user(name)
        if account is None:
            raise AccountError(f"user '{name}' does not exist")
        new = replace(account, home=home or account.home, shell=shell or account.shell)
        self.ensure_files()
        self._write(PASSWD, [new.line() if ln.split(":", 1)[0] == account.name else ln
                             for ln in self.passwd_lines()])

    def delete(self, name: str) -> None:
        if self.user(name) is None:
            raise AccountError(f"user '{name}' does not exist")
        self.ensure_files()
        for path, lines in ((PASSWD, self.passwd_lines()), (SHADOW, self.shadow_lines()),
                            (GROUP, self.group_lines())):
            self._write(path, [ln for ln in lines if ln.split(":", 1)[0] != name])

    def set_password(self, name: str, password: str) -> None:
        """Store ``password``'s SHA-512 crypt hash for ``name``."""
        if self.user(name) is None:
            raise AccountError(f"user '{name}' does not exist")
        self.set_hash(name, sha512_crypt(password, _salt(self.fs.clock.now(), name)))

    def set_hash(self, name: str, hashed: str) -> None:
        """Store an already hashed password (``useradd -p``, ``chpasswd -e``)."""
        self.ensure_files()
        lines = []
        for ln in self.shadow_lines():
            f = ln.split(":")
            if f[0] == name:
                f[1] = hashed
                ln = ":".join(f)
            lines.append(ln)
        self._write(SHADOW, lines)


def _salt(now: float, name: str) -> str:
    digest = hashlib.sha256(f"{now!r}:{name}".encode()).digest()
    return "".join(_ITOA64[b & 0x3F] for b in digest[:16])
