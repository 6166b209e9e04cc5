"""``harness doctor``: whether this machine can run an experiment, one finding per line.

Only what every backend shares lives here: the `Finding` a check returns (`findings`), the
facts of the machine behind one `Probe` (`probes`: `MachineProbe` for the real machine, a fake
in tests), the checks any backend may ask for (`network`: a Ray cluster, a free port; `disk`),
the report (`report`), and `diagnose`, which runs the checks the experiment's backend names
through its spec (`BackendSpec.machine_findings`, e.g. `harness.backends.verl.doctor`) and
those of every experiment (fingerprint, designers). Checks are pure functions of the probed
facts; preflight runs the same before round 0 of ``harness compare`` and ``harness run``. No
module here imports a backend: a backend reaches the doctor only through its spec's hooks.
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
