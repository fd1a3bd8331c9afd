"""File mode arithmetic: the umask and chmod-style mode specifications."""

from __future__ import annotations

__all__ = ["UMASK", "parse_mode"]

UMASK = 0o002  # Ubuntu's default for users with a private group


def parse_mode(spec: str, old: int, is_dir: bool) -> int | None:
    """Apply a chmod mode (octal, or symbolic like ``u+x,go-w``) to ``old``; None if invalid.

    >>> oct(parse_mode("755", 0o644, False)), oct(parse_mode("u+x,go-r", 0o644, False))
    ('0o755', '0o700')
    """
    if spec and all(c in "01234567" for c in spec):
        return int(spec, 8) if len(spec) <= 4 else None
    mode = old
    for clause in spec.split(","):
        i = 0
        who = ""
        while i < len(clause) and clause[i] in "ugoa":
            who += clause[i]
            i += 1
        if i >= len(clause):
            return None
        mask = 0
        for w in who or "a":
            mask |= {"u": 0o4700, "g": 0o2070, "o": 0o1007, "a": 0o7777}[w]
        if not who:
            mask &= ~UMASK
        while i < len(clause):
            op = clause[i]
            if op not in "+-=":
                return None
            i += 1
            perm = 0
            while i < len(clause) and clause[i] in "rwxXstugo":
                c = clause[i]
                if c in "ugo":
                    shift = {"u": 6, "g": 3, "o": 0}[c]
                    bits = (mode >> shift) & 7
                    perm |= bits << 6 | bits << 3 | bits
                else:
                    x_ok = c == "x" or (c == "X" and (is_dir or mode & 0o111))
                    perm |= {"r": 0o444, "w": 0o222, "s": 0o6000, "t": 0o1000}.get(c, 0)
                    perm |= 0o111 if x_ok else 0
                i += 1
            if op == "+":
                mode |= perm & mask
            elif op == "-":
                mode &= ~(perm & mask)
            else:
                keep = 0o7777 & ~(mask if who else 0o7777)
                mode = (mode & keep) | (perm & mask)
    return mode & 0o7777
