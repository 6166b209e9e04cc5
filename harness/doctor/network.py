"""A Ray cluster's address answering, and a port for ``vllm serve`` on 127.0.0.1."""

from __future__ import annotations

from urllib.parse import urlsplit

from harness.doctor.findings import Finding, fail, ok, warn

__all__ = ["RAY_PORTS", "port_findings", "ray_findings", "ray_target"]

RAY_PORTS = {"ray": 10001, "http": 8265, "https": 8265}
"""Ray's default client server and dashboard ports, where an address names none."""
NOT_PROBED = ("auto", "local")


def ray_target(address: str) -> tuple[str, str, int] | None:
    """How to probe `address`: ("http", url, 0) for a dashboard (``ray job submit``), ("tcp",
    host, port) for ``ray://host:port`` or ``host:port`` (the GCS); None where Ray resolves it
    itself (auto, local) or it cannot be parsed."""
    if address in NOT_PROBED:
        return None
    parts = urlsplit(address if "://" in address else f"gcs://{address}")
    if not parts.hostname:
        return None
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.scheme in ("http", "https"):
        return "http", f"{parts.scheme}://{parts.netloc}/api/version", 0
    return "tcp", parts.hostname, port or RAY_PORTS.get(parts.scheme, 6379)


def ray_findings(address: str, answer: int | str | None) -> list[Finding]:
    """`answer`: the probe's status code (HTTP), None for a connection that opened (TCP), or
    why it failed."""
    target = ray_target(address)
    if target is None:
        return [
            warn(
                "ray",
                f"--ray-address {address} is resolved by Ray itself; not probed",
                "give the cluster's address (http://head:8265) to have it checked",
            )
        ]
    kind, where, port = target
    shown = where if kind == "http" else f"{where}:{port}"
    if answer is None or answer == 200:
        return [ok("ray", f"the Ray cluster answers at {shown}")]
    why = f"answered {answer}" if isinstance(answer, int) else f"does not answer ({answer})"
    return [
        fail(
            "ray",
            f"--ray-address {address}: {shown} {why}",
            "start the cluster (ray start --head --dashboard-host 0.0.0.0) or correct "
            "--ray-address",
        )
    ]


def port_findings(error: str | None, host: str) -> list[Finding]:
    if error is None:
        return [ok("ports", f"a free port binds on {host} (vllm serve takes one per server)")]
    return [
        fail(
            "ports",
            f"cannot bind a port on {host}: {error}",
            "allow local TCP listeners (firewall, sandbox) for the vLLM servers",
        )
    ]
