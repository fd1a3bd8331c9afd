"""OSWorld's os split (the 24 ids of test_all.json): every task is bundled and loads, its
scripted solver fits 15 steps (infeasible ones answer FAIL; each route's episode through
gym.make is in tests/solvers/test_scripted_routes.py), and wrong solutions (the right
change to the wrong object, a partial change) score 0.0."""

from __future__ import annotations

import pytest
from pyauto import solve

from drums_gym.local.desktop import Desktop
from drums_gym.local.tasks import CATALOG, get_task
from drums_gym.solvers import Solver, get_solver, routes
from drums_gym.solvers.base import Step
from drums_gym.solvers.system import INFEASIBLE, PASSWORD, sudo
from drums_gym.solvers.terminal import shell

#: test_all.json's os ids, with the start of each instruction.
SPLIT = {
    "94d95f96-9699-4208-98ba-3c3119edf9c2": "I want to install Spotify",
    "bedcedc4-4d72-425e-ad62-21960b11fe0d": "Could you set the 'Dim screen when inactive'",
    "ec4e3f68-9ea4-4c18-a5c9-69f89d1178b3": "Can you remove the first favorite app",
    "a462a795-fdc7-4b23-b689-e8b6df786b78": "Could you please help me to switch to the user",
    "f9be0997-4b7c-45c5-b05c-4612b44a6118": "I am currently working on a ubuntu system but",
    "28cc3b7e-b194-4bc9-8353-d04c0f4d56d2": "The volume of my system is too small.",
    "5ea617a3-0e86-4ba6-aab2-dac9aa2e8d57": "I am currently using an Ubuntu system, and I",
    "e0df059f-28a6-4169-924f-b9623e7184cc": 'I have a directory named "todo_list_Jan_1".',
    "b6781586-6346-41cd-935a-a6b1487918fc": "I want to set my current time zone to UTC+0.",
    "b3d4a89c-53f2-4d6b-8b6a-541fb5d205fa": "I want to switch off the Bluetooth.",
    "3ce045a0-877b-42aa-8d2c-b4a863336ab8": "My glasses are broken,",
    "fe41f596-a71b-4c2f-9b2f-9dcd40b568c3": "I want to see the battery percentage.",
    "a4d98375-215b-4a4d-aee9-3d4370fccc41": "I want to have my computer automatically locked",
    "13584542-872b-42d8-b299-866967b5c3ef": "I click in terminal: terminal->132x43",
    "23393935-50c7-4a86-aeea-2b78fd089c5c": "Recursively go through the folders of the",
    "5812b315-e7bd-4265-b51f-863c02174c28": 'Please create an SSH user named "charles"',
    "c288e301-e626-4b98-a1ab-159dcb162af5": "Please set the default Python version to",
    "4783cc41-c03c-4e1b-89b4-50658f642bd5": 'Copy directory hierarchy from "$sourceDir"',
    "5c1075ca-bb34-46a3-a7a0-029bd7463e79": 'Copy all files matching "*failed.ipynb"',
    "5ced85fc-fa1a-4217-95fd-0fb530545ce2": 'Append "<br/>" to the end of each line',
    "37887e8c-da15-4192-923c-08fa390a176d": 'Compress all files in the "/tmp/test_files"',
    "4127319a-8b79-4410-b58a-7a151e15f3d7": "Use terminal command to count all the lines",
    "4d117223-a354-47fb-8b45-62ab1390a95f": "Change the permission of all regular files",
    "6f56bf42-85b8-4fbb-8e06-6c44960184ba": "Copies file 'file1' to each of directories",
}
P = ("org.gnome.Terminal.Legacy.Profile:/org/gnome/terminal/legacy/profiles:/"
     ":b1dcc9dd-5262-4d8d-a863-c897e6d979b9/")
MADE_UP = "org.gnome.Terminal.Legacy.Profile:/org/gnome/terminal/legacy/profiles:/:my-profile/"


def test_the_24_tasks_of_the_split_are_bundled_and_load() -> None:
    for task_id, start in SPLIT.items():
        task = CATALOG[task_id]
        assert task.instruction.startswith(start)
        assert task.infeasible == (task_id in INFEASIBLE)
        assert routes(task_id), task_id


SOLVED = sorted(t[:8] for t in SPLIT if t not in INFEASIBLE)


def route_of(short: str) -> str:
    """The route an agent with a terminal takes: the terminal one where there is one."""
    return "terminal" if "terminal" in routes(short) else routes(short)[0]


@pytest.mark.parametrize("short", SOLVED)
def test_the_solver_fits_15_steps(short: str) -> None:
    """Its episode through gym.make (valid, 1.0, ended by DONE, in exactly these steps) is
    tests/solvers/test_scripted_routes.py's test_every_route_solves_its_task_in_its_declared_steps,
    which runs every route once."""
    assert type(get_solver(short, route_of(short))).steps <= 15


@pytest.mark.parametrize("task_id", INFEASIBLE)
def test_infeasible_tasks_are_answered_fail(task_id: str) -> None:
    """The FAIL episode through gym.make (valid, one step, 1.0 by the host's FAIL rule) is
    test_scripted_routes.py's test_every_route_solves_its_task_in_its_declared_steps (the
    answer route); here: the answer is one step, and the desktop alone never scores."""
    solver = get_solver(task_id)
    assert solver.route == "answer" and type(solver).steps == 1
    task = get_task(task_id)
    desk = task.create_desktop()
    task.setup(desk)
    assert task.check(desk) == 0.0  # the desktop alone never scores an infeasible task


def test_infeasible_setups_make_their_desktop_state() -> None:
    task = get_task("4783cc41")
    desk = task.create_desktop()
    task.setup(desk)
    assert desk.fs.is_dir("~/Desktop/dir1/dir2") and desk.fs.is_dir("~/Desktop/dir3/dir4")
    assert desk.active_window() is not None and desk.active_window().app == "terminal"


# -- wrong solutions ------------------------------------------------------------------------

class Plan(Solver):
    route = "terminal"

    def __init__(self, steps: list[Step]) -> None:
        self._plan = steps
        super().__init__()

    def plan(self) -> list[Step]:
        return self._plan


def typed(*lines: str) -> list[Step]:
    return shell(*lines)


#: At least two wrong solutions per task: the right change to the wrong object, a partial or
#: wrong-valued change, or the right command without the rights it needs.
WRONG: dict[str, list[list[Step]]] = {
    "94d95f96": [sudo("snap install vlc"), typed("snap install spotify"),
                 sudo("apt install spotify")],
    "bedcedc4": [typed("gsettings set org.gnome.settings-daemon.plugins.power idle-dim false"),
                 typed("gsettings set org.gnome.desktop.session idle-delay 60"),
                 sudo("gsettings set org.gnome.desktop.session idle-delay 0")],
    "ec4e3f68": [typed("gsettings set org.gnome.shell favorite-apps "
                       "\"['vim.desktop', 'google-chrome.desktop']\""),
                 typed("gsettings set org.gnome.shell favorite-apps \"['thunderbird.desktop']\""),
                 typed("gsettings reset org.gnome.shell favorite-apps")],
    "f9be0997": [typed("gsettings set org.gnome.desktop.notifications show-in-lock-screen false"),
                 typed("gsettings set org.gnome.desktop.notifications show-banners true")],
    "28cc3b7e": [typed("pactl set-sink-volume @DEFAULT_SINK@ +10%"),
                 typed("pactl set-sink-mute @DEFAULT_SINK@ 1"),
                 typed("pactl set-sink-volume @DEFAULT_SINK@ 150%")],
    "b6781586": [sudo("timedatectl set-timezone Asia/Tokyo"),
                 typed("timedatectl set-timezone Etc/UTC")],
    "3ce045a0": [typed("gsettings set org.gnome.desktop.interface text-scaling-factor 0.8"),
                 typed("gsettings set org.gnome.desktop.interface cursor-size 48")],
    "a4d98375": [typed("gsettings set org.gnome.desktop.screensaver lock-delay 0"),
                 typed("gsettings set org.gnome.desktop.screensaver ubuntu-lock-on-suspend "
                       "true")],
    "13584542": [typed(f"gsettings set {P} default-size-columns 132"),
                 typed("stty cols 132 rows 43"),
                 typed(f"gsettings set {P} default-size-columns 43 && "
                       f"gsettings set {P} default-size-rows 132"),
                 # the right keys on a made-up profile: not the one a new terminal opens with
                 typed(f"gsettings set {MADE_UP} default-size-columns 132 && "
                       f"gsettings set {MADE_UP} default-size-rows 43"),
                 typed("dconf write /org/gnome/terminal/legacy/profiles:/:0000/"
                       "default-size-columns 132 && dconf write "
                       "/org/gnome/terminal/legacy/profiles:/:0000/default-size-rows 43")],
    "5812b315": [[*sudo("useradd -m -s /bin/bash charles"),
                  *typed("echo 'charles:Ex@mpleP@55w0rd!' | sudo chpasswd")],
                 [*sudo("useradd -m -d /home/test1 charles"),
                  *typed("echo 'charles:Ex@mpleP@55w0rd' | sudo chpasswd")],
                 sudo("useradd -m -d /home/test1 charles")],
    "5c1075ca": [typed("cd ~/test_environment && mkdir -p fails && find . -name "
                       "'*failed.ipynb' -not -path './fails/*' -exec cp {} fails/ \\;"),
                 typed("cd ~/test_environment && mkdir -p fails && cp *failed.ipynb fails/"),
                 typed("cd ~/test_environment && mkdir -p fails && find . -name '*failed*' "
                       "-not -path './fails/*' -print0 | xargs -0 cp --parents -t fails")],
    "37887e8c": [typed("find /tmp/test_files -type f -mtime -30 -exec gzip {} \\;"),
                 typed("gzip /tmp/test_files/old_report.txt"),
                 typed("find /tmp/test_files -type f -mtime +30 -exec gzip -k {} \\;")],
    "4127319a": [typed("cd ~/project && find . -name '*.php' | wc -l"),
                 typed("cd ~/project && cat $(find . -type f) | wc -l"),
                 typed("cd ~/project && find . -name '*.php' -exec wc -l {} \\;")],
}


def test_wrong_solutions_are_listed_for_every_new_task() -> None:
    done_elsewhere = {"e0df059f", "5ea617a3", "6f56bf42", "23393935", "4d117223", "5ced85fc"}
    assert set(WRONG) == set(SOLVED) - done_elsewhere  # those six: test_solvers.py
    assert all(len(v) >= 2 for v in WRONG.values())


CASES = [pytest.param(short, k, id=f"{short}-{k}") for short, plans in sorted(WRONG.items())
         for k in range(len(plans))]


@pytest.mark.parametrize(("short", "k"), CASES)
def test_a_wrong_solution_scores_zero(short: str, k: int) -> None:
    task = get_task(short)
    desk = task.create_desktop(seed=1)
    task.setup(desk)
    assert solve(desk, Plan(WRONG[short][k])) == "DONE"
    assert task.check(desk) == 0.0


@pytest.mark.parametrize("short", sorted(WRONG))
def test_the_right_solution_on_the_same_desktop_scores_one(short: str) -> None:
    """The control of the wrong-solution test: same start, the oracle's plan."""
    task = get_task(short)
    desk = task.create_desktop(seed=1)
    task.setup(desk)
    assert solve(desk, get_solver(short, "terminal")) == "DONE"
    assert task.check(desk) == 1.0


def test_sudo_asks_for_the_password_the_solvers_type() -> None:
    desk = Desktop()
    assert solve(desk, Plan(sudo("timedatectl set-timezone Etc/UTC"))) == "DONE"
    text = desk.active_window().text()
    assert "[sudo] password for user:" in text  # and the password typed is not shown
    assert PASSWORD not in text.replace("[sudo] password for user:", "")


def test_13584542_the_default_profile_by_dconf_path_scores_one() -> None:
    """dconf's path of the default profile is the same setting as gsettings' (the control of
    the made-up-profile wrong solutions above)."""
    task = get_task("13584542")
    desk = task.create_desktop(seed=1)
    d = "/org/gnome/terminal/legacy/profiles:/:b1dcc9dd-5262-4d8d-a863-c897e6d979b9/"
    plan = typed(f"dconf write {d}default-size-columns 132 && "
                 f"dconf write {d}default-size-rows 43")
    assert solve(desk, Plan(plan)) == "DONE"
    assert task.check(desk) == 1.0
