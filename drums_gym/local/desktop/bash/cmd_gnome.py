"""GNOME's settings from the shell: ``gsettings`` and ``dconf`` over the desktop's
`settings_store.SettingsStore` (the user database in the simulated filesystem).

Output is what the real tools print: ``gsettings get`` a GVariant (``uint32 0``, ``true``,
``1.0``, ``['a.desktop']``), errors such as ``No such schema “org.foo”`` with status 1.
Under ``sudo`` they reach root's settings, not the user's: reads give the defaults and a
change is lost with dconf's warning, as on Ubuntu.
"""

from __future__ import annotations

from ...budget import charge
from ..settings_store import RELOCATABLE, ROOT_WARNING, SCHEMAS, SettingsError, SettingsStore
from .context import Ctx
from .opts import BadOption, parse_opts
from .registry import command

__all__: list[str] = []

_GSETTINGS_USAGE = """Usage:
  gsettings --version
  gsettings [--schemadir SCHEMADIR] COMMAND [ARGS…]

Commands:
  help                      Show this information
  list-schemas              List installed schemas
  list-relocatable-schemas  List relocatable schemas
  list-keys                 List keys in a schema
  list-children             List children of a schema
  list-recursively          List keys and values, recursively
  range                     Queries the range of a key
  describe                  Queries the description of a key
  get                       Get the value of a key
  set                       Set the value of a key
  reset                     Reset the value of a key
  reset-recursively         Reset all values in a given schema
  writable                  Check if a key is writable
  monitor                   Watch for changes

Use “gsettings help COMMAND” to get detailed help.
"""

#: Arguments each gsettings command takes (after the command's name).
_ARITY = {"get": 2, "set": 3, "reset": 2, "range": 2, "writable": 2, "describe": 2,
          "list-keys": 1, "list-children": 1, "list-recursively": (0, 1),
          "reset-recursively": 1, "list-schemas": 0, "list-relocatable-schemas": 0}



@command("gsettings")
def gsettings(ctx: Ctx, args: list[str]) -> int:
    if args[:1] == ["--version"]:
        ctx.out("2.72.4\n")
        return 0
    if not args or args[0] in ("help", "--help", "-h"):
        ctx.out(_GSETTINGS_USAGE)
        return 0
    name, rest = args[0], args[1:]
    want = _ARITY.get(name)
    if want is None:
        ctx.err(f"Unknown command {name}\n\n{_GSETTINGS_USAGE}".rstrip("\n"))
        return 1
    lo, hi = want if isinstance(want, tuple) else (want, want)
    if not lo <= len(rest) <= hi:
        ctx.err(f"Usage:\n  gsettings {name} {'SCHEMA[:PATH] KEY' if hi >= 2 else 'SCHEMA[:PATH]'}"
                f"{' VALUE' if hi == 3 else ''}")
        return 1
    store = SettingsStore(ctx.fs, root=ctx.root)
    try:
        return _run(ctx, store, name, rest)
    except SettingsError as exc:
        ctx.err(str(exc))
        return 0 if str(exc) == ROOT_WARNING else 1


def _run(ctx: Ctx, store: SettingsStore, name: str, rest: list[str]) -> int:
    if name == "list-schemas":
        ctx.out("".join(f"{s}\n" for s in SCHEMAS if s != "org.gnome.Terminal.Legacy.Profile"))
        return 0
    if name == "list-relocatable-schemas":
        ctx.out("org.gnome.Terminal.Legacy.Profile\n")
        return 0
    if name == "list-recursively":
        for schema in rest or [s for s in SCHEMAS if s not in RELOCATABLE]:
            for key in store.schema(schema):
                charge()
                ctx.out(f"{schema} {key} {store.get_text(schema, key)}\n")
        return 0
    schema = rest[0]
    if schema in RELOCATABLE:
        raise SettingsError(f"Schema “{schema}” is relocatable (path must be specified)")
    if name == "list-keys":
        ctx.out("".join(f"{k}\n" for k in store.schema(schema)))
        return 0
    if name == "list-children":
        store.schema(schema)
        return 0
    if name == "reset-recursively":
        store.reset_schema(schema)
        return 0
    key = rest[1]
    if name == "get":
        ctx.out(store.get_text(schema, key) + "\n")
    elif name == "set":
        store.set_text(schema, key, rest[2])
    elif name == "reset":
        store.reset(schema, key)
    elif name == "range":
        ctx.out(store.range_text(schema, key))
    elif name == "writable":
        store.key(schema, key)
        ctx.out("true\n")
    else:  # describe
        store.key(schema, key)
        ctx.out("\n")
    return 0


_DCONF_USAGE = ("error: unknown command\n\nUsage:\n  dconf COMMAND [ARGS...]\n\nCommands:\n"
                "  help              Show this information\n"
                "  read              Read the value of a key\n"
                "  list              List the contents of a dir\n"
                "  write             Change the value of a key\n"
                "  reset             Reset the value of a key or dir\n"
                "  dump              Dump an entire subpath to stdout\n")


@command("dconf")
def dconf(ctx: Ctx, args: list[str]) -> int:
    store = SettingsStore(ctx.fs, root=ctx.root)
    name, rest = (args[0], args[1:]) if args else ("", [])
    try:
        if name == "read" and rest:
            schema, key = store.by_path(rest[-1])
            text = store.user_text(schema, key)
            if text is None and "-d" in rest:
                text = store.get_text(schema, key)
            if text is not None:
                ctx.out(text + "\n")
            return 0
        if name == "write" and len(rest) == 2:
            schema, key = store.by_path(rest[0])
            store.set_text(schema, key, rest[1])
            return 0
        if name == "reset" and rest:
            target = rest[-1]
            if target.endswith("/"):
                prefix = target.strip("/").replace("/", ".")
                for schema in SCHEMAS:
                    if schema == prefix or schema.startswith(prefix + "."):
                        store.reset_schema(schema)
                return 0
            store.reset(*store.by_path(target))
            return 0
        if name == "dump" and rest:
            prefix = rest[0].strip("/").replace("/", ".")
            for schema in SCHEMAS:
                if not (prefix == "" or schema == prefix or schema.startswith(prefix + ".")):
                    continue
                lines = [f"{k}={v}" for k in SCHEMAS[schema]
                         if (v := store.user_text(schema, k)) is not None]
                if lines:
                    rel = schema[len(prefix):].lstrip(".").replace(".", "/") if prefix else \
                        schema.replace(".", "/")
                    ctx.out(f"[{rel or '/'}]\n" + "\n".join(lines) + "\n\n")
            return 0
    except SettingsError as exc:
        ctx.err(str(exc))
        return 0 if str(exc) == ROOT_WARNING else 1
    ctx.err(_DCONF_USAGE.rstrip("\n"))
    return 1


_GIO_TRASH_HELP = ("Usage:\n  gio trash [OPTION…] [LOCATION…]\n\n"
                   "Move files or directories to the trash.\n\nOptions:\n"
                   "  -f, --force     Ignore nonexistent files, never prompt\n"
                   "  --empty         Empty the trash\n"
                   "  --list          List files in the trash with their original locations")


@command("gio")
def gio(ctx: Ctx, args: list[str]) -> int:
    """``gio trash FILE...`` (to the Trash, with its .trashinfo), ``gio trash --empty``,
    ``gio trash --list``; ``gio open`` and ``gio info`` of what exists."""
    if not args:
        ctx.err("Usage:\n  gio COMMAND [ARGS…]\n\nCommands:\n  info   Show information "
                "about locations\n  open   Open files with the default application\n"
                "  trash  Move files or directories to the trash")
        return 1
    verb, rest = args[0], args[1:]
    fs = ctx.fs
    if verb == "trash":
        try:
            flags, names, _ = parse_opts("gio", rest, "f", {"force": "f", "empty": "E",
                                                             "list": "L"})
        except BadOption as exc:  # GOption's wording, then the subcommand's help
            ctx.err(f"gio: Unknown option {exc.option}\n\n{_GIO_TRASH_HELP}")
            return 1
        if "E" in flags:
            fs.empty_trash()
            return 0
        if "L" in flags:
            for item in fs.trash_items():
                ctx.out(f"trash:///{item.name}\t{item.original}\n")
            return 0
        force = "f" in flags
        if not names:
            ctx.err("gio: No locations given")
            return 1
        status = 0
        for name in names:
            charge()
            path = ctx.path(name[7:] if name.startswith("file://") else name)
            if not fs.exists(path):
                if not force:
                    ctx.err(f"gio: file://{path}: Error trashing file {path}: "
                            "No such file or directory")
                    status = 1
                continue
            if not ctx.may_change(path):
                ctx.err(f"gio: file://{path}: Error trashing file {path}: Permission denied")
                status = 1
                continue
            fs.trash(path)
        return status
    if verb in ("open", "info"):
        status = 0
        for name in rest:
            path = ctx.path(name[7:] if name.startswith("file://") else name)
            if "://" in name and not name.startswith("file://"):
                continue
            if not fs.exists(path):
                ctx.err(f"gio: file://{path}: Error when getting information for file "
                        f"“{path}”: No such file or directory")
                status = 1
            elif verb == "info":
                ctx.out(f"display name: {path.rsplit('/', 1)[-1]}\nname: "
                        f"{path.rsplit('/', 1)[-1]}\ntype: "
                        f"{'directory' if fs.is_dir(path) else 'regular'}\nsize:  "
                        f"{fs.stat(path).st_size}\nuri: file://{path}\n")
        return status
    ctx.err(f"gio: Unknown command {verb}")
    return 1
