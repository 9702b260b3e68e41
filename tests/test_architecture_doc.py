"""docs/architecture.md names real places: every file it cites exists and every name beside a file is defined there.

The page is the map a reader follows from a folder name to the room for a change; a restructure
that moves a module must move its line here too, or this test fails.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
#: `path/to/file.py` optionally followed by `Name` (a class or function defined in that file).
CITATION = re.compile(r"`((?:api|cache|kb|rules|core|bench|tests)/[\w/]+\.py)`(?: `(\w+)`)?")
FOLDER = re.compile(r"`((?:api|cache|kb|rules|core)/(?:[\w]+/)*)`")


def test_every_cited_file_exists_and_defines_the_name_beside_it() -> None:
    text = DOC.read_text(encoding="utf-8")
    cited = CITATION.findall(text)
    assert len(cited) > 30  # the stores table and the request path cite files on every row
    missing = [path for path, _ in cited if not (ROOT / path).is_file()]
    assert missing == []
    undefined = [
        f"{path} {name}" for path, name in cited
        if name and not re.search(rf"^\s*(?:class|(?:async\s+)?def) {name}\b",
                                  (ROOT / path).read_text(encoding="utf-8"), re.M)
    ]
    assert undefined == []


def test_every_cited_folder_exists() -> None:
    folders = FOLDER.findall(DOC.read_text(encoding="utf-8"))
    assert folders and [f for f in folders if not (ROOT / f).is_dir()] == []


def test_the_request_path_covers_every_middleware_the_app_installs() -> None:
    app = (ROOT / "api" / "app.py").read_text(encoding="utf-8")
    middleware = re.findall(r"add_middleware\((\w+)", app)
    text = DOC.read_text(encoding="utf-8")
    assert middleware and [m for m in middleware if f"`{m}`" not in text] == []
