"""``harness doctor``: whether this machine can run an experiment, one finding per line.

Facts come from a `Probe` (`MachineProbe` for the real machine, a fake in tests); checks are
pure functions of them, grouped by what they judge (`gpu`, `memory`, `software`, `storage`,
`network`); `diagnose` runs the ones the experiment's backend needs, and preflight runs the
same before round 0 of ``harness compare`` and ``harness run``.
"""

from harness.doctor.diagnose import TOPICS, diagnose
from harness.doctor.findings import Finding, Level, failed
from harness.doctor.probes import DriverFacts, Gpu, MachineProbe, Probe, PythonFacts, TorchFacts
from harness.doctor.report import exit_code, report_lines, verdict

__all__ = [
    "TOPICS",
    "DriverFacts",
    "Finding",
    "Gpu",
    "Level",
    "MachineProbe",
    "Probe",
    "PythonFacts",
    "TorchFacts",
    "diagnose",
    "exit_code",
    "failed",
    "report_lines",
    "verdict",
]
