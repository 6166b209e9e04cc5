"""The `harness` command line: a thin layer over public functions, one module per sub-command."""

from harness_cli.main import app, main

__all__ = ["app", "main"]
