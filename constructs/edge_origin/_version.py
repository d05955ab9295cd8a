"""The package version: the one place it is written (pyproject.toml reads it, so does the CLI)."""

__version__ = "0.2.0"
