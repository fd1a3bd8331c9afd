"""Stream editors of a pipeline: ``sed`` (s, d, p, q with line, ``$`` and /regex/
addresses; ``-n``, ``-i``, ``-e``, ``-E``), ``awk`` (``print``/``printf``-free programs:
patterns, ``{print ...}`` of fields, ``NR``, ``NF``, strings; ``-F``; ``BEGIN``/``END``),
``cut`` (``-d``/``-f``, ``-c``/``-b``) and ``tr`` (sets, ranges, classes, ``-d``, ``-s``).

Patterns are RE2 (`regexes`): linear time, no back-references. A program these cannot run
is refused with the tool's own kind of message, never run in part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ...budget import charge
from .cmd_grep import _bre
from .cmd_text import read_text
from .context import Ctx
from .regexes import RegexError, compile_regex
from .registry import Args, Opts, command

__all__: list[str] = []


# -- sed --------------------------------------------------------------------------------

@dataclass
class _SedCmd:
    addr: tuple[str, str] | None  # ("line", "3") / ("last", "") / ("re", pattern)
    op: str  # s d p q
    regex: Any = None
    repl: str = ""
    global_: bool = False
    nth: int = 1
    print_: bool = False
    addr_regex: Any = None


class _SedError(Exception):
    pass


def _split_delim(text: str, i: int, delim: str) -> tuple[str, int]:
    out = []
    while i < len(text) and text[i] != delim:
        if text[i] == "\\" and i + 1 < len(text):
            out.append(text[i:i + 2] if text[i + 1] != delim else delim)
            i += 2
            continue
        out.append(text[i])
        i += 1
    if i >= len(text):
        raise _SedError("unterminated `s' command")
    return "".join(out), i + 1


def _sed_regex(pattern: str, extended: bool, icase: bool = False) -> Any:
    try:
        return compile_regex(pattern if extended else _bre(pattern), icase)
    except RegexError as exc:
        raise _SedError(str(exc)) from None


def _sed_parse(script: str, extended: bool) -> list[_SedCmd]:
    cmds: list[_SedCmd] = []
    i = 0
    while i < len(script):
        charge()
        while i < len(script) and script[i] in " \t\n;":
            i += 1
        if i >= len(script):
            break
        addr: tuple[str, str] | None = None
        if script[i].isdigit():
            j = i
            while j < len(script) and script[j].isdigit():
                j += 1
            addr, i = ("line", script[i:j]), j
        elif script[i] == "$":
            addr, i = ("last", ""), i + 1
        elif script[i] == "/":
            pat, i = _split_delim(script, i + 1, "/")
            addr = ("re", pat)
        op = script[i] if i < len(script) else ""
        cmd = _SedCmd(addr, op)
        if addr is not None and addr[0] == "re":
            cmd.addr_regex = _sed_regex(addr[1], extended)
        if op == "s":
            if i + 1 >= len(script):
                raise _SedError("unterminated `s' command")
            delim = script[i + 1]
            pat, i = _split_delim(script, i + 2, delim)
            repl, i = _split_delim(script, i, delim)
            icase = False
            while i < len(script) and script[i] not in ";\n }":
                f = script[i]
                if f == "g":
                    cmd.global_ = True
                elif f == "p":
                    cmd.print_ = True
                elif f in "iI":
                    icase = True
                elif f.isdigit():
                    cmd.nth = int(f)
                else:
                    raise _SedError("unknown option to `s'")
                i += 1
            cmd.regex = _sed_regex(pat, extended, icase)
            cmd.repl = repl
            cmds.append(cmd)
        elif op in ("d", "p", "q"):
            cmds.append(cmd)
            i += 1
        else:
            raise _SedError(f"unknown command: `{op}'" if op else "missing command")
    return cmds


def _expand_repl(repl: str, m: Any, extended: bool) -> str:
    out = []
    i = 0
    while i < len(repl):
        c = repl[i]
        if c == "\\" and i + 1 < len(repl):
            nxt = repl[i + 1]
            if nxt.isdigit():
                out.append(m.group(int(nxt)) or "")
            else:
                out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            i += 2
            continue
        out.append(m.group(0) if c == "&" else c)
        i += 1
    return "".join(out)


def _substitute(cmd: _SedCmd, line: str, extended: bool) -> tuple[str, bool]:
    out, pos, count, changed = [], 0, 0, False
    for m in cmd.regex.finditer(line):
        charge()
        count += 1
        if count < cmd.nth:
            continue
        out.append(line[pos:m.start()])
        out.append(_expand_repl(cmd.repl, m, extended))
        pos = m.end()
        changed = True
        if not cmd.global_:
            break
    if not changed:
        return line, False
    out.append(line[pos:])
    return "".join(out), True


def _addressed(cmd: _SedCmd, line: str, n: int, last: bool) -> bool:
    if cmd.addr is None:
        return True
    kind, value = cmd.addr
    if kind == "line":
        return n == int(value)
    if kind == "last":
        return last
    return cmd.addr_regex.search(line) is not None


def _sed_run(cmds: list[_SedCmd], text: str, quiet: bool, extended: bool) -> str:
    lines = text.split("\n")
    trailing = text.endswith("\n")
    if trailing:
        lines.pop()
    out: list[str] = []
    for k, line in enumerate(lines, start=1):
        charge()
        last, deleted = k == len(lines), False
        for cmd in cmds:
            if not _addressed(cmd, line, k, last):
                continue
            if cmd.op == "s":
                line, changed = _substitute(cmd, line, extended)
                if changed and cmd.print_:
                    out.append(line)
            elif cmd.op == "d":
                deleted = True
                break
            elif cmd.op == "p":
                out.append(line)
            elif cmd.op == "q":
                if not quiet:
                    out.append(line)
                return "\n".join(out) + ("\n" if out else "")
        if not deleted and not quiet:
            out.append(line)
    return "\n".join(out) + ("\n" if out else "")


@command("sed", opts=Opts("nieEr", {"quiet": "n", "silent": "n", "in-place": "i",
                                     "expression": "e", "regexp-extended": "E"},
                          with_value="e"))
def sed(ctx: Ctx, a: Args) -> int:
    scripts = a.all_values.get("e", [])
    files = list(a.operands)
    if not scripts:
        if not files:
            ctx.err("Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...")
            return 1
        scripts = [files.pop(0)]
    extended = bool(a.flags & {"E", "r"})
    try:
        cmds = _sed_parse("\n".join(scripts), extended)
    except _SedError as exc:
        ctx.err(f"sed: -e expression #1, char {len(scripts[0])}: {exc}")
        return 1
    quiet = "n" in a.flags
    status = 0
    if "i" in a.flags:
        if not files:
            ctx.err("sed: no input files")
            return 1
        for f in files:
            text = read_text(ctx, "sed: can't read", f)
            if text is None:
                status = 2
                continue
            if not ctx.may(ctx.path(f), "w"):
                ctx.err(f"sed: couldn't open temporary file {f}: Permission denied")
                status = 4
                continue
            ctx.fs.write_file(ctx.path(f), _sed_run(cmds, text, quiet, extended))
        return status
    texts = []
    for f in files or ["-"]:
        text = read_text(ctx, "sed: can't read", f)
        if text is None:
            status = 2
            continue
        texts.append(text if text.endswith("\n") or not text else text + "\n")
    ctx.out(_sed_run(cmds, "".join(texts), quiet, extended))
    return status


# -- awk --------------------------------------------------------------------------------

_AWK_TOKEN = re.compile(r'\s*(\$\d+|\$NF|\$\(NF-\d+\)|NR|NF|"(?:[^"\\]|\\.)*"|,|[^\s,]+)')


@dataclass
class _AwkRule:
    when: str  # "BEGIN", "END", "" (every line), or a regex / comparison
    items: list[str]  # print arguments (empty: print $0)
    regex: Any = None


class _AwkError(Exception):
    pass


def _awk_parse(program: str) -> list[_AwkRule]:
    rules: list[_AwkRule] = []
    s = program.strip()
    while s:
        charge()
        when, regex = "", None
        if s.startswith("BEGIN") or s.startswith("END"):
            when = "BEGIN" if s.startswith("BEGIN") else "END"
            s = s[len(when):].lstrip()
        elif s.startswith("/"):
            end = s.find("/", 1)
            while end > 0 and s[end - 1] == "\\":
                end = s.find("/", end + 1)
            if end < 0:
                raise _AwkError("unterminated regexp")
            try:
                regex = compile_regex(s[1:end])
            except RegexError as exc:
                raise _AwkError(str(exc)) from None
            when, s = "re", s[end + 1:].lstrip()
        if not s.startswith("{"):
            if when == "re" and (not s or s.startswith(";")):
                rules.append(_AwkRule(when, [], regex))
                s = s[1:].lstrip() if s else ""
                continue
            raise _AwkError("syntax error")
        end = s.find("}")
        if end < 0:
            raise _AwkError("unexpected newline or end of string")
        body, s = s[1:end].strip().rstrip(";").strip(), s[end + 1:].lstrip().lstrip(";")
        if body and not body.startswith("print"):
            raise _AwkError(f"only print statements are supported here, not {body!r}")
        rest = body[5:].strip() if body else ""
        if rest.startswith("(") and rest.endswith(")"):
            rest = rest[1:-1]
        items = [m.group(1) for m in _AWK_TOKEN.finditer(rest)] if body else None
        rules.append(_AwkRule(when, items if items is not None else ["<none>"], regex))
    return rules


def _awk_value(item: str, fields: list[str], line: str, nr: int) -> str:
    if item == "$0":
        return line
    if item.startswith("$("):
        k = len(fields) - int(item[5:-1])
        return fields[k - 1] if 1 <= k <= len(fields) else ""
    if item == "$NF":
        return fields[-1] if fields else ""
    if item.startswith("$"):
        if not item[1:].isdigit():
            raise _AwkError(f"unsupported expression {item!r}")
        k = int(item[1:])
        return line if k == 0 else (fields[k - 1] if k <= len(fields) else "")
    if item == "NR":
        return str(nr)
    if item == "NF":
        return str(len(fields))
    if item.startswith('"') and item.endswith('"'):
        return item[1:-1].replace("\\t", "\t").replace("\\n", "\n").replace('\\"', '"')
    raise _AwkError(f"unsupported expression {item!r}")


def _awk_print(rule: _AwkRule, fields: list[str], line: str, nr: int) -> str:
    if rule.items == ["<none>"]:
        return ""
    if not rule.items:
        return line + "\n"
    parts: list[str] = []
    sep = False
    for item in rule.items:
        if item == ",":
            sep = True
            continue
        value = _awk_value(item, fields, line, nr)
        parts.append((" " if sep and parts else "") + value)
        sep = False
    return "".join(parts) + "\n"


@command("awk", "gawk", "mawk", opts=Opts("Fv", {"field-separator": "F"}, with_value="Fv"))
def awk(ctx: Ctx, a: Args) -> int:
    if not a.operands:
        ctx.err("usage: awk [-F fs][-v var=value][prog | -f progfile][file ...]")
        return 2
    program, files = a.operands[0], a.operands[1:]
    try:
        rules = _awk_parse(program)
    except _AwkError as exc:
        ctx.err(f"awk: cmd. line:1: {exc}")
        return 2
    sep = a.values.get("F")
    splitter = None
    if sep is not None and sep != " ":
        sep = "\t" if sep == "\\t" else sep
        splitter = compile_regex(re.escape(sep) if len(sep) == 1 else sep)
    texts = []
    status = 0
    for f in files or ["-"]:
        text = read_text(ctx, "awk: cannot open", f)
        if text is None:
            status = 2
            continue
        texts.append(text)
    nr = 0
    try:
        for rule in rules:
            if rule.when == "BEGIN":
                ctx.out(_awk_print(rule, [], "", 0))
        for text in texts:
            for line in text.splitlines():
                charge()
                nr += 1
                fields = (line.split() if splitter is None else splitter.split(line))
                for rule in rules:
                    if rule.when in ("BEGIN", "END"):
                        continue
                    if rule.when == "re" and rule.regex.search(line) is None:
                        continue
                    ctx.out(_awk_print(rule, fields, line, nr))
        for rule in rules:
            if rule.when == "END":
                ctx.out(_awk_print(rule, [], "", nr))
    except _AwkError as exc:
        ctx.err(f"awk: cmd. line:1: {exc}")
        return 2
    return status


# -- cut --------------------------------------------------------------------------------

def _ranges(spec: str) -> list[tuple[int, int]] | None:
    out = []
    for part in spec.split(","):
        lo, dash, hi = part.partition("-")
        try:
            a = int(lo) if lo else 1
            b = (int(hi) if hi else 1 << 30) if dash else a
        except ValueError:
            return None
        if a < 1 or b < a:
            return None
        out.append((a, b))
    return out


@command("cut", opts=Opts("d:f:c:b:s", {"delimiter": "d", "fields": "f", "characters": "c",
                                         "bytes": "b", "only-delimited": "s"},
                          with_value="dfcb"))
def cut(ctx: Ctx, a: Args) -> int:
    mode = next((m for m in "fcb" if m in a.values), None)
    if mode is None:
        ctx.err("cut: you must specify a list of bytes, characters, or fields\n"
                "Try 'cut --help' for more information.")
        return 1
    ranges = _ranges(a.values[mode])
    if ranges is None:
        ctx.err(f"cut: invalid field value ‘{a.values[mode]}’\n"
                "Try 'cut --help' for more information.")
        return 1
    delim = a.values.get("d", "\t")
    if len(delim) != 1:
        ctx.err("cut: the delimiter must be a single character\n"
                "Try 'cut --help' for more information.")
        return 1

    def keep(n: int) -> bool:
        return any(lo <= n <= hi for lo, hi in ranges)

    status = 0
    for f in a.operands or ["-"]:
        text = read_text(ctx, "cut", f)
        if text is None:
            status = 1
            continue
        for line in text.splitlines():
            charge()
            if mode == "f":
                if delim not in line:
                    if "s" not in a.flags:
                        ctx.out(line + "\n")
                    continue
                parts = line.split(delim)
                ctx.out(delim.join(p for k, p in enumerate(parts, 1) if keep(k)) + "\n")
            else:
                ctx.out("".join(c for k, c in enumerate(line, 1) if keep(k)) + "\n")
    return status


# -- tr ---------------------------------------------------------------------------------

_CLASSES = {
    "alpha": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "lower": "abcdefghijklmnopqrstuvwxyz",
    "digit": "0123456789", "space": " \t\n\r\v\f", "blank": " \t",
    "alnum": "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "punct": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
}


def _tr_set(spec: str) -> str | None:
    out: list[str] = []
    i = 0
    escapes = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "v": "\v", "f": "\f"}
    while i < len(spec):
        charge()
        m = re.match(r"\[:(\w+):\]", spec[i:])
        if m:
            cls = _CLASSES.get(m.group(1))
            if cls is None:
                return None
            out.append(cls)
            i += m.end()
            continue
        c = spec[i]
        if c == "\\" and i + 1 < len(spec):
            c = escapes.get(spec[i + 1], spec[i + 1])
            i += 1
        if i + 2 < len(spec) and spec[i + 1] == "-":
            hi = spec[i + 2]
            if ord(hi) < ord(c):
                return None
            out.append("".join(chr(k) for k in range(ord(c), ord(hi) + 1)))
            i += 3
            continue
        out.append(c)
        i += 1
    return "".join(out)


@command("tr", opts=Opts("dsc", {"delete": "d", "squeeze-repeats": "s", "complement": "c"}))
def tr(ctx: Ctx, a: Args) -> int:
    sets = [_tr_set(s) for s in a.operands]
    if not a.operands or any(s is None for s in sets):
        ctx.err("tr: missing operand\nTry 'tr --help' for more information." if not a.operands
                else "tr: invalid character class or range")
        return 1
    text = ctx.io.stdin
    charge(1 + len(text) // 256)
    first = sets[0] or ""
    if "d" in a.flags:
        drop = set(first)
        text = "".join(c for c in text if (c in drop) == ("c" in a.flags))
        squeeze = set(sets[1] or "") if len(sets) > 1 else set()
    elif len(sets) >= 2:
        second = sets[1] or ""
        if not second:
            ctx.err("tr: when not truncating set1, string2 must be non-empty")
            return 1
        table = {c: second[min(k, len(second) - 1)] for k, c in enumerate(first)}
        text = "".join(table.get(c, c) for c in text)
        squeeze = set(second)
    else:
        if "s" not in a.flags:
            ctx.err(f"tr: missing operand after ‘{a.operands[0]}’\n"
                    "Two strings must be given when translating.")
            return 1
        squeeze = set(first)
    if "s" in a.flags and squeeze:
        out: list[str] = []
        for c in text:
            if not (out and out[-1] == c and c in squeeze):
                out.append(c)
        text = "".join(out)
    ctx.out(text)
    return 0
