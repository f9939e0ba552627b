"""Root folders are imported only as `memactors.*` (DESIGN.md §7)."""

from __future__ import annotations

import re
from pathlib import Path

import memactors.events.pipeline as pipeline

ROOT = Path(__file__).resolve().parent.parent
BARE = re.compile(r"^\s*(from|import)\s+(events|bus|actors|adapters)(\.|\s|$)", re.MULTILINE)


def test_no_module_imports_a_root_folder_by_its_bare_name() -> None:
    offenders = []
    for path in ROOT.rglob("*.py"):
        if any(part in {".git", "build", ".venv", "venv"} or part.endswith(".egg-info") for part in path.parts):
            continue
        for match in BARE.finditer(path.read_text()):
            offenders.append(f"{path.relative_to(ROOT)}: {match.group(0).strip()}")
    assert offenders == []


def test_the_packages_install_into_the_memactors_namespace() -> None:
    assert pipeline.__name__ == "memactors.events.pipeline"
    assert Path(pipeline.__file__).resolve().parent == ROOT / "events"


def test_actors_and_bus_do_not_touch_the_outside_world() -> None:
    forbidden = re.compile(r"^\s*(import|from)\s+(pygit2|subprocess|openai|watchfiles|onnxruntime)\b", re.MULTILINE)
    offenders = [
        str(path.relative_to(ROOT))
        for folder in ("events", "bus", "actors")
        for path in (ROOT / folder).rglob("*.py")
        if forbidden.search(path.read_text())
    ]
    assert offenders == []
