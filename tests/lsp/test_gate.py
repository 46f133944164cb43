"""The gate that makes long jobs step aside while the editor is answered (lsp/gate.py), and the
transport closing it from a chunk's arrival until it is handled. How much a keystroke gains is
measured by tests/bench (``keystrokes_during_index``), not here."""

from __future__ import annotations

import asyncio
import sys
import threading
import time

from qrels_lsp.lsp.gate import AGAIN, EDITED, OPENED, SWITCH_INTERVAL_S, Gate, LongJobs, Turns
from qrels_lsp.lsp.server import create_server
from qrels_lsp.lsp.transport import Inbox, serve


def test_a_long_job_waits_while_the_gate_is_closed() -> None:
    gate = Gate()
    steps: list[float] = []
    stop = threading.Event()

    def job() -> None:
        while not stop.is_set():
            gate.wait(timeout=60)  # (longer than the test: only the gate opening lets it on)
            steps.append(time.perf_counter())
            time.sleep(0.001)

    gate.enter()
    gate.enter()  # two keystrokes in flight: open only once both are answered
    worker = threading.Thread(target=job)
    worker.start()
    time.sleep(0.1)
    assert steps == [] and gate.closed
    gate.leave()
    time.sleep(0.05)
    assert steps == [] and gate.closed
    opened = time.perf_counter()
    gate.leave()
    time.sleep(0.05)
    stop.set()
    worker.join()
    assert not gate.closed
    assert steps and steps[0] >= opened


def test_a_closed_gate_slows_a_job_but_never_starves_it() -> None:
    gate = Gate()
    gate.enter()
    started = time.perf_counter()
    gate.wait(timeout=0.05)
    assert time.perf_counter() - started >= 0.05


def test_a_gate_that_stays_closed_lets_a_job_run_between_waits() -> None:
    """A stream of requests keeps the gate closed; a job that waited out its patience then runs
    as long without waiting (a comparison the requests wait for must finish)."""
    gate = Gate()
    gate.enter()
    waited = []
    for _ in range(50):
        started = time.monotonic()
        gate.wait(timeout=0.5)
        waited.append(time.monotonic() - started >= 0.5)
    assert waited[0] and not all(waited)  # waited once, then ran


def test_the_inbox_keeps_the_gate_closed_until_each_chunk_is_handled() -> None:
    gate = Gate()
    server = create_server()
    seen: list[bool] = []

    async def main() -> None:
        inbox = Inbox(gate)
        for chunk in (b"Content-Length: 2\r\n\r\n{}", b"garbage", b""):
            inbox.arriving()
            inbox.put(chunk)
        seen.append(gate.closed)
        await serve(server.protocol, inbox, threading.Event())

    asyncio.run(main())
    assert seen == [True]
    assert not gate.closed  # three arrivals, three handled (the last one ends the stream)


def test_the_switch_interval_is_short_only_while_a_long_job_runs() -> None:
    jobs = LongJobs()
    before = sys.getswitchinterval()
    with jobs.running():
        assert sys.getswitchinterval() == SWITCH_INTERVAL_S
        with jobs.running():
            pass
        assert sys.getswitchinterval() == SWITCH_INTERVAL_S  # one job still runs
    assert sys.getswitchinterval() == before


def test_refreshes_take_turns_edits_first_and_a_cancelled_one_is_skipped() -> None:
    """One turn at a time; of those waiting, the most urgent first, then in the order they asked;
    one cancelled while it waited is passed over, one cancelled as it was given the turn gives
    it on."""
    turns = Turns()
    order: list[str] = []

    async def refresh(name: str, urgency: int, hold: asyncio.Event | None = None) -> None:
        async with turns.turn(urgency):
            order.append(name)
            if hold is not None:
                await hold.wait()

    async def main() -> None:
        hold = asyncio.Event()
        first = asyncio.ensure_future(refresh("open 1", OPENED, hold))
        await asyncio.sleep(0)  # not a wait: loop turns, no clock (first holds the turn)
        waiting = [
            asyncio.ensure_future(refresh(name, urgency))
            for name, urgency in [("again", AGAIN), ("open 2", OPENED), ("edit", EDITED)]
        ]
        dropped = asyncio.ensure_future(refresh("open 3", OPENED))
        await asyncio.sleep(0)  # not a wait: a loop turn
        dropped.cancel()
        hold.set()
        await asyncio.gather(first, *waiting)
        hold = asyncio.Event()
        holder = asyncio.ensure_future(refresh("open 4", OPENED, hold))
        await asyncio.sleep(0)  # not a wait: a loop turn
        given = asyncio.ensure_future(refresh("open 5", OPENED))
        later = asyncio.ensure_future(refresh("again 2", AGAIN))
        await asyncio.sleep(0)  # not a wait: a loop turn
        hold.set()
        await asyncio.sleep(0)  # not a wait: the holder passed the turn to "open 5", not run yet
        given.cancel()
        await asyncio.wait_for(asyncio.gather(holder, later), 30)  # (a failure guard)

    asyncio.run(main())
    assert order == ["open 1", "edit", "open 2", "again", "open 4", "again 2"]
