"""OSWorld task files on the local host: loader, config steps, getters, metrics, catalog."""

from __future__ import annotations

import copy
import doctest
import hashlib
import importlib
import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from drums_gym.actions import expand, parse
from drums_gym.local.desktop import Desktop
from drums_gym.local.desktop.terminal import TerminalWindow
from drums_gym.local.desktop.terminal_pty import PtyTerminalWindow
from drums_gym.local.tasks import (
    BUNDLED,
    CATALOG,
    ENV_TASKS,
    TaskFileError,
    build_catalog,
    get_task,
    load_task_data,
    load_task_file,
)
from drums_gym.local.tasks.evaluator import load_evaluator
from drums_gym.local.tasks.getters import GETTERS
from drums_gym.local.tasks.metrics import METRICS, parse_string_list
from drums_gym.local.tasks.shell import run_command
from drums_gym.local.tasks.steps import load_steps, run_steps

ROOT = Path(__file__).resolve().parents[3]
DATA = Path(__file__).resolve().parents[2] / "data"
TASKS_DATA = ROOT / "drums_gym" / "local" / "tasks" / "data"
MAKE_ROOT_DIR = DATA / "43c2d64c-bab5-4dcb-a30c-b888321c319a.json"  # OSWorld, not bundled
HOME = "/home/user"


def steps(*raw: dict[str, Any], task_id: str = "0123abcd") -> Any:
    return load_steps(list(raw), "test", task_id, "config")


def task_data(**evaluator: Any) -> dict[str, Any]:
    return {"id": "0123abcd-aaaa-4bbb-8ccc-000000000000", "instruction": "Do it",
            "config": [], "evaluator": evaluator}


def rule(expected: Any) -> dict[str, Any]:
    return {"type": "rule", "rules": {"expected": expected}}


def shell_line(command: str) -> dict[str, Any]:
    return {"type": "vm_command_line", "command": command, "shell": True}


# -- the bundled files ------------------------------------------------------------

def test_bundled_tasks_are_the_osworld_files_with_their_license() -> None:
    folder = TASKS_DATA / "os"
    assert sorted(p.stem for p in folder.glob("*.json")) == sorted(BUNDLED)
    assert "Apache License" in (folder / "LICENSE").read_text()
    assert "OSWorld" in (folder / "NOTICE").read_text()
    for task_id in BUNDLED:
        data = json.loads((folder / f"{task_id}.json").read_text())
        task = CATALOG[task_id]
        assert data["id"] == task.id and data["instruction"] == task.instruction
        assert task.source.endswith(f"{task_id}.json")
        assert task.infeasible == (data["evaluator"]["func"] == "infeasible")


def test_tasks_modules_run_their_examples() -> None:
    for name in ("", ".shell", ".registry", ".downloads", ".steps", ".metrics", ".loader",
                 ".media"):
        module = importlib.import_module("drums_gym.local.tasks" + name)
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.attempted > 0 and result.failed == 0, name


def test_an_agent_blocking_a_postconfig_download_scores_zero_not_an_error() -> None:
    task = get_task("6f56bf42")
    d = task.create_desktop()
    task.setup(d)
    for i in (1, 2, 3):
        d.fs.copy("~/file1", f"~/dir{i}/file1")
    assert task.check(d) == 1.0
    d.fs.mkdir("~/eval.sh")  # postconfig cannot write eval.sh; `bash eval.sh` fails
    assert task.check(d) == 0.0


def test_check_leaves_the_desktop_as_it_was() -> None:
    task = get_task("6f56bf42")  # postconfig downloads eval.sh into the home folder
    d = task.create_desktop()
    task.setup(d)
    frame, names = d.frame, d.fs.listdir("~")
    assert task.check(d) == 0.0 and task.check(d) == 0.0
    assert d.fs.listdir("~") == names and d.frame == frame and "eval.sh" not in names


def test_reconstructed_scripts_are_what_setup_downloads() -> None:
    task = get_task("4d117223")
    d = task.create_desktop()
    task.setup(d)
    text = d.fs.read_file("~/setup.sh").decode()
    assert text == (TASKS_DATA / "scripts" / "4d117223" / "setup.sh").read_text()
    assert "Reconstructed by drums-gym" in text
    assert d.fs.stat("~/setup.sh").st_mode & 0o777 == 0o775  # chmod +x of a 664 download
    (term,) = [w for w in d.windows if isinstance(w, TerminalWindow)]
    cwd = term.shell_cwd() if isinstance(term, PtyTerminalWindow) else term.session.state.cwd
    assert cwd == f"{HOME}/testDir"  # typed `cd testDir` and `clear`


# -- load-time refusals -----------------------------------------------------------

@pytest.mark.parametrize(("change", "named"), [
    ({"func": "vm_magic"}, "unknown metric 'vm_magic'"),
    ({"result": {"type": "vm_file", "path": "x"}}, "unknown getter 'vm_file'"),
    ({"expected": {"type": "rules2"}}, "unknown getter 'rules2'"),
    ({"conj": "xor"}, "conj"),
    ({"postconfig": [{"type": "launch", "parameters": {"command": ["gedit"]}}]},
     "unknown config step type 'launch'"),
    ({"func": ""}, "no metric"),
    ({"result": {"type": "vm_command_line"}}, "needs 'command'"),
    ({"result": {"type": "vm_command_line", "command": ["python3", "-c", "print(1)"]}},
     "evaluator.result: the command .* runs Python"),
    ({"func": ["exact_match", "exact_match"]}, "list of 2"),
])
def test_a_task_file_naming_what_the_host_lacks_is_refused_naming_it(
        tmp_path: Path, change: dict[str, Any], named: str) -> None:
    evaluator = {"func": "exact_match", "result": shell_line("echo hi"),
                 "expected": rule("hi\n"), **change}
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(task_data(**evaluator)))
    with pytest.raises(TaskFileError, match=named) as info:
        load_task_file(path)
    assert str(path) in str(info.value) and info.value.source == str(path)


@pytest.mark.parametrize(("step", "named"), [
    ({"type": "open_app", "parameters": {}}, "unknown config step type 'open_app'"),
    ({"type": "execute", "parameters": {"command": "echo password | sudo -S dpkg -i "
                                                   "zsh.deb && chsh -s $(which zsh) && ls",
                                        "shell": True}}, "needs dpkg, chsh, which the"),
    ({"type": "download", "parameters": {"files": [{"url": "u", "path": "~/a.cpp"}]}},
     "no local stand-in for the download of '~/a.cpp'"),
    ({"type": "execute", "parameters": {"command": ["python3", "install.py"]}}, "runs Python"),
    ({"type": "execute", "parameters": {"command": "python -m http.server", "shell": True}},
     "runs Python"),
    ({"type": "execute", "parameters": {"command": ["python", "-c", "import os; os.remove('x')"]}},
     "pyautogui code is not supported.*import of 'os'"),
    ({"type": "execute", "parameters": {"command": 3}}, "command must be"),
    ({"type": "sleep", "parameters": {"seconds": "1"}}, "seconds"),
    ({"type": "activate_window", "parameters": {}}, "window_name"),
])
def test_config_steps_are_checked_on_load(step: dict[str, Any], named: str) -> None:
    data = {**task_data(func="infeasible"), "config": [step]}
    with pytest.raises(TaskFileError, match=named) as info:
        load_task_data(data, "their.json")
    assert str(info.value).startswith("their.json: config[0]")


def test_a_downloaded_script_needing_missing_commands_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from drums_gym.local.tasks import downloads

    step = {"type": "download", "parameters": {"files": [{"url": "u", "path": "run.sh"}]}}
    monkeypatch.setitem(downloads.BY_NAME, "run.sh", lambda: b"#!/bin/bash\nls -l\n")
    assert len(steps(step)) == 1
    monkeypatch.setitem(downloads.BY_NAME, "run.sh", lambda: b"#!/bin/bash\ndpkg -l | wc\n")
    with pytest.raises(TaskFileError, match=r"config\[0\] \(download\): run\.sh: needs dpkg"):
        steps(step)


def test_osworld_files_the_simulator_cannot_run_are_refused(tmp_path: Path) -> None:
    # 0b35aee5 installs astyle (apt-get has no such package here) and grades a download
    with pytest.raises(TaskFileError, match="no local stand-in for the download"):
        load_task_file(DATA / "0b35aee5-6f2a-4c71-b2da-aed0105fdbde.json")
    with pytest.raises(TaskFileError, match="no metric"):  # 5c433d22 has an empty func
        load_task_file(DATA / "5c433d22-ed9a-4e31-91f5-54cf3e8acd63.json")
    # ddc75b62 reads `dpkg -l | grep mahjongg`: without dpkg its no-op would pass the check
    with pytest.raises(TaskFileError, match=r"evaluator\.result: needs dpkg, which the "):
        load_task_file(DATA / "ddc75b62-7311-4af8-bfb3-859558542b36.json")
    bad = tmp_path / "broken.json"
    bad.write_text("{not json")
    with pytest.raises(TaskFileError, match=r"broken\.json: not a JSON task file"):
        load_task_file(bad)
    with pytest.raises(TaskFileError, match=r"nowhere\.json: no such task file"):
        build_catalog([tmp_path / "nowhere.json"])


# -- config steps -----------------------------------------------------------------

def test_execute_runs_shell_strings_and_argv_in_the_home_folder() -> None:
    d = Desktop()
    run_steps(d, steps(
        {"type": "execute", "parameters": {"command": "echo password | sudo -S mkdir /x "
                                                      "&& echo hi > note", "shell": True}},
        {"type": "execute", "parameters": {"command": ["mkdir", "-p", "~/a b/c"]}},
        {"type": "execute", "parameters": {"command": "touch 'a b/c/d'"}},  # split, no shell
    ), "0123abcd")
    assert d.fs.is_dir("/x") and d.fs.read_file("~/note") == b"hi\n"
    assert d.fs.is_file("~/a b/c/d")


def test_pyautogui_commands_go_through_the_action_language() -> None:
    d, twin = Desktop(), Desktop()
    code = "import pyautogui; import time; pyautogui.click(300, 400); time.sleep(2); " \
           "pyautogui.hotkey('ctrl', 'alt', 't')"
    run_steps(d, steps({"type": "execute", "parameters": {"command": ["python", "-c", code]}}),
              "0123abcd")
    twin.apply(expand(parse(code), pointer=twin.pointer))
    assert d.pointer == twin.pointer == (300, 400)
    assert d.clock == 0.0 and twin.clock == 2.0  # setups take no simulated time
    assert isinstance(d.active_window(), TerminalWindow)
    as_string = f'python -c "{code}"'  # the same command as one shell string
    third = Desktop()
    run_steps(third, steps({"type": "execute", "parameters": {"command": as_string,
                                                              "shell": True}}), "0123abcd")
    assert third.pointer == (300, 400) and isinstance(third.active_window(), TerminalWindow)


def test_download_writes_a_file_of_the_same_name_and_kind() -> None:
    d = Desktop()
    run_steps(d, steps({"type": "download", "parameters": {"files": [
        {"url": "https://example.invalid/1", "path": "/home/user/Pictures/new/beach.jpg"},
        {"url": "https://example.invalid/2", "path": "~/Desktop/poster_party_night.webp"},
    ]}}), "0123abcd")
    for path, fmt in [("~/Pictures/new/beach.jpg", "JPEG"),
                      ("~/Desktop/poster_party_night.webp", "WEBP")]:
        with Image.open(io.BytesIO(d.fs.read_file(path)), formats=[fmt]) as img:
            assert img.format == fmt


def test_activate_window_and_sleep() -> None:
    d = Desktop()
    term = d.open_terminal()
    d.open_folder(HOME)
    assert d.active_window() is not term
    before = d.clock
    run_steps(d, steps({"type": "activate_window", "parameters": {"window_name": "Terminal"}},
                       {"type": "sleep", "parameters": {"seconds": 2.5}},
                       {"type": "activate_window", "parameters": {"window_name": "Nothing"}}),
              "0123abcd")
    assert d.active_window() is term and d.clock == before  # the simulator needs no settling


def test_gio_trash_is_bridged_until_the_shell_has_it() -> None:
    d = Desktop()
    d.fs.write_file("~/Desktop/a.txt", "x")
    assert run_command(d, "gio trash /home/user/Desktop/a.txt").status == 0
    assert [i.original for i in d.fs.trash_items()] == [f"{HOME}/Desktop/a.txt"]
    missing = run_command(d, "gio trash ~/Desktop/none")
    assert missing.status == 1 and "Error trashing" in missing.stderr


# -- getters ----------------------------------------------------------------------

def test_vm_command_line_is_the_stdout_of_the_command() -> None:
    d = Desktop()
    d.fs.mkdir("~/Desktop/x")
    get = GETTERS["vm_command_line"]
    assert get(d, shell_line("[ -d ~/Desktop/x ] && echo yes || echo no; ls nope")) == "yes\n"
    assert get(d, {"type": "vm_command_line", "command": ["ls", "~/Desktop"]}) == "x\n"
    assert get(d, shell_line("pwd; exit 3")) == f"{HOME}\n"


def test_vm_terminal_output_is_the_focused_terminal_text() -> None:
    d = Desktop()
    get = GETTERS["vm_terminal_output"]
    assert get(d, {}) is None
    d.apply(expand(parse("pyautogui.hotkey('ctrl', 'alt', 't')\n"
                         "pyautogui.write('echo drums-$((6*7))\\n')"), pointer=d.pointer))
    text = get(d, {})
    assert "drums-42" in text and text == text.rstrip()
    d.open_folder(HOME)  # the terminal loses the focus
    assert get(d, {}) is None


def test_list_directory_is_a_tree_and_missing_is_file_not_found() -> None:
    d = Desktop()
    d.fs.mkdir("~/t/sub", parents=True)
    d.fs.write_file("~/t/a.jpg", b"")
    d.fs.write_file("~/t/sub/b", b"")
    tree = GETTERS["list_directory"](d, {"path": "/home/user/t"})
    assert tree == {"type": "directory", "name": "t", "children": [
        {"type": "file", "name": "a.jpg"},
        {"type": "directory", "name": "sub", "children": [{"type": "file", "name": "b"}]}]}
    with pytest.raises(FileNotFoundError):
        GETTERS["list_directory"](d, {"path": "/home/user/none"})
    ev = load_evaluator({"func": "check_moved_jpgs", "result": {"type": "list_directory",
                         "path": "/home/user/none"}, "expected": rule([])}, "t", "0123abcd")
    assert ev.score(d, "0123abcd") == 0.0


def test_rule_and_calc_insensitive_md5() -> None:
    d = Desktop()
    assert GETTERS["rule"](d, {"rules": {"expected": [1]}}) == {"expected": [1]}
    get = GETTERS["calc_insensitive_md5"]
    d.fs.write_file("~/Desktop/submission.cpp", "int main() {\n  return 0; // done\n}\n")
    first = get(d, {})
    d.fs.write_file("~/Desktop/submission.cpp", "/* header */ int main(){return 0;}")
    assert get(d, {}) == first == {"include": [hashlib.md5(b"intmain(){return0;}").hexdigest()],
                                   "exclude": []}
    d.fs.write_file("~/Desktop/submission.cpp", "int main(){return 1;}")
    assert get(d, {}) != first
    with pytest.raises(FileNotFoundError):
        get(d, {"path": "~/none.cpp"})


# -- metrics ----------------------------------------------------------------------

def test_exact_match_and_include_exclude() -> None:
    assert METRICS["exact_match"]("Directory exists.\n", {"expected": "Directory exists.\n"}) == 1
    assert METRICS["exact_match"]("Directory exists.", {"expected": "Directory exists.\n"}) == 0
    assert METRICS["exact_match"](None, {"expected": "x"}) == 0.0
    inc = METRICS["check_include_exclude"]
    assert inc("a b c", {"include": ["a", "c"], "exclude": ["d"]}) == 1.0
    assert inc("a b c d", {"include": ["a"], "exclude": ["d"]}) == 0.0
    assert inc("a", {"include": ["b"]}) == 0.0 and inc(None, {"include": []}) == 0.0


def test_infeasible_tasks_score_zero_from_the_desktop_alone() -> None:
    task = load_task_file(DATA / "4783cc41-c03c-4e1b-89b4-50658f642bd5.json")
    assert task.infeasible and not get_task("e0df059f").infeasible
    d = task.create_desktop()
    task.setup(d)
    assert d.fs.is_dir("~/Desktop/dir1/dir2") and d.fs.is_dir("~/Desktop/dir3/dir4")
    assert isinstance(d.active_window(), TerminalWindow)
    assert task.check(d) == 0.0 and METRICS["infeasible"]() == 0.0


def test_check_moved_jpgs_wants_the_same_names_and_count() -> None:
    m = METRICS["check_moved_jpgs"]
    tree = {"children": [{"name": "a.jpg"}, {"name": "b.jpg"}]}
    assert m(tree, {"expected": ["b.jpg", "a.jpg"]}) == 1.0
    assert m(tree, {"expected": ["a.jpg"]}) == 0.0
    assert m(tree, {"expected": ["a.jpg", "c.jpg"]}) == 0.0
    assert m(None, {"expected": []}) == 0.0


def test_text_enlarged_and_utc() -> None:
    assert METRICS["check_text_enlarged"]("1.25\n") == 1.0
    assert METRICS["check_text_enlarged"]("1.0") == 0.0
    assert METRICS["check_text_enlarged"]("large") == 0.0
    status = textwrap.dedent("""\
                       Local time: Thu 2024-01-25 12:56:06 WET
                   Universal time: Thu 2024-01-25 12:56:06 UTC
                         RTC time: Thu 2024-01-25 12:56:05
                        Time zone: Atlantic/Faroe (WET, +0000)
        System clock synchronized: yes
        """)
    assert METRICS["is_utc_0"](status) == 1.0
    assert METRICS["is_utc_0"](status.replace("+0000", "+0100")) == 0.0
    assert METRICS["is_utc_0"]("Time zone: UTC (UTC, +0000)") == 0.0  # not line 4


def test_favorite_apps_are_parsed_never_evaluated(tmp_path: Path) -> None:
    m = METRICS["check_gnome_favorite_apps"]
    expected = {"expected": ["thunderbird.desktop", "org.gnome.Nautilus.desktop"]}
    assert m("['org.gnome.Nautilus.desktop', 'thunderbird.desktop']\n", expected) == 1.0
    assert m("['thunderbird.desktop']", expected) == 0.0
    assert m("['thunderbird.desktop', 'thunderbird.desktop', 'x']", expected) == 0.0
    planted = tmp_path / "planted"
    payload = f"__import__('pathlib').Path({str(planted)!r}).touch() or ['thunderbird.desktop']"
    assert m(payload, expected) == 0.0 and not planted.exists()  # eval would have run it
    assert parse_string_list("@as []") == [] and parse_string_list("['a', \"b'c\"]") == ["a",
                                                                                       "b'c"]
    assert parse_string_list("['a' 'b']") is None and parse_string_list("[1]") is None


# -- conj ---------------------------------------------------------------------------

def _reached(d: Desktop) -> bool:
    return d.fs.exists("~/reached")


@pytest.mark.parametrize(("conj", "first", "score", "reached"), [
    ("and", "no\n", 0.0, False),  # stops at the first 0
    ("and", "yes\n", 1.0, True),  # all 1: the average
    ("or", "yes\n", 1.0, False),  # stops at the first 1
    ("or", "no\n", 0.0, True),    # none 1: the maximum
])
def test_conj_and_or(conj: str, first: str, score: float, reached: bool) -> None:
    ev = load_evaluator({
        "func": ["exact_match", "check_include_exclude"], "conj": conj,
        "result": [shell_line(f"printf '{first}'"), shell_line("touch ~/reached; echo ok")],
        "expected": [rule("yes\n"), {"type": "rule", "rules": {"include": ["no such"] if
                                                                conj == "or" else ["ok"]}}],
    }, "t", "0123abcd")
    d = Desktop()
    assert ev.score(d, "0123abcd") == score and _reached(d) is reached


def test_a_missing_file_in_a_list_scores_zero_with_and() -> None:
    ev = load_evaluator({
        "func": ["check_include_exclude", "check_moved_jpgs"],
        "result": [shell_line("echo ok"), {"type": "list_directory", "path": "~/none"}],
        "expected": [{"type": "rule", "rules": {"include": ["ok"]}}, rule([])],
    }, "t", "0123abcd")
    assert ev.score(Desktop(), "0123abcd") == 0.0


# -- users' own tasks ------------------------------------------------------------------

def test_build_catalog_adds_files_and_folders_and_refuses_clashes(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    shutil.copy(MAKE_ROOT_DIR, folder)
    catalog = build_catalog([folder])
    assert list(catalog)[:len(BUNDLED)] == list(BUNDLED)
    task = get_task("43c2d64c", catalog)
    assert task.source == str(folder / MAKE_ROOT_DIR.name)
    with pytest.raises(KeyError):
        get_task("43c2d64c")  # the default catalog is not changed
    d = task.create_desktop()
    task.setup(d)
    assert task.check(d) == 0.0
    run_command(d, "sudo mkdir /test")
    assert task.check(d) == 1.0
    clash = tmp_path / "clash.json"
    data = json.loads(MAKE_ROOT_DIR.read_text())
    clash.write_text(json.dumps({**copy.deepcopy(data), "id": "e0df059f-0000"}))
    with pytest.raises(TaskFileError, match=r"clash\.json: .*e0df059f"):
        build_catalog([clash])


def test_drums_local_tasks_adds_a_task_gym_make_runs(tmp_path: Path) -> None:
    """43c2d64c is an OSWorld os task that is not bundled: through DRUMS_LOCAL_TASKS it is in
    the embedded host's catalog, registered, listed, and solved through gym.make."""
    mine, other = tmp_path / "mine", tmp_path / "other"
    mine.mkdir()
    other.mkdir()
    shutil.copy(MAKE_ROOT_DIR, mine)
    script = textwrap.dedent("""
        import json, gymnasium as gym, drums_gym
        from drums_gym.client import connect
        assert "Drums/43c2d64c" not in gym.registry, "not read at import"
        assert drums_gym.register_user_tasks() == ["Drums/43c2d64c"]
        listed = [t.short_id for t in connect().tasks()]
        env = gym.make("Drums/43c2d64c", max_steps=8)
        scores = []
        for actions in ([], ["pyautogui.hotkey('ctrl', 'alt', 't')",
                             "pyautogui.write('sudo mkdir /test\\\\n')",
                             "pyautogui.write('password\\\\n')"]):
            env.reset()
            for a in actions:
                env.step(a)
            _, reward, terminated, _, info = env.step("DONE")
            scores.append([reward, terminated, info["valid"]])
        env.close()
        print(json.dumps({"listed": listed, "scores": scores}))
    """)
    env = {k: v for k, v in os.environ.items() if k != "DRUMS_URL"}
    env[ENV_TASKS] = os.pathsep.join([str(mine), str(other)])
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert "43c2d64c" in result["listed"] and "e0df059f" in result["listed"]
    assert result["scores"] == [[0.0, True, True], [1.0, True, True]]
    env[ENV_TASKS] = str(tmp_path / "nowhere")
    fine = subprocess.run([sys.executable, "-c", "import gymnasium, drums_gym"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert fine.returncode == 0, "a bad setting is no error at import"
    use = "import drums_gym; drums_gym.register_user_tasks()"
    bad = subprocess.run([sys.executable, "-c", use], capture_output=True, text=True, env=env,
                         timeout=120)
    assert bad.returncode != 0 and "nowhere: no such task file or folder" in bad.stderr
    assert "DRUMS_LOCAL_TASKS" in bad.stderr
