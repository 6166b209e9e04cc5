"""SIGINT and SIGTERM as one exception, so a long command can stop cleanly and say where it was.

Ctrl-C raises `KeyboardInterrupt` in the main thread; `kill PID` and `timeout` send SIGTERM,
which by default kills Python without running any `finally`. `interrupts_raise` turns both
into `Interrupted` (a `KeyboardInterrupt`, so code that already handles Ctrl-C handles both),
carrying the signal, so the command can stop its workers, report what finished and exit with
the shell's code for that signal (130 for SIGINT, 143 for SIGTERM).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class Interrupted(KeyboardInterrupt):
    """The command was asked to stop by a signal."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)

    @property
    def exit_code(self) -> int:
        """128 + the signal number, as a shell reports a command a signal stopped."""
        return 128 + self.signum

    @property
    def signal_name(self) -> str:
        return signal.Signals(self.signum).name


def as_interrupted(err: KeyboardInterrupt) -> Interrupted:
    """`err` as an `Interrupted` (a plain KeyboardInterrupt is Ctrl-C: SIGINT)."""
    return err if isinstance(err, Interrupted) else Interrupted(signal.SIGINT)


@contextmanager
def interrupts_raise() -> Iterator[None]:
    """Inside the block, SIGINT and SIGTERM raise `Interrupted` in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        raise Interrupted(signum)

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old)
