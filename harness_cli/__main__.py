"""`python -m harness_cli` runs the `harness` command."""

from harness_cli.main import main

main()
