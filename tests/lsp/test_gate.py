"""The gate that makes long jobs step aside while the editor is answered (lsp/gate.py), and the
transport closing it from a chunk's arrival until it is handled. How much a keystroke gains is
measured by tests/bench (``keystrokes_during_index``), not here."""

from __future__ import annotations

import asyncio
import sys
import threading
import time

from qrels_lsp.lsp.gate import SWITCH_INTERVAL_S, Gate, LongJobs
from qrels_lsp.lsp.server import create_server
from qrels_lsp.lsp.transport import Inbox, serve


def test_a_long_job_waits_while_the_gate_is_closed() -> None:
    gate = Gate()
    steps: list[float] = []
    stop = threading.Event()

    def job() -> None:
        while not stop.is_set():
            gate.wait()
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
