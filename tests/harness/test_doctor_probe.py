"""The real probe on this machine: nvidia-smi (absent, and a stand-in script), a python asked
in a subprocess, free disk, and the network probes against servers started here."""

from __future__ import annotations

import http.server
import socket
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.doctor import MachineProbe
from harness.doctor.probes import MIB, parse_flash, parse_python_facts


def script(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_no_nvidia_smi_is_said(tmp_path: Path) -> None:
    facts = MachineProbe({"PATH": str(tmp_path)}).driver()
    assert facts.gpus == () and facts.error == "nvidia-smi not found"


def test_nvidia_smi_rows_become_gpus(tmp_path: Path) -> None:
    rows = "\n".join(["NVIDIA H100 80GB HBM3, 81559, 570.86.15"] * 4)
    script(tmp_path, "nvidia-smi", f"cat <<'EOF'\n{rows}\nEOF")
    facts = MachineProbe({"PATH": str(tmp_path)}).driver()
    assert facts.error is None and facts.driver == "570.86.15"
    assert [(g.name, g.memory) for g in facts.gpus] == [("NVIDIA H100 80GB HBM3", 81559 * MIB)] * 4


def test_a_failing_nvidia_smi_says_why(tmp_path: Path) -> None:
    script(tmp_path, "nvidia-smi", "echo 'NVIDIA-SMI has failed because it could not communicate "
           "with the NVIDIA driver.'; exit 9")  # fmt: skip
    facts = MachineProbe({"PATH": str(tmp_path)}).driver()
    assert facts.gpus == () and facts.error is not None
    assert facts.error.startswith("nvidia-smi failed (exit 9): NVIDIA-SMI has failed")


def test_this_python_is_asked_for_its_packages_and_cuda() -> None:
    probe = MachineProbe()
    names = ("torch", "verl")
    here = probe.python(sys.executable, cuda=False, packages=names)
    assert here.error is None and here.torch is None
    assert here.packages["torch"] is not None and here.packages["verl"] is None
    asked = probe.python(sys.executable, cuda=True, packages=names)  # a subprocess importing torch
    assert asked.error is None and asked.packages == here.packages
    assert asked.torch is not None and asked.torch.version.startswith(here.packages["torch"] or "")
    import torch

    assert asked.torch.available is torch.cuda.is_available()
    assert asked.torch.cuda == torch.version.cuda


def test_a_python_that_cannot_run_or_answers_nonsense(tmp_path: Path) -> None:
    gone = MachineProbe().python(str(tmp_path / "python"), cuda=True, packages=("torch",))
    assert gone.error is not None and gone.error.startswith("cannot run it")
    liar = script(tmp_path, "liar", "echo hello")
    said = MachineProbe().python(str(liar), cuda=False, packages=("torch",))
    assert said.error == "it failed (exit 0): no output"
    facts = parse_python_facts("p", 1, "", "Traceback\nImportError: boom")
    assert facts.error == "it failed (exit 1): ImportError: boom"


def test_flash_attn_is_asked_of_the_python_that_trains(tmp_path: Path) -> None:
    usable, reason = MachineProbe().flash_attn(sys.executable)  # the shared check, run there
    assert isinstance(usable, bool) and reason
    gone = MachineProbe().flash_attn(str(tmp_path / "python"))
    assert gone[0] is None and gone[1].startswith("cannot run the trainer's python")
    said = parse_flash("p", 0, '{"flash_attn": true, "flash_reason": "flash_attn 2.8.3"}', "")
    assert said == (True, "flash_attn 2.8.3")
    failed = parse_flash("p", 1, "", "Traceback\nImportError: boom")
    assert failed == (None, "probing the trainer's python p failed (exit 1): ImportError: boom")


def test_free_disk_is_measured_where_the_runs_would_go(tmp_path: Path) -> None:
    free, where = MachineProbe().free_disk(tmp_path / "not" / "yet")
    assert where == tmp_path and free is not None and free > 0


@pytest.fixture
def web() -> Iterator[str]:
    """An HTTP server on 127.0.0.1: 200 on /api/version, 404 elsewhere."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200 if self.path == "/api/version" else 404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_http_answers_and_refusals(web: str) -> None:
    probe = MachineProbe()
    assert probe.http(f"{web}/api/version", 5.0) == 200
    assert probe.http(f"{web}/nothing", 5.0) == 404
    refused = probe.http(f"http://127.0.0.1:{closed_port()}/", 5.0)
    assert isinstance(refused, str) and "refused" in refused.lower()


def test_tcp_and_bind() -> None:
    probe = MachineProbe()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        assert probe.tcp("127.0.0.1", listener.getsockname()[1], 5.0) is None
    failed = probe.tcp("127.0.0.1", closed_port(), 5.0)
    assert failed is not None and "refused" in failed.lower()
    assert probe.bind("127.0.0.1") is None
    assert probe.bind("192.0.2.1") is not None  # TEST-NET-1: no interface here has it
