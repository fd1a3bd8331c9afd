"""Accounts and file metadata: ``useradd``, ``adduser`` (its non-interactive form),
``usermod``, ``userdel``, ``passwd`` and ``chpasswd`` (passwords from standard input),
``getent``, ``id USER``, ``su``, ``chown``, ``stat``, ``openssl passwd``.

Accounts live in ``/etc/passwd``, ``/etc/shadow`` and ``/etc/group`` (`accounts.Accounts`);
changing them needs root. A file belongs to whoever made it with ``sudo`` (root) or got it
by ``chown``, else to the path's default owner (the user in their home and /tmp, root
elsewhere: `context.owner_of`); ``stat`` and ``ls -l`` show it, permissions follow it.
"""

from __future__ import annotations

import hashlib
import stat as stat_mod
from datetime import datetime, timezone

from ...budget import charge
from ..accounts import Account, AccountError, Accounts, sha512_crypt
from .cmd_files import walk
from .context import USER, Ctx
from .registry import Args, Opts, command

__all__: list[str] = []


def _denied(ctx: Ctx, prog: str) -> bool:
    if ctx.root:
        return False
    ctx.err(f"{prog}: Permission denied.\n{prog}: cannot lock /etc/passwd; try again later.")
    return True


def _one_login(ctx: Ctx, a: Args, prog: str, usage: str) -> str | int:
    """The LOGIN operand of a shadow tool run as root, or the status it fails with: 2 (and
    its usage) without exactly one operand, 1 when not root."""
    if len(a.operands) != 1:
        ctx.err(usage)
        return 2
    if _denied(ctx, prog):
        return 1
    return a.operands[0]


def _value(args: list[str], k: int, prog: str, ctx: Ctx) -> str | None:
    if k + 1 >= len(args):
        ctx.err(f"{prog}: option requires an argument -- '{args[k].lstrip('-')[:1]}'")
        return None
    return args[k + 1]


def _make_home(ctx: Ctx, prog: str, home: str) -> None:
    fs = ctx.fs
    if fs.exists(home):
        ctx.err(f"{prog}: warning: the home directory {home} already exists.\n"
                f"{prog}: Not copying any file from skel directory into it.")
        return
    parent = home.rsplit("/", 1)[0] or "/"
    if not fs.is_dir(parent):
        fs.mkdir(parent, parents=True, mode=0o755)
    fs.mkdir(home, mode=0o750)
    for name, text in ((".bashrc", "# ~/.bashrc: executed by bash(1) for non-login shells.\n"),
                       (".profile", "# ~/.profile: executed by the command interpreter for "
                                    "login shells.\n"),
                       (".bash_logout", "# ~/.bash_logout: executed by bash(1) when login "
                                        "shell exits.\n")):
        fs.write_file(f"{home}/{name}", text, mode=0o644)


_USERADD_USAGE = "Usage: useradd [options] LOGIN\n       useradd -D\n       useradd -D [options]"
_USERMOD_USAGE = "Usage: usermod [options] LOGIN"
_USERDEL_USAGE = "Usage: userdel [options] LOGIN"


@command("useradd", opts=Opts("mMNrUdscgGpukeb", {
    "create-home": "m", "no-create-home": "M", "no-user-group": "N", "system": "r",
    "user-group": "U", "home-dir": "d", "shell": "s", "comment": "c", "gid": "g",
    "groups": "G", "password": "p", "uid": "u", "skel": "k", "expiredate": "e",
    "base-dir": "b"}, with_value="dscgGpukeb", usage_status=2, usage=_USERADD_USAGE))
def useradd(ctx: Ctx, a: Args) -> int:
    home = a.values.get("d")
    shell, gecos = a.values.get("s", "/bin/sh"), a.values.get("c", "")
    make_home, hashed = "m" in a.flags, a.values.get("p")
    name = _one_login(ctx, a, "useradd", _USERADD_USAGE)
    if isinstance(name, int):
        return name
    acc = Accounts(ctx.fs)
    try:
        acc.add(name, home=ctx.path(home) if home else None, shell=shell, gecos=gecos)
    except AccountError as exc:
        ctx.err(f"useradd: {exc}")
        return 9 if "exists" in str(exc) else 3
    if hashed is not None:
        _set_hash(acc, name, hashed)
    if make_home:
        account = acc.user(name)
        if account is not None:
            _make_home(ctx, "useradd", account.home)
    return 0


def _set_hash(acc: Accounts, name: str, hashed: str) -> None:
    acc.set_hash(name, hashed)


@command("adduser")
def adduser(ctx: Ctx, args: list[str]) -> int:
    home: str | None = None
    shell, quiet_password = "/bin/bash", False
    names: list[str] = []
    k = 0
    while k < len(args):
        a = args[k]
        if a in ("--disabled-password", "--disabled-login"):
            quiet_password = True
        elif a in ("--home", "--shell", "--gecos", "--uid", "--gid", "--ingroup"):
            v = _value(args, k, "adduser", ctx)
            if v is None:
                return 1
            if a == "--home":
                home = v
            elif a == "--shell":
                shell = v
            k += 1
        elif a in ("--quiet", "-q", "--system", "--no-create-home", "--force-badname"):
            pass
        elif a.startswith("-"):
            ctx.err(f"adduser: Unknown option: {a.lstrip('-')}")
            return 1
        else:
            names.append(a)
        k += 1
    if not names:
        ctx.err("adduser: Only one or two names allowed.")
        return 1
    if not ctx.root:
        ctx.err("adduser: Only root may add a user or group to the system.")
        return 1
    if not quiet_password:
        ctx.err("adduser: it would ask for the new password here, which this terminal cannot "
                "do; use --disabled-password, then chpasswd or passwd")
        return 1
    acc = Accounts(ctx.fs)
    try:
        acc.add(names[0], home=ctx.path(home) if home else None, shell=shell)
    except AccountError as exc:
        ctx.err(f"adduser: {exc}".replace("user '", "The user `").replace("' already",
                                                                         "' already"))
        return 1
    account = acc.user(names[0])
    ctx.out(f"Adding user `{names[0]}' ...\n")
    if account is not None:
        _make_home(ctx, "adduser", account.home)
    return 0


@command("usermod", opts=Opts("madsGgclp", {
    "move-home": "m", "append": "a", "home": "d", "shell": "s", "groups": "G", "gid": "g",
    "comment": "c", "login": "l", "password": "p"}, with_value="dsGgclp", usage_status=2,
    usage=_USERMOD_USAGE))
def usermod(ctx: Ctx, a: Args) -> int:
    home = ctx.path(a.values["d"]) if "d" in a.values else None
    shell = a.values.get("s")
    move = "m" in a.flags
    name = _one_login(ctx, a, "usermod", _USERMOD_USAGE)
    if isinstance(name, int):
        return name
    acc = Accounts(ctx.fs)
    old = acc.user(name)
    try:
        acc.modify(name, home=home, shell=shell)
    except AccountError as exc:
        ctx.err(f"usermod: {exc}")
        return 6
    if move and home and old is not None and ctx.fs.is_dir(old.home) and \
            not ctx.fs.exists(home):
        ctx.fs.rename(old.home, home)
    return 0


@command("userdel", opts=Opts("frRPZ", {"force": "f", "remove": "r", "root": "R",
                                        "prefix": "P", "selinux-user": "Z"},
                               with_value="RP", usage_status=2,
                               usage=_USERDEL_USAGE))
def userdel(ctx: Ctx, a: Args) -> int:
    name = _one_login(ctx, a, "userdel", _USERDEL_USAGE)
    if isinstance(name, int):
        return name
    acc = Accounts(ctx.fs)
    account = acc.user(name)
    try:
        acc.delete(name)
    except AccountError as exc:
        ctx.err(f"userdel: {exc}")
        return 6
    if account is not None and "r" in a.flags and \
            ctx.fs.is_dir(account.home):
        ctx.fs.remove(account.home)
    return 0


@command("chpasswd", opts=Opts("cemRPs", {"crypt-method": "c", "encrypted": "e", "md5": "m",
                                          "root": "R", "prefix": "P", "sha-rounds": "s"},
                                 with_value="cRPs", usage="Usage: chpasswd [options]"))
def chpasswd(ctx: Ctx, a: Args) -> int:
    if not ctx.root:
        ctx.err("chpasswd: cannot lock /etc/passwd; try again later.")
        return 1
    acc = Accounts(ctx.fs)
    status = 0
    for n, line in enumerate(ctx.io.stdin.splitlines(), start=1):
        charge()
        if not line:
            continue
        name, sep, password = line.partition(":")
        if not sep:
            ctx.err(f"chpasswd: line {n}: missing new password")
            status = 1
            continue
        try:
            if "e" in a.flags:
                if acc.user(name) is None:
                    raise AccountError(f"user '{name}' does not exist")
                _set_hash(acc, name, password)
            else:
                acc.set_password(name, password)
        except AccountError:
            ctx.err(f"chpasswd: (user {name}) pam_chauthtok() failed, error:\n"
                    "Authentication token manipulation error\n"
                    f"chpasswd: (line {n}, user {name}) password not changed")
            status = 1
    return status


@command("passwd", opts=Opts("adeiklnqrRSuwxPA", {
    "all": "a", "delete": "d", "expire": "e", "inactive": "i", "keep-tokens": "k",
    "lock": "l", "mindays": "n", "quiet": "q", "repository": "r", "root": "R",
    "prefix": "P", "status": "S", "unlock": "u", "warndays": "w", "maxdays": "x"},
    with_value="inrRPwx", usage_status=2, usage="Usage: passwd [options] [LOGIN]"))
def passwd(ctx: Ctx, a: Args) -> int:
    names = a.operands
    name = names[0] if names else ("root" if ctx.root else USER)
    if names and not ctx.root and name != USER:
        ctx.err(f"passwd: You may not view or modify password information for {name}.")
        return 1
    acc = Accounts(ctx.fs)
    if acc.user(name) is None:
        ctx.err(f"passwd: user '{name}' does not exist")
        return 1
    if ctx.io.tty:
        ctx.err("passwd: this terminal cannot ask for the new password; give it on standard "
                f"input (echo -e 'NEW\\nNEW' | sudo passwd {name}) or use chpasswd")
        return 10
    lines = ctx.io.stdin.split("\n")
    if not ctx.root:
        lines = lines[1:]  # the current password first
    if len(lines) < 2 or not lines[0]:
        ctx.err("No password has been supplied.\npasswd: Authentication token manipulation "
                "error\npasswd: password unchanged")
        return 10
    if lines[0] != lines[1]:
        ctx.err("Sorry, passwords do not match.\npasswd: Authentication token manipulation "
                "error\npasswd: password unchanged")
        return 10
    acc.set_password(name, lines[0])
    ctx.out("New password: Retype new password: passwd: password updated successfully\n")
    return 0


@command("getent", opts=Opts("sAi", {"service": "s", "no-addrconfig": "A", "no-idn": "i"},
                               with_value="s", usage_status=64,
                               usage="Try `getent --help' or `getent --usage' for more "
                                     "information."))
def getent(ctx: Ctx, a: Args) -> int:
    args = a.operands
    if not args:
        ctx.err("Usage: getent [OPTION...] database [key ...]")
        return 1
    acc = Accounts(ctx.fs)
    db, keys = args[0], args[1:]
    if db == "passwd":
        lines = acc.passwd_lines()
    elif db == "group":
        lines = acc.group_lines()
    elif db == "shadow":
        if not ctx.root:
            return 2
        lines = acc.shadow_lines()
    else:
        ctx.err(f"Unknown database: {db}\nTry `getent --help' or `getent --usage' for more "
                "information.")
        return 1
    if not keys:
        ctx.out("".join(f"{ln}\n" for ln in lines))
        return 0
    status = 0
    for key in keys:
        hit = next((ln for ln in lines if ln.split(":")[0] == key or (
            len(ln.split(":")) > 2 and ln.split(":")[2] == key)), None)
        if hit is None:
            status = 2
        else:
            ctx.out(hit + "\n")
    return status


@command("id", opts=Opts("aZgGnruz", {"context": "Z", "group": "g", "groups": "G",
                                       "name": "n", "real": "r", "user": "u", "zero": "z"}))
def id_(ctx: Ctx, a: Args) -> int:
    names = a.operands
    if not names:
        return _id_self(ctx, a.flags)
    acc = Accounts(ctx.fs)
    account = acc.user(names[0])
    if account is None:
        ctx.err(f"id: ‘{names[0]}’: no such user")
        return 1
    if a.flags >= {"u", "n"}:
        ctx.out(f"{account.name}\n")
    elif "u" in a.flags:
        ctx.out(f"{account.uid}\n")
    else:
        groups = [ln.split(":") for ln in acc.group_lines()]
        extra = [f"{g[2]}({g[0]})" for g in groups if len(g) > 3 and account.name in
                 g[3].split(",") and g[2] != str(account.gid)]
        ctx.out(f"uid={account.uid}({account.name}) gid={account.gid}({account.name}) "
                f"groups={','.join([f'{account.gid}({account.name})', *extra])}\n")
    return 0


def _id_self(ctx: Ctx, flags: set[str]) -> int:
    if flags >= {"u", "n"}:
        ctx.out("root\n" if ctx.root else f"{USER}\n")
        return 0
    if "u" in flags:
        ctx.out("0\n" if ctx.root else "1000\n")
        return 0
    ctx.out("uid=0(root) gid=0(root) groups=0(root)\n" if ctx.root else
            "uid=1000(user) gid=1000(user) groups=1000(user),4(adm),24(cdrom),27(sudo),30(dip),"
            "46(plugdev),122(lpadmin),134(lxd),135(sambashare)\n")
    return 0


@command("su", opts=Opts("cfgGlmpPsw", {
    "command": "c", "session-command": "C", "fast": "f", "group": "g",
    "supp-group": "G", "login": "l", "preserve-environment": "p", "pty": "P", "shell": "s",
    "whitelist-environment": "w"}, with_value="cCgGsw"))
def su(ctx: Ctx, a: Args) -> int:
    names = [o for o in a.operands if o != "-"]  # "su - user": "-" means a login shell
    user = names[0] if names else "root"
    if Accounts(ctx.fs).user(user) is None:
        ctx.err(f"su: user {user} does not exist or the user entry does not contain all "
                "the required fields")
        return 1
    ctx.err("su: Authentication failure" if not ctx.root else
            "su: switching users is not available in this terminal")
    return 1


@command("chown", opts=Opts("cfvhRHLP", {
    "changes": "c", "silent": "f", "quiet": "f", "verbose": "v", "no-dereference": "h",
    "recursive": "R", "dereference": "", "from": "F", "reference": "E",
    "preserve-root": "", "no-preserve-root": ""}, with_value="FE"))
def chown(ctx: Ctx, a: Args) -> int:
    ops = a.operands
    if len(ops) < 2:
        ctx.err("chown: missing operand\nTry 'chown --help' for more information." if not ops
                else f"chown: missing operand after ‘{ops[0]}’\n"
                     "Try 'chown --help' for more information.")
        return 1
    spec, files = ops[0], ops[1:]
    owner, _, group = spec.partition(":" if ":" in spec else ".")
    acc = Accounts(ctx.fs)
    if owner and acc.user(owner) is None:
        ctx.err(f"chown: invalid user: ‘{spec}’")
        return 1
    groups = {ln.split(":")[0] for ln in acc.group_lines()}
    if group and group not in groups:
        ctx.err(f"chown: invalid group: ‘{spec}’")
        return 1
    recursive = "R" in a.flags
    status = 0
    for f in files:
        p = ctx.path(f)
        if not ctx.fs.exists(p):
            ctx.err(f"chown: cannot access '{f}': No such file or directory")
            status = 1
        elif not ctx.root:
            ctx.err(f"chown: changing ownership of '{f}': Operation not permitted")
            status = 1
        elif owner:
            for path in walk(ctx.fs, p) if recursive else [p]:
                ctx.fs.chown(path, owner)
    return status


# -- stat -----------------------------------------------------------------------------

def _owner(ctx: Ctx, path: str) -> Account:
    name = ctx.owner(path)
    found = Accounts(ctx.fs).user(name)
    return found if found is not None else Account(name, 0, 0, "", "/", "/bin/sh")


def _when(t: float) -> str:
    d = datetime.fromtimestamp(t, tz=timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S.") + f"{int((t % 1) * 1e9):09d} +0000"


def _stat_field(ctx: Ctx, c: str, path: str, shown: str) -> str | None:
    st = ctx.fs.stat(path)
    mode = st.st_mode
    who = _owner(ctx, path)
    is_dir = stat_mod.S_ISDIR(mode)
    values = {
        "A": stat_mod.filemode(mode), "a": f"{stat_mod.S_IMODE(mode):o}",
        "U": who.name, "G": who.name, "u": str(who.uid), "g": str(who.gid),
        "n": shown, "N": f"'{shown}'", "s": str(st.st_size),
        "F": "directory" if is_dir else ("regular empty file" if st.st_size == 0
                                         else "regular file"),
        "y": _when(st.st_mtime), "Y": str(int(st.st_mtime)),
        "x": _when(st.st_mtime), "X": str(int(st.st_mtime)),
        "z": _when(st.st_mtime), "Z": str(int(st.st_mtime)),
        "h": "2" if is_dir else "1", "b": str((st.st_size + 511) // 512), "B": "512",
        "i": str(int(hashlib.md5(path.encode()).hexdigest()[:6], 16)), "o": "4096",
        "w": "-", "W": "0",
    }
    return values.get(c)


def _stat_format(ctx: Ctx, fmt: str, path: str, shown: str) -> str:
    out, i = [], 0
    while i < len(fmt):
        c = fmt[i]
        if c == "%" and i + 1 < len(fmt):
            nxt = fmt[i + 1]
            value = "%" if nxt == "%" else _stat_field(ctx, nxt, path, shown)
            out.append(value if value is not None else "?")
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


@command("stat", opts=Opts("cLft", {"format": "c", "printf": "P", "dereference": "L",
                                    "file-system": "f", "terse": "t", "cached": ""},
                             with_value="cP"))
def stat(ctx: Ctx, a: Args) -> int:
    fmt = a.values["P"] if "P" in a.values else (
        a.values["c"] + "\n" if "c" in a.values else None)
    files = a.operands
    if not files:
        ctx.err("stat: missing operand\nTry 'stat --help' for more information.")
        return 1
    status = 0
    for f in files:
        charge()
        p = ctx.path(f)
        if not ctx.fs.exists(p):
            ctx.err(f"stat: cannot statx '{f}': No such file or directory")
            status = 1
            continue
        if fmt is not None:
            ctx.out(_stat_format(ctx, fmt.replace("\\n", "\n").replace("\\t", "\t"), p, f))
            continue
        ctx.out(_stat_format(ctx, (
            "  File: %n\n  Size: %s\tBlocks: %b\tIO Block: 4096   %F\n"
            "Device: 803h/2051d\tInode: %i\tLinks: %h\n"
            "Access: (0%a/%A)  Uid: ( %u/ %U)   Gid: ( %g/ %G)\n"
            "Access: %x\nModify: %y\nChange: %z\n Birth: -\n"), p, f))
    return status


# -- openssl ---------------------------------------------------------------------------

@command("openssl")
def openssl(ctx: Ctx, args: list[str]) -> int:
    if args[:1] != ["passwd"]:
        ctx.err(f"Invalid command '{args[0]}'; type \"help\" for a list." if args else
                "openssl: only 'openssl passwd -6' is available here")
        return 1
    salt, words, six, stdin = None, [], False, False
    k = 1
    while k < len(args):
        a = args[k]
        if a == "-6":
            six = True
        elif a == "-salt" and k + 1 < len(args):
            salt = args[k + 1]
            k += 1
        elif a == "-stdin":
            stdin = True
        elif a.startswith("-"):
            ctx.err(f"passwd: Unknown option or message digest: {a.lstrip('-')}\n"
                    "passwd: Use -help for summary.")
            return 1
        else:
            words.append(a)
        k += 1
    if not six:
        ctx.err("passwd: only -6 (SHA-512 crypt) is available here")
        return 1
    if stdin:
        words = ctx.io.stdin.splitlines()[:1]
    if not words:
        ctx.err("passwd: no password given")
        return 1
    for w in words:
        s = salt if salt is not None else "".join(
            "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[b & 0x3F]
            for b in hashlib.sha256(f"{ctx.fs.clock.now()!r}:{w}".encode()).digest()[:16])
        ctx.out(sha512_crypt(w, s) + "\n")
    return 0
