"""The host reads a worker's replies (over a real socket pair) with an unpickler that admits
plain data and the reply classes only: the typed replies of a Station come through, and
anything else a hostile worker could pickle is refused before it is built."""

import asyncio
import pickle
import socket
from concurrent.futures import ThreadPoolExecutor

import pytest

from drums_gym import protocol as P
from drums_gym.local.workers import Acted, Verdict
from drums_gym.local.workers.rpc import Lost, TooLarge, arecv, asend, recv, send


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


def test_a_class_already_read_lets_no_other_through():
    """The reader remembers the classes it has found (each reply names them again): one
    found does not make another allowed."""
    allowed = Verdict(1.0, None, "sandbox")
    ours, theirs = socket.socketpair()
    with ours, theirs:
        for obj in (allowed, allowed):
            data = pickle.dumps(obj)
            theirs.sendall(len(data).to_bytes(4, "big") + data)
            assert recv(ours, max_bytes=1 << 20)[0] == allowed
        data = pickle.dumps([allowed, _Evil()])
        theirs.sendall(len(data).to_bytes(4, "big") + data)
        with pytest.raises(Lost, match="may not hold"):
            recv(ours, max_bytes=1 << 20)


def _frame(obj: object) -> bytes:
    data = pickle.dumps(obj)
    return len(data).to_bytes(4, "big") + data


def _arecv(pieces: list[bytes], max_bytes: int = 1 << 24) -> object:
    """What the event loop's reader makes of ``pieces`` sent one after another."""
    ours, theirs = socket.socketpair()
    ours.setblocking(False)

    async def main() -> object:
        reading = asyncio.ensure_future(arecv(ours, max_bytes))
        for piece in pieces:
            theirs.sendall(piece)
            await asyncio.sleep(0)  # the reader runs between pieces
        return await reading

    with ours, theirs:
        return asyncio.run(main())


def test_the_event_loops_reader_takes_a_reply_in_pieces_or_whole():
    cut = P.CutReply(kind="windows", detail="x" * 200_000)  # past the first read's 64 KiB
    frame = _frame(cut)
    assert _arecv([frame]) == cut
    assert _arecv([frame[:1], frame[1:3], frame[3:70_000], frame[70_000:]]) == cut
    small = _frame(Verdict(1.0, None, "sandbox"))
    assert _arecv([bytes([b]) for b in small]) == Verdict(1.0, None, "sandbox")


def test_the_event_loops_reader_refuses_what_the_threads_reader_refuses():
    with pytest.raises(TooLarge):
        _arecv([_frame("x" * 1000)], max_bytes=100)
    with pytest.raises(Lost, match="may not hold"):
        _arecv([_frame(_Evil())])
    with pytest.raises(Lost, match="more than its reply"):  # one reply is out at a time
        _arecv([_frame(None) + _frame(None)])


def test_the_event_loops_writer_sends_what_the_threads_reader_reads():
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    message = ("act", ("x" * 3_000_000,), None)  # more than the socket takes at once
    with ours, theirs, ThreadPoolExecutor(1) as reader:
        got = reader.submit(recv, theirs, None, None, True)
        asyncio.run(asend(ours, message))
        assert got.result(timeout=60) == (message, [])
