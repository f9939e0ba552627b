"""State notes as git leaves them: several JSON documents in one note after a squashing rebase."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from memactors.adapters.git.state_codec import (
    decode_edges_note,
    decode_meta_note,
    decode_runs_note,
    encode_edges_note,
    encode_meta_note,
    encode_runs,
)
from memactors.events.edge import Edge, EdgeType
from memactors.events.metadata import MemoryMeta
from memactors.events.tier import Tier
from tests.conftest import Repo, git, run_cli

COMMIT = "a" * 40
WHEN = datetime(2026, 5, 1, tzinfo=timezone.utc)


def meta(key: str, **fields) -> MemoryMeta:
    return MemoryMeta(key=key, id=f"decisions:{COMMIT}:0", namespace="decisions", commit=COMMIT,
                      created=WHEN, tier=Tier.HOT, **fields)


def concatenated(*notes: bytes) -> bytes:
    """What git's notes.rewriteMode=concatenate makes of two notes: joined by a blank line."""
    return b"\n".join(notes)


def test_concatenated_metadata_notes_union_their_records_and_merge_a_repeated_one() -> None:
    first = encode_meta_note([meta("k1", activation_count=3), meta("k2")])
    second = encode_meta_note([meta("k1", activation_count=1, last_access=WHEN, superseded_by="k3"), meta("k3")])
    records = {m.key: m for m in decode_meta_note(COMMIT, concatenated(first, second))}
    assert set(records) == {"k1", "k2", "k3"}
    assert records["k1"].activation_count == 3
    assert records["k1"].last_access == WHEN and records["k1"].superseded_by == "k3"


def test_concatenated_run_notes_keep_every_run_once_in_order() -> None:
    first = encode_runs([{"run_id": "r1"}, {"run_id": "r2"}])
    second = encode_runs([{"run_id": "r2"}, {"run_id": "r3"}])
    assert [run["run_id"] for run in decode_runs_note(concatenated(first, second))] == ["r1", "r2", "r3"]


def test_a_resolved_conflict_survives_concatenation_whichever_document_holds_it() -> None:
    edge = Edge(source_key="a", target_key="b", source_id="x:a:0", target_id="x:b:0",
                edge_type=EdgeType.CONTRADICTS, created_at=WHEN, consolidation_run_id="r1")
    resolved = edge.model_copy(update={"resolution": "keep:a"})
    for pair in ((edge, resolved), (resolved, edge)):
        data = concatenated(*(encode_edges_note([e]) for e in pair))
        assert [e.resolution for e in decode_edges_note(COMMIT, data)] == ["keep:a"]


def test_a_newer_schema_in_any_document_is_refused() -> None:
    newer = json.dumps({"schema_version": 99, "memories": {}}).encode()
    try:
        decode_meta_note(COMMIT, concatenated(encode_meta_note([meta("k1")]), newer))
    except ValueError as exc:
        assert "upgrade memactors" in str(exc)
    else:
        raise AssertionError("a metadata note of schema_version 99 was read")


def commit_file(repo: Repo, name: str) -> None:
    (repo.path / name).write_text(name)
    git(repo.path, "add", name)
    git(repo.path, "commit", "-q", "-m", name)


def test_a_squashing_rebase_leaves_a_store_the_next_run_reads(populated: Repo) -> None:
    git(populated.path, "config", "--add", "notes.rewriteRef", "refs/notes/mem/*")  # as git-notes-memory sets it
    commit_file(populated, "one")
    populated.capture("decisions", "Cache sessions in Redis", "Sessions outlive a process.")
    assert run_cli("consolidate", "--repo", str(populated.path)).returncode == 0
    old_id = f"decisions:{git(populated.path, 'rev-parse', 'HEAD').stdout.strip()}:0"
    commit_file(populated, "two")
    populated.capture("learnings", "Redis needs a maxmemory policy", "Else it evicts nothing and dies.")
    assert run_cli("consolidate", "--repo", str(populated.path)).returncode == 0

    git(populated.path, "rebase", "-q", "-i", "HEAD~2",
        env={"GIT_SEQUENCE_EDITOR": "sed -i '2s/^pick/squash/'", "GIT_EDITOR": "true"})
    assert "two" in git(populated.path, "show", "--stat", "HEAD").stdout
    for ref, opening in (("refs/notes/mem-meta", '"memories":{'), ("refs/notes/mem-runs", '"runs":[')):
        assert populated.note(ref).count(opening) == 2, ref  # git concatenated both notes

    before = populated.originals()
    result = run_cli("consolidate", "--json", "--repo", str(populated.path))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["memories_processed"] == 8
    assert json.loads(result.stdout)["memories_skipped"] == {"rewritten_copy": 2}  # the old commits' notes
    assert populated.originals() == before
    status = json.loads(run_cli("status", "--json", "--repo", str(populated.path)).stdout)
    assert status["last_run"]["run_id"] == json.loads(result.stdout)["run_id"]

    # The rebase left the old notes behind: the copy on the new commit is the memory, the old ID an alias.
    head = git(populated.path, "rev-parse", "HEAD").stdout.strip()
    for asked in (f"decisions:{head[:7]}:0", old_id):
        shown = json.loads(run_cli("show", asked, "--json", "--repo", str(populated.path)).stdout)
        assert shown["id"] == f"decisions:{head}:0" and shown["aliases"] == [old_id]
        assert shown["meta"]["commit"] == head
    refs = populated.refs()
    assert run_cli("consolidate", "--repo", str(populated.path)).returncode == 0
    assert populated.refs() == refs
