"""Root folders are imported only as `memactors.*`."""

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


def test_each_layer_imports_only_the_layers_below_it() -> None:
    """events <- bus <- actors <- adapters: nothing imports a layer above its own."""
    above = {"events": ("bus", "actors", "adapters"), "bus": ("actors", "adapters"), "actors": ("adapters",)}
    offenders = []
    for folder, forbidden in above.items():
        pattern = re.compile(rf"^\s*(from|import)\s+memactors\.({'|'.join(forbidden)})\b", re.MULTILINE)
        offenders += [f"{path.relative_to(ROOT)}: {match.group(0).strip()}"
                      for path in (ROOT / folder).rglob("*.py") for match in pattern.finditer(path.read_text())]
    assert offenders == []


def test_the_actors_folder_holds_actors_and_their_ports_and_the_algorithms_their_own_package() -> None:
    from memactors.bus.actor import Actor

    modules = sorted(p.stem for p in (ROOT / "actors").glob("*.py") if p.stem != "__init__")
    not_actors = []
    for name in modules:
        module = __import__(f"memactors.actors.{name}", fromlist=["_"])
        if name != "ports" and not any(isinstance(v, type) and issubclass(v, Actor) and v.__module__ == module.__name__
                                       for v in vars(module).values()):
            not_actors.append(name)
    assert not_actors == []


def test_no_adapter_package_imports_one_on_a_floor_above_it() -> None:
    """adapters.FLOORS: system <- git <- reading <- claude <- models <- runtime <- operations <- viewer <- mcp <- cli."""
    from memactors.adapters import FLOORS

    rank = {name: i for i, name in enumerate(FLOORS)}
    packages = {p.name for p in (ROOT / "adapters").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages == set(FLOORS), packages ^ set(FLOORS)
    pattern = re.compile(r"^\s*(?:from|import)\s+memactors\.adapters\.(\w+)", re.MULTILINE)
    upward = [f"{path.relative_to(ROOT)} imports adapters.{match.group(1)}"
              for path in (ROOT / "adapters").rglob("*.py") if len(path.relative_to(ROOT / "adapters").parts) > 1
              for match in pattern.finditer(path.read_text())
              if rank[match.group(1)] > rank[path.relative_to(ROOT / "adapters").parts[0]]]
    assert upward == []
