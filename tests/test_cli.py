"""The CLI: doctor reports the installation, and every command documents itself with an example."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import typer.main

from lastline import __version__
from lastline.api.cli import app


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lastline.api", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_version_prints_the_package_version(tmp_path: Path) -> None:
    assert _run("version", cwd=tmp_path).stdout.strip() == __version__


def test_doctor_json_reports_model_dim_and_sqlite_vec(tmp_path: Path) -> None:
    result = _run("doctor", "--json", "--db", str(tmp_path / "d.db"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["model_id"] == "use-multilingual-v3"
    assert report["dim"] == 512
    assert report["sqlite_vec"].startswith("v")
    assert report["fts5"] is True
    assert report["db"] == str((tmp_path / "d.db").resolve())
    english = report["kb_english_space"]
    assert english["embedder"] == "minilm-onnx" and english["dim"] == 384 and english["model_id"]


def test_doctor_says_when_the_kb_english_space_is_off(tmp_path: Path) -> None:
    import os

    env = {**os.environ, "LASTLINE_KB_ENGLISH_EMBEDDER": "none"}
    result = subprocess.run([sys.executable, "-m", "lastline.api", "doctor", "--json", "--db", str(tmp_path / "d.db")],
                            capture_output=True, text=True, cwd=tmp_path, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["kb_english_space"] == {"embedder": "none"}


def test_doctor_on_postgresql_never_prints_a_password(tmp_path: Path, pg_urls: tuple[str, str]) -> None:
    import os

    app_url, owner_url = (f"{url}?password=s3cret-in-the-query" for url in pg_urls)  # the cluster trusts 127.0.0.1
    env = {**os.environ, "LASTLINE_DATABASE_URL": app_url, "LASTLINE_DATABASE_OWNER_URL": owner_url,
           "LASTLINE_KB_ENGLISH_EMBEDDER": "none"}
    result = subprocess.run([sys.executable, "-m", "lastline.api", "doctor", "--json"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    assert "s3cret" not in result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["db"] == pg_urls[0] and report["tenant_isolation_enforced"] is True


def _commands(group: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Leaf commands of a (vendored) click group, with their full names."""
    found: list[tuple[str, Any]] = []
    for name, command in group.commands.items():
        path = f"{prefix} {name}".strip()
        if hasattr(command, "commands"):
            found.extend(_commands(command, path))
        else:
            found.append((path, command))
    return found


def test_every_command_has_help_with_an_example() -> None:
    root = typer.main.get_command(app)
    assert hasattr(root, "commands")
    commands = _commands(root)
    assert {"version", "doctor", "serve"} <= {name for name, _ in commands}
    for name, command in commands:
        assert command.help, f"`lastline {name}` has no help text"
        assert "Example:" in command.help, f"`lastline {name}` help lacks an 'Example:' line"
        for param in command.params:
            if getattr(param, "param_type_name", "") == "option" and param.name != "help":
                assert param.help, f"`lastline {name}` option {param.opts} has no help"


def test_serve_refuses_a_public_bind_without_api_keys(tmp_path: Path) -> None:
    result = _run("serve", "--host", "0.0.0.0", "--db", str(tmp_path / "x.db"), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error: LASTLINE_HOST: 0.0.0.0 is not loopback; set LASTLINE_API_KEYS to serve other hosts"
    )
