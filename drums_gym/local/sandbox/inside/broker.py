"""The root broker of one desktop's sandbox (runs INSIDE it, by the machine's python3).

Started by bwrap as uid 0 with a reduced capability set, it is the only process of the
sandbox that may start others as another user. Two doors:

- the control fd (its number is argv[1]'s ``control_fd``), a SOCK_SEQPACKET socket
  whose other end the host holds: each message is a JSON
  request with file descriptors attached (SCM_RIGHTS): ``[conn, stdin, stdout, stderr]``.
  The broker starts the program (``argv``, ``env``, ``cwd``, ``uid``, ``tty``) in a new
  session with those three fds, answers ``{"pid": n}`` on ``conn`` and, when it exits,
  ``{"status": s}`` (128 + signal when killed). Closing ``conn`` early kills the
  program's process group (that is how the host stops a command).
- ``/run/drums/sudo.sock``, for the ``sudo`` shim (any user): the shim sends its argv,
  environment, cwd, password (if asked) and its stdio fds; the broker checks the caller's
  uid (SO_PEERCRED), the password against the desktop's own /etc/shadow and its timestamp
  cache (per session, 15 minutes as Ubuntu's sudo), then runs the command as root (or
  ``-u``'s user) with the shim's fds and answers its status.

Standard library only: this file is data to the drums_gym package, never imported by it.
"""

from __future__ import annotations

import array
import contextlib
import json
import os
import pwd
import resource
import select
import signal
import socket
import sys
import threading
import time
import warnings

CONTROL_FD = 3
SUDO_SOCK = "/run/drums/sudo.sock"
MAX_MSG = 1 << 20
SUDO_TIMEOUT_S = 15 * 60
_stamps: dict[tuple[int, int], float] = {}
_user_limits: dict[str, int] = {}  # set in each program started as a user, not on root
_lock = threading.Lock()


def _recv(sock: socket.socket) -> tuple[bytes, list[int]]:
    fds = array.array("i")
    msg, anc, _, _ = sock.recvmsg(MAX_MSG, socket.CMSG_LEN(16 * fds.itemsize))
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
    return msg, list(fds)


def _send(conn: socket.socket, obj: dict[str, object]) -> None:
    with contextlib.suppress(OSError):
        conn.send(json.dumps(obj).encode())


def _groups(uid: int) -> tuple[int, list[int]]:
    try:
        ent = pwd.getpwuid(uid)
    except KeyError:
        return uid, []
    try:
        return ent.pw_gid, os.getgrouplist(ent.pw_name, ent.pw_gid)
    except OSError:
        return ent.pw_gid, [ent.pw_gid]


def _spawn(argv: list[str], env: dict[str, str], cwd: str, uid: int, tty: bool,
           stdio: list[int]) -> int:
    gid, groups = _groups(uid)
    pid = os.fork()
    if pid == 0:  # the child: only os calls until exec
        try:
            os.setsid()
            for k, fd in enumerate(stdio):
                os.dup2(fd, k)
            if tty:
                import fcntl
                import termios
                fcntl.ioctl(0, termios.TIOCSCTTY, 0)
            os.setgroups(groups)
            os.setgid(gid)
            os.setuid(uid)
            if uid != 0:
                for name, value in _user_limits.items():
                    resource.setrlimit(getattr(resource, name), (value, value))
            for where in (cwd, env.get("HOME", "/"), "/"):
                try:
                    os.chdir(where)
                    break
                except OSError:
                    continue
            os.closerange(3, 65536)
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            os.execvpe(argv[0], argv, env)
        except OSError as exc:
            os.write(2, f"{argv[0]}: {exc.strerror}\n".encode())
            os._exit(127 if isinstance(exc, FileNotFoundError) else 126)
        except BaseException as exc:  # the forked child must never return into the broker
            os.write(2, f"{argv[0] if argv else '?'}: cannot run: {exc}\n".encode())
            os._exit(126)
        os._exit(127)
    return pid


def _status(code: int) -> int:
    if os.WIFSIGNALED(code):
        return 128 + os.WTERMSIG(code)
    return os.WEXITSTATUS(code)


def _supervise(pid: int, conn: socket.socket) -> int:
    """Wait for ``pid``; kill its process group if ``conn`` closes first (or is shut for
    writing: the host then reads the status, sent once the group is gone)."""
    pidfd = os.pidfd_open(pid)
    hung_up = False
    try:
        while True:
            ready, _, _ = select.select([pidfd] if hung_up else [pidfd, conn.fileno()], [], [])
            if pidfd in ready:
                break
            try:
                data = conn.recv(4096)
            except OSError:
                data = b""
            if not data:  # the host hung up: stop the program and everything it started
                hung_up = True
                for sig in (signal.SIGHUP, signal.SIGKILL):
                    with contextlib.suppress(OSError):
                        os.killpg(pid, sig)
    finally:
        os.close(pidfd)
    _, code = os.waitpid(pid, 0)
    if hung_up:
        _until_group_gone(pid)
    return _status(code)


def _until_group_gone(pgid: int, rounds: int = 400) -> None:
    """SIGKILL the process group until it has no process left (what was being forked
    when the first signal went out; bounded: 400 rounds of 5 ms)."""
    for _ in range(rounds):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            return  # ESRCH: none left
        time.sleep(0.005)


def _serve_host(msg: bytes, fds: list[int]) -> None:
    conn = socket.socket(fileno=fds[0])
    master = -1
    try:
        req = json.loads(msg)
        tty = bool(req.get("tty"))
        if req.get("pty"):  # a pty of the sandbox's own devpts: `tty` names it
            import fcntl
            import struct
            import termios
            master, slave = os.openpty()
            rows, cols = req.get("size", (24, 80))
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            fds = [fds[0], slave, slave, slave]
            tty = True
        uid = int(req.get("uid", 1000))
        pid = _spawn(req["argv"], req["env"], req.get("cwd", "/"), uid, tty, fds[1:4])
        if req.get("sudo_cached"):  # as after `echo password | sudo -S true` in its session
            with _lock:
                _stamps[(uid, pid)] = time.monotonic()
        for fd in set(fds[1:]):
            os.close(fd)
        if master >= 0:
            conn.sendmsg([json.dumps({"pid": pid}).encode()],
                         [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [master]))])
            os.close(master)
            master = -1
        else:
            _send(conn, {"pid": pid})
        _send(conn, {"status": _supervise(pid, conn)})
    finally:
        if master >= 0:
            os.close(master)
        conn.close()


def _session_of(pid: int) -> int:
    try:
        return os.getsid(pid)
    except OSError:
        return -1


def _crypt(password: str, stored: str) -> str:
    """crypt(3) of ``password`` with ``stored``'s salt: the C module alone (``crypt``
    imports ``random`` and ``hashlib``, most of the broker's start), imported on the
    first password."""
    try:
        from _crypt import crypt  # type: ignore[import-not-found]  # no stubs: a C module
    except ImportError:  # an interpreter without it: the module (deprecated since 3.11)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            from crypt import crypt
    return str(crypt(password, stored))


def _password_ok(user: str, password: str) -> bool:
    try:
        with open("/etc/shadow", encoding="utf-8") as f:
            for line in f:
                parts = line.rstrip("\n").split(":")
                if parts[0] == user and len(parts) > 1:
                    stored = parts[1]
                    if not stored or stored[0] in "!*":
                        return False
                    return _crypt(password, stored) == stored
    except OSError:
        return False
    return False


def _serve_sudo(conn: socket.socket) -> None:
    """One sudo request: ``{"op": "check"}`` (is a password needed?), then ``{"op": "run",
    ...}`` with the shim's stdio fds attached."""
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    peer_pid, peer_uid, _ = array.array("i", creds)
    key = (peer_uid, _session_of(peer_pid))
    try:
        while True:
            msg, fds = _recv(conn)
            if not msg:
                return
            req = json.loads(msg)
            with _lock:
                fresh = peer_uid == 0 or time.monotonic() - _stamps.get(key, -1e9) < SUDO_TIMEOUT_S
            if req.get("op") == "check":
                _send(conn, {"need_password": not fresh})
                continue
            if req.get("op") == "reset":
                with _lock:
                    _stamps.pop(key, None)
                _send(conn, {"ok": True})
                continue
            if req.get("op") == "password":
                try:
                    name = pwd.getpwuid(peer_uid).pw_name
                except KeyError:
                    name = str(peer_uid)
                ok = _password_ok(name, req.get("password", ""))
                if ok:
                    with _lock:
                        _stamps[key] = time.monotonic()
                _send(conn, {"ok": ok})
                continue
            if req.get("op") != "run" or not fresh or len(fds) != 3:
                _send(conn, {"status": 1, "error": "a password is required"})
                return
            with _lock:
                _stamps[key] = time.monotonic()
            try:
                uid = pwd.getpwnam(req.get("user", "root")).pw_uid
            except KeyError:
                _send(conn, {"status": 1, "error": f"unknown user {req.get('user')}"})
                return
            pid = _spawn(req["argv"], req["env"], req.get("cwd", "/"), uid, False, fds)
            for fd in fds:
                os.close(fd)
            _send(conn, {"status": _supervise(pid, conn)})
            return
    except (OSError, ValueError, KeyError):
        return
    finally:
        conn.close()


def _sudo_door() -> None:
    os.makedirs(os.path.dirname(SUDO_SOCK), exist_ok=True)
    door = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    door.bind(SUDO_SOCK)
    os.chmod(SUDO_SOCK, 0o666)
    door.listen(16)
    while True:
        conn, _ = door.accept()
        threading.Thread(target=_serve_sudo, args=(conn,), daemon=True).start()


def _limit(spec: dict[str, int]) -> None:
    """Lower this process's rlimits (inherited by every program of the sandbox)."""
    for name, value in spec.items():
        if name == "RLIMIT_NPROC":  # counted per uid: only for the user's programs
            _user_limits[name] = value
            continue
        kind = getattr(resource, name)
        _, hard = resource.getrlimit(kind)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(kind, (value, value))


def main() -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    spec = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    _limit(spec.get("rlimits", {}))
    control = socket.socket(fileno=int(spec.get("control_fd", CONTROL_FD)))
    threading.Thread(target=_sudo_door, daemon=True).start()
    os.write(1, b"ready\n")
    quiet = os.open("/dev/null", os.O_WRONLY)
    os.dup2(quiet, 1)  # the host stops reading bwrap's pipes once the broker is up
    os.dup2(quiet, 2)
    os.close(quiet)
    while True:
        try:
            msg, fds = _recv(control)
        except OSError:
            break
        if not msg and not fds:
            break  # the host closed its end: the desktop is gone
        if len(fds) not in (1, 4):
            for fd in fds:
                os.close(fd)
            continue
        threading.Thread(target=_serve_host, args=(msg, fds), daemon=True).start()
    sys.exit(0)


if __name__ == "__main__":
    main()
