"""The host reads a worker's replies (over a real socket pair) with an unpickler that admits
plain data and the reply classes only: the typed replies of a Station come through, and
anything else a hostile worker could pickle is refused before it is built."""

import pickle
import socket

import pytest

from drums_gym import protocol as P
from drums_gym.local.workers import Acted, Verdict
from drums_gym.local.workers.rpc import Lost, recv, send


def _through(obj: object) -> object:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        send(theirs, obj)
        got, fds = recv(ours, max_bytes=1 << 20)
    assert fds == []
    return got


def test_a_stations_typed_replies_come_through_the_untrusted_reader():
    cut = P.CutReply(kind="windows", detail="more than 2 windows open")
    replies = [
        Acted(3, None, cut, [("window_closed", "Files")], "simulated"),
        Verdict(1.0, None, "sandbox"),
        P.AccessibilityReply(format=P.A11Y_FORMAT, tree={"role": "desktop", "children": []}),
        cut,
        None,
    ]
    for reply in replies:
        assert _through(reply) == reply


class _Evil:
    """What a hostile worker would send: a call made on unpickling."""

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (print, ("owned",))


@pytest.mark.parametrize(
    "obj", [_Evil(), P.SlotList(slots=()), {"x": P.ScreenSize(width=1, height=1)}]
)
def test_any_other_class_in_a_reply_is_refused(obj):
    data = pickle.dumps(obj)
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(len(data).to_bytes(4, "big") + data)
        with pytest.raises(Lost, match="may not hold"):
            recv(ours, max_bytes=1 << 20)
