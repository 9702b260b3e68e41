"""The ``lastline`` command line (entry point ``lastline.api.cli:main``)."""

from .main import app, main

__all__ = ["app", "main"]
