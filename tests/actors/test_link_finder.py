"""Links worth following, found by a real consolidation of a store written like the plugin writes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memactors.adapters.git.memory_store import MemoryStore
from memactors.adapters.git.state_codec import UnreadableState, _decode_keyed
from memactors.adapters.git.store import GitStore
from memactors.adapters.operations.graph import graph
from memactors.events.edge import EDGE_SCHEMA_VERSION, LINKLESS_SCHEMA_VERSION, EdgeType
from tests.conftest import git, run_cli
from tests.link_store import LinkStore, build_link_store


def _consolidated(path: Path, *args: str) -> LinkStore:
    store = build_link_store(path)
    done = run_cli("consolidate", "--repo", str(path), *args)
    assert done.returncode == 0, done.stderr
    return store


@pytest.fixture(scope="module")
def linked(tmp_path_factory: pytest.TempPathFactory) -> LinkStore:
    return _consolidated(tmp_path_factory.mktemp("links") / "shop")


def _links(store: LinkStore) -> dict[frozenset[str], list]:
    note_of = store.note_of()
    found: dict[frozenset[str], list] = {}
    for e in MemoryStore(GitStore(store.path)).load_state().edges.values():
        if e.is_link and e.in_force:
            found.setdefault(frozenset((note_of.get(e.source_key, e.source_key), note_of.get(e.target_key, e.target_key))),
                             []).append(e)
    return found


def _ids(store: LinkStore) -> dict[str, str]:
    note_of = store.note_of()
    return {note_of[m.key]: m.id for m in MemoryStore(GitStore(store.path)).scan(None).memories}


def test_a_progress_note_is_linked_to_the_decision_it_implements_and_look_alikes_are_not(linked: LinkStore) -> None:
    links = _links(linked)
    [rollout] = links[frozenset(("p-flags", "d-flags"))]
    assert rollout.edge_type is EdgeType.IMPLEMENTS and rollout.found_by == "offline"
    assert rollout.reason.startswith("shares rare words:") and "unleash" in rollout.reason
    assert frozenset(("l-prepared", "d-pool")) in links
    for trap in (("d-ratelimit", "d-jwt"), ("d-deploy-hook", "d-webhook"), ("d-email-case", "d-email"),
                 ("d-search", "d-pool")):
        assert frozenset(trap) not in links, trap


def test_a_second_run_finds_the_same_links_and_writes_nothing(linked: LinkStore) -> None:
    before = git(linked.path, "for-each-ref", "refs/notes/").stdout
    done = run_cli("consolidate", "--repo", str(linked.path))
    assert done.returncode == 0 and git(linked.path, "for-each-ref", "refs/notes/").stdout == before


def test_edge_notes_holding_links_say_version_2_so_an_older_reader_asks_for_an_upgrade(linked: LinkStore) -> None:
    listed = git(linked.path, "notes", "--ref=refs/notes/mem-edges", "list").stdout.split()
    versions = set()
    for commit in listed[1::2]:
        data = git(linked.path, "notes", "--ref=refs/notes/mem-edges", "show", commit, input=None).stdout.encode()
        version = json.loads(data)["schema_version"]
        versions.add(version)
        holds_link = any(f'"edge_type":"{t.value}"'.encode() in data for t in EdgeType if t.value in
                         ("relates_to", "depends_on", "implements", "extends", "supports"))
        assert version == (EDGE_SCHEMA_VERSION if holds_link else LINKLESS_SCHEMA_VERSION)
        if holds_link:  # what a memactors that reads edges up to version 1 does with it
            with pytest.raises(UnreadableState, match="upgrade memactors"):
                _decode_keyed(commit, data, LINKLESS_SCHEMA_VERSION, "edges", "edge")
    assert versions == {LINKLESS_SCHEMA_VERSION, EDGE_SCHEMA_VERSION}


def test_graph_follows_links_from_a_decision_to_its_work(linked: LinkStore) -> None:
    ids = _ids(linked)
    around = graph(linked.path, ids["d-flags"], depth=1, types=["implements"]).document
    assert [n["id"] for n in around["nodes"]] == [ids["d-flags"], ids["p-flags"]]
    assert around["edges"][0]["edge_type"] == "implements"


def test_the_users_links_outlast_every_run_and_nothing_original_changes(tmp_path: Path) -> None:
    store = _consolidated(tmp_path / "shop")
    ids, repo = _ids(store), str(store.path)
    originals = git(store.path, "for-each-ref", "refs/notes/mem/").stdout
    removed = run_cli("link", ids["p-flags"], ids["d-flags"], "--remove", "--json", "--repo", repo)
    assert removed.returncode == 0, removed.stderr
    assert [e["edge_type"] for e in json.loads(removed.stdout)["removed"]] == ["implements"]
    added = run_cli("link", ids["d-utc"], ids["d-email-case"], "--type", "supports", "--reason", "both about data",
                    "--repo", repo)
    assert added.returncode == 0 and "-[supports]->" in added.stdout
    assert run_cli("consolidate", "--full", "--repo", repo).returncode == 0
    links = _links(store)
    assert frozenset(("p-flags", "d-flags")) not in links
    [mine] = links[frozenset(("d-utc", "d-email-case"))]
    assert (mine.edge_type, mine.resolution, mine.found_by, mine.reason) == (EdgeType.SUPPORTS, "added", "user",
                                                                             "both about data")
    shown = run_cli("edges", ids["d-flags"], "--repo", repo).stdout
    assert ids["p-flags"] not in shown
    assert "[added by you]" in run_cli("edges", ids["d-utc"], "--repo", repo).stdout
    assert git(store.path, "for-each-ref", "refs/notes/mem/").stdout == originals


def test_bad_link_requests_say_what_is_wrong(linked: LinkStore) -> None:
    ids, repo = _ids(linked), str(linked.path)
    for args, says in (([ids["d-flags"], ids["d-flags"]], "itself"),
                       ([ids["d-flags"], "decisions:0000000:9"], "no memory"),
                       ([ids["d-flags"], ids["p-flags"], "--type", "likes"], "invalid choice")):
        done = run_cli("link", *args, "--repo", repo)
        assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr


def test_a_later_run_links_what_is_new_and_keeps_the_rest(tmp_path: Path) -> None:
    store = _consolidated(tmp_path / "shop")
    before = {pair: [e.id for e in edges] for pair, edges in _links(store).items()}
    entry = ("---\ntype: progress\ntimestamp: '2026-10-20T10:00:00+00:00'\nsummary: Raised checkout_v2 to 50% of "
             "users in the Unleash gradual rollout\n---\n\n## Summary\nUnleash gradual rollout of checkout_v2 now at "
             "50%.\n\n## Details\nConversion held on the checkout dashboard.")
    git(store.path, "notes", "--ref=refs/notes/mem/progress", "append", "-m", entry, "HEAD")
    assert run_cli("consolidate", "--repo", str(store.path)).returncode == 0
    new_key = next(m.key for m in MemoryStore(GitStore(store.path)).scan(None).memories
                   if m.summary.startswith("Raised checkout_v2"))
    state = MemoryStore(GitStore(store.path)).load_state()
    note_of = store.note_of()
    linked = {note_of.get(e.target_key if e.source_key == new_key else e.source_key)
              for e in state.edges.values() if e.is_link and new_key in (e.source_key, e.target_key)}
    assert "d-flags" in linked
    after = {pair: [e.id for e in edges] for pair, edges in _links(store).items()}
    assert all(after.get(pair) == ids for pair, ids in before.items())  # nothing earlier was withdrawn
