"""The channel that carries runs' progress to the command: losing it is one named error
(`EventsLost`), which the command answers as it answers an interrupt, not a stray
`EOFError` or `ConnectionRefusedError` from deep inside a queue."""

from __future__ import annotations

import multiprocessing
from multiprocessing.managers import SyncManager

import pytest

from harness.executors import EventsLost
from harness.executors.base import drain_events, wait_for_events


def test_a_queue_whose_process_ended_is_events_lost() -> None:
    manager = SyncManager(ctx=multiprocessing.get_context("spawn"))
    manager.start()
    events = manager.Queue()
    events.put("first")
    seen: list[object] = []
    wait_for_events(events, seen.append)
    assert seen == ["first"]
    manager.shutdown()  # the process holding the queue is gone
    with pytest.raises(EventsLost, match="the process carrying the runs' progress ended"):
        wait_for_events(events, seen.append)
    with pytest.raises(EventsLost):
        drain_events(events, seen.append)
