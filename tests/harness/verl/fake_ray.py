"""A stand-in for Ray's job CLI: ``fake_ray.py job submit ... -- ENTRYPOINT`` and ``job stop``.

submit: checks the flags the harness passes (``--address``, ``--submission-id``,
``--runtime-env-json`` with ``env_vars``), runs the entrypoint here with those variables, with
its output on stdout as ``ray job submit`` tails the job's logs, and exits 1 when the job
fails, as Ray does. stop: records the id. Every call is appended to ``$FAKE_RAY_LOG``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys


def note(entry: dict[str, object]) -> None:
    with open(os.environ["FAKE_RAY_LOG"], "a") as f:
        f.write(json.dumps(entry) + "\n")


def main(argv: list[str]) -> int:
    if argv[:2] == ["job", "stop"]:
        parser = argparse.ArgumentParser(prog="ray job stop")
        parser.add_argument("--address", required=True)
        parser.add_argument("--no-wait", action="store_true")
        parser.add_argument("job_id")
        opts = parser.parse_args(argv[2:])
        note({"stop": opts.job_id, "address": opts.address})
        return 0
    assert argv[:2] == ["job", "submit"], argv
    split = argv.index("--")
    parser = argparse.ArgumentParser(prog="ray job submit")
    parser.add_argument("--address", required=True)
    parser.add_argument("--submission-id", required=True)
    parser.add_argument("--runtime-env-json", required=True)
    opts = parser.parse_args(argv[2:split])
    env_vars = json.loads(opts.runtime_env_json)["env_vars"]
    entrypoint = argv[split + 1 :]
    note({"submit": opts.submission_id, "address": opts.address, "env_vars": env_vars,
          "entrypoint": entrypoint[:3]})  # fmt: skip
    print(f"Job '{opts.submission_id}' submitted successfully", flush=True)
    code = subprocess.call(entrypoint, env={**os.environ, **env_vars})
    return 1 if code else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
