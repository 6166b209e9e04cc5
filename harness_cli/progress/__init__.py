"""How long commands show their progress: bars on a terminal, plain lines, JSON lines, or nothing.

`live` holds what every view shares (the four modes, bars only on a terminal); `comparison`
shows the runs of `harness compare` and `harness run`, `evaluation` the suites of `harness eval`.
"""

from harness_cli.progress.comparison import ProgressView
from harness_cli.progress.evaluation import EvalView
from harness_cli.progress.live import LiveView

__all__ = ["EvalView", "LiveView", "ProgressView"]
