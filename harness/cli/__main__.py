"""`python -m harness.cli` runs the `harness` command."""

from harness.cli.main import main

main()
