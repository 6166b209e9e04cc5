"""A plug-in designer that fails on demand, the ways a plug-in can take its process down.

`ENVDESIGN_TEST_CRASH` says how: `exit:N` calls ``os._exit(N)`` in the last design step (that
of the round before the last), `signal:N` sends signal N to its own process there (SIGKILL, as
the kernel's out-of-memory killer would), `raise` raises from `initial_config` (an ordinary
exception, which ends the run). Unset, it keeps the configuration every round, so a run resumed
without it equals one never disturbed.
"""

from __future__ import annotations

import os
import signal

from designers import DesignContext, Proposal
from mapf_env import EnvConfig

MODE = "ENVDESIGN_TEST_CRASH"


class CrashingDesigner:
    name = "crashing"
    description = "Test designer: ends its process or raises on demand, else keeps the config."

    def initial_config(self, base: EnvConfig, seed: int, task: object) -> EnvConfig | None:
        if os.environ.get(MODE) == "raise":
            raise ValueError("planted failure in initial_config")
        return None

    def propose(self, ctx: DesignContext) -> Proposal:
        how, _, value = os.environ.get(MODE, "").partition(":")
        if ctx.round == ctx.total_rounds - 2:  # the last design step: earlier rounds are kept
            if how == "exit":
                os._exit(int(value))
            if how == "signal":
                os.kill(os.getpid(), signal.Signals(int(value)))
        return Proposal(designer=self.name, config=ctx.config, rationale="keeps the config")
