"""The host's start states over HTTP: a branch of n=0 saves a state without children, and
reset with a state starts the episode from a copy of it (404/409 for a bad one)."""

from __future__ import annotations

import httpx


def created(http: httpx.Client, task: str = "e0df059f", **body: object) -> str:
    r = http.post("/v1/slots", json={"task": task, "screen": {"width": 1024, "height": 768},
                                     **body})
    assert r.status_code == 201, r.text
    slot: str = r.json()["id"]
    episode = http.get(f"/v1/slots/{slot}/episode", params={"wait": "true"}).json()
    assert episode["status"] == "valid"
    return slot


def test_save_and_reset_to_a_state(local_host) -> None:
    with httpx.Client(base_url=local_host.url) as http:
        slot = created(http)
        assert http.post(f"/v1/slots/{slot}/actions",
                         json={"code": "pyautogui.click(142, 98)"}).status_code == 200
        saved = http.get(f"/v1/slots/{slot}/screenshot").content
        r = http.post(f"/v1/slots/{slot}/branch", json={"n": 0})
        assert r.status_code == 200, r.text
        state, children = r.json()["state"], r.json()["children"]
        states = http.get("/v1/states").json()["states"]
        assert children == [] and [s["id"] for s in states] == [state]
        http.post(f"/v1/slots/{slot}/reset")  # back to the initial desktop
        assert http.get(f"/v1/slots/{slot}/screenshot").content != saved
        r = http.post(f"/v1/slots/{slot}/reset", json={"state": state})
        assert r.status_code == 200, r.text
        assert r.json()["episode"]["number"] == 3
        assert http.get(f"/v1/slots/{slot}/screenshot").content == saved
        tree = http.get(f"/v1/slots/{slot}/accessibility").json()["tree"]
        icons = find(tree, "layered-pane")["children"]  # under its application (gjs)
        assert "selected" in icons[0]["states"]  # the click is in the state
        # a bad state: unknown (404), another task's (409), not a string (422)
        r = http.post(f"/v1/slots/{slot}/reset", json={"state": "st_nope"})
        assert (r.status_code, r.json()["error"]["code"]) == (404, "not_found")
        other = created(http, "7688b85f")
        r = http.post(f"/v1/slots/{other}/reset", json={"state": state})
        assert (r.status_code, r.json()["error"]["code"]) == (409, "conflict")
        assert http.post(f"/v1/slots/{slot}/reset", json={"state": 7}).status_code == 422
        assert http.delete(f"/v1/states/{state}").status_code == 200
        for s in (slot, other):
            http.delete(f"/v1/slots/{s}")


def find(node: dict, role: str) -> dict:
    """The first node of ``role`` in the tree, depth first."""
    if node.get("role") == role:
        return node
    for child in node.get("children", ()):
        found = find(child, role)
        if found:
            return found
    return {}
