"""`drums_gym.accessibility`: OSWorld's XML form of a tree, importable without the host."""

from __future__ import annotations

import doctest
import subprocess
import sys
from xml.etree import ElementTree as ET

import drums_gym.accessibility as accessibility
from drums_gym.accessibility import NAMESPACES, to_xml
from drums_gym.local.desktop import a11y
from drums_gym.local.tasks import get_task


def test_docstring_example_runs() -> None:
    result = doctest.testmod(accessibility, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_host_uses_the_leaf() -> None:
    assert a11y.to_xml is to_xml and a11y.NAMESPACES is NAMESPACES


def test_renders_a_desktop_tree_as_osworld_xml() -> None:
    task = get_task("e0df059f")
    desk = task.create_desktop()
    task.setup(desk)
    root = ET.fromstring(to_xml(desk.accessibility()))
    st, cp, attr = NAMESPACES["st"], NAMESPACES["cp"], NAMESPACES["attr"]
    assert root.tag == "desktop-frame" and root.get("name") == "Desktop"
    assert root.get(f"{{{cp}}}screencoord") == "(0, 0)"
    assert root.get(f"{{{cp}}}size") == f"({desk.width}, {desk.height})"
    assert root.find(".//panel[@name='Top Bar']") is not None
    icon = root.find("application[@name='gjs']/layered-pane/icon[@name='todo_list_Jan_1']")
    assert icon is not None and icon.get(f"{{{attr}}}description") == "Folder"
    assert icon.get(f"{{{st}}}selectable") == "true"


def test_states_with_dashes_and_text_and_hidden_geometry() -> None:
    tree = {"role": "entry", "name": "Folder name", "position": [5, 6], "size": [7, 8],
            "states": ["single-line", "editable"], "text": "todo", "children": []}
    el = ET.fromstring(to_xml(tree))
    assert el.get(f"{{{NAMESPACES['st']}}}single_line") == "true"
    assert el.text == "todo"
    assert el.get(f"{{{NAMESPACES['cp']}}}screencoord") is None, "not showing: no geometry"


def test_imports_with_nothing_but_the_standard_library() -> None:
    code = ("import sys\n"
            "for name in ('numpy', 'PIL', 'gymnasium', 'httpx', 'fastapi'):\n"
            "    sys.modules[name] = None\n"
            "from drums_gym.accessibility import to_xml\n"
            "print(sorted(m for m in sys.modules if m.startswith('drums_gym')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(["drums_gym", "drums_gym._version",
                                       "drums_gym.accessibility"])


def test_renders_the_tree_a_host_serves(local_host) -> None:
    """docs/accessibility.md's example, against a local host over HTTP."""
    from drums_gym import client as drums

    with drums.connect(local_host.url) as client, client.create(task="e0df059f") as slot:
        slot.wait_valid()
        xml = to_xml(slot.accessibility()["tree"])
    root = ET.fromstring(xml)
    names = [e.get("name") for e in root.iter("icon")]
    assert root.tag == "desktop-frame" and "todo_list_Jan_1" in names
