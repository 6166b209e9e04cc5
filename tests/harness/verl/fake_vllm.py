"""Stand-ins for vLLM: ``fake_vllm.py generate REQUEST`` and ``fake_vllm.py serve MODEL ...``.

generate: answers through `harness.backends.verl.generate.main` -- the same request, prompts,
answers and timings files as the real generator -- with the stand-in policy of `stand_in.py`
(whose text names the model) for instances of the validation suite, prose for prompts it does
not know. Each request is appended to ``$FAKE_VLLM_LOG``.

serve: parses ``vllm serve``'s flags (vLLM 0.11.0 names), and serves the scripted
OpenAI-compatible app of tests/designers/openai_server.py on ``--host``/``--port`` under
``--served-model-name`` (``/health``, ``/v1/models``, ``/v1/chat/completions``) until SIGTERM.
``FAKE_VLLM_SERVE_FAIL=1`` exits at once with an error; ``FAKE_VLLM_SERVE_DELAY=<s>`` waits
before listening. Starts and stops are appended to ``$FAKE_VLLM_LOG`` with the process id.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

# the scripted server of tests/designers/ (a module there, not `tests.designers`: a `tests`
# package some dependency installs into site-packages would shadow this repository's)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "designers"))

from stand_in import answer

from harness.backends.verl.generate import Engine, GenerateRequest, Messages, main
from mapf_env import load_suite, render_prompt


def note(entry: dict[str, object]) -> None:
    path = os.environ.get("FAKE_VLLM_LOG")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(entry) + "\n")


def fake_loader(request: GenerateRequest) -> Engine:
    note({"generate": request.model_dump(mode="json")})
    known = {}
    for item in load_suite("validation").items:
        known[render_prompt(item.instance)[-1]["content"]] = item.instance

    def engine(conversations: list[Messages]) -> list[list[str]]:
        return [[answer(request.model, known.get(m[-1]["content"]))] * request.n
                for m in conversations]  # fmt: skip

    return engine


def serve(args: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="vllm serve")
    parser.add_argument("model")
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--served-model-name", required=True)
    parser.add_argument("--tensor-parallel-size", type=int, default=1)
    parser.add_argument("--gpu-memory-utilization", type=float, default=0.9)
    parser.add_argument("--reasoning-parser")
    parser.add_argument("--max-model-len", type=int)
    opts = parser.parse_args(args)
    if os.environ.get("FAKE_VLLM_SERVE_FAIL"):
        print("fake vllm serve: CUDA out of memory (scripted failure)", file=sys.stderr)
        return 1
    time.sleep(float(os.environ.get("FAKE_VLLM_SERVE_DELAY", "0")))
    from openai_server import ScriptedServer

    server = ScriptedServer()
    server.port, server.model_ids = opts.port, [opts.served_model_name]
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    server.start()
    note({"serve": opts.model, "name": opts.served_model_name, "pid": os.getpid()})
    print(f"fake vllm serve: {opts.served_model_name} on {opts.host}:{opts.port}", flush=True)
    stop.wait()
    server.stop()
    note({"stopped": opts.served_model_name, "pid": os.getpid()})
    return 0


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    if command == "generate":
        raise SystemExit(main(rest, load=fake_loader))
    if command == "serve":
        raise SystemExit(serve(rest))
    raise SystemExit(f"unknown command {command!r}")
