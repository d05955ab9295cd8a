"""A folder walk reads nothing outside the folder (issue 50): a file symlink that leaves it, a link
to /proc/self/environ, a FIFO or any other non-regular file is refused with one line, never
opened; links that stay inside are read, as the cloud-assembly walk already does."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from edge_origin.model.loader import read_paths_result

TEMPLATE = {"Resources": {"R": {"Type": "AWS::SNS::Topic"}}}


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    (folder / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.template.json").write_text(json.dumps(TEMPLATE))
    (folder / "good.template.json").write_text(json.dumps(TEMPLATE))
    (folder / "linked.template.json").symlink_to("../outside/secret.template.json")
    (folder / "sub" / "inside.template.json").symlink_to("../good.template.json")
    (folder / "env.template.json").symlink_to("/proc/self/environ")
    (folder / "dangling.template.json").symlink_to("nowhere.template.json")
    os.mkfifo(folder / "pipe.template.json")
    (folder / "loop-a.template.json").symlink_to("loop-b.template.json")
    (folder / "loop-b.template.json").symlink_to("loop-a.template.json")
    return folder


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
def test_the_walk_reads_only_regular_files_inside_the_folder(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    result = read_paths_result([folder])
    assert sorted(Path(t.template).name for t in result.templates) == ["good.template.json"]  # inside link: same file
    refused = dict(result.unreadable)
    assert set(refused) == {str(folder / n) for n in ("linked.template.json", "env.template.json", "pipe.template.json",
                                                       "dangling.template.json", "loop-a.template.json",
                                                       "loop-b.template.json")}
    for name in ("dangling.template.json", "loop-a.template.json"):
        assert refused[str(folder / name)].endswith(
            "a symbolic link that does not lead to a file (missing target or a loop of links): not read")
    assert refused[str(folder / "linked.template.json")] == (
        f"{folder}/linked.template.json: a symbolic link to {tmp_path}/outside/secret.template.json, outside the folder "
        f"{folder}: not read")
    assert refused[str(folder / "env.template.json")].endswith(f"/environ, outside the folder {folder}: not read")
    assert refused[str(folder / "pipe.template.json")].endswith("is a named pipe (FIFO), not a regular file: not read")
    assert all("\n" not in line for line in refused.values())
    assert all("secret" not in t.stack for t in result.templates)


def test_a_manifest_linked_from_outside_is_not_followed(tmp_path: Path) -> None:
    folder = tmp_path / "repo"
    (folder / "app").mkdir(parents=True)
    (folder / "good.template.json").write_text(json.dumps(TEMPLATE))
    (tmp_path / "manifest.json").write_text(json.dumps({"artifacts": {}}))
    (folder / "app" / "manifest.json").symlink_to(tmp_path / "manifest.json")
    result = read_paths_result([folder])
    assert [Path(t.template).name for t in result.templates] == ["good.template.json"]
    assert "outside the folder" in dict(result.unreadable)[str(folder / "app")]
