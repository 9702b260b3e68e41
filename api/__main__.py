"""``python -m lastline.api`` runs the CLI (used by tests to start a real server)."""

from .cli import main

main()
