"""The four ways a long command shows progress: rich bars, plain lines, JSON lines, or nothing.

Bars only make sense on a terminal (elsewhere rich would print them once, at the end), so a
view picks bars when the console is a terminal and neither `--quiet` nor `--json` was given;
subclasses decide what each event looks like in each mode.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from types import TracebackType
from typing import Self

from rich.console import Console
from rich.progress import Progress, ProgressColumn


class LiveView(AbstractContextManager["LiveView"]):
    """A rich `Progress` that is started and stopped only when bars are shown."""

    def __init__(self, console: Console, columns: tuple[ProgressColumn | str, ...], *,
                 quiet: bool, as_json: bool) -> None:  # fmt: skip
        self.console, self.quiet, self.as_json = console, quiet, as_json
        self.bars = not quiet and not as_json and console.is_terminal
        self.progress = Progress(*columns, console=console)

    def __enter__(self) -> Self:
        if self.bars:
            self.progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.bars:
            self.progress.stop()
