"""The shipped model data cites a published source a user can open, never a file of a dev machine."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from edge_origin.forecast.events import load_events

DATA = resources.files("edge_origin.data")
POST_URL = ("https://aws.amazon.com/blogs/architecture/how-bitdrift-scaled-to-121-million-concurrent-grpc-"
            "connections-on-amazon-cloudfront-for-live-telemetry-sporting-events/")
# a path a user cannot open: /work/..., /home/..., /Users/..., /tmp/..., C:\...
LOCAL_PATH = re.compile(r"(?<![\w.:/])(/(work|home|Users|tmp|root|mnt|opt|var)/[\w.-]+|[A-Za-z]:\\\\?[\w])")
KINDS = ("post:", "derived:", "assumption:")


def _shipped_text_files() -> list[str]:
    names = []
    for item in DATA.iterdir():
        if item.is_file() and item.name.endswith((".json", ".yaml", ".csv", ".txt")):
            names.append(item.name)
        elif item.is_dir():
            names.extend(f"{item.name}/{sub.name}" for sub in item.iterdir() if sub.is_file() and sub.name.endswith((".json", ".yaml")))
    return sorted(names)


@pytest.mark.parametrize("name", _shipped_text_files())
def test_no_shipped_data_file_points_at_a_local_path(name: str) -> None:
    text = DATA.joinpath(name).read_text(encoding="utf-8")
    assert not LOCAL_PATH.search(text), (name, LOCAL_PATH.search(text))
    assert "guide line" not in text and "background/" not in text


@pytest.mark.parametrize("name", ["model_events.json", "model_published.json"])
def test_the_published_source_is_named_with_title_and_url(name: str) -> None:
    post = json.loads(DATA.joinpath(name).read_text(encoding="utf-8"))["published_source"]["post"]
    assert post["url"] == POST_URL
    assert post["title"].startswith("How bitdrift scaled to 121 million concurrent gRPC connections")
    assert post["publisher"] == "AWS Architecture Blog"


def test_every_number_of_every_event_has_a_source_or_an_assumption_flag() -> None:
    data = json.loads(DATA.joinpath("model_events.json").read_text(encoding="utf-8"))
    for raw in data["events"]:
        numbers = [k for k, v in raw.items() if isinstance(v, int | float) and not isinstance(v, bool)]
        nulls = [k for k, v in raw.items() if v is None]
        for key in numbers + nulls:
            source = raw["sources"].get(key, "")
            assert source.startswith(KINDS), (raw["name"], key, source)
        for key in nulls:  # a figure left out is derived or assumed, never silently filled in
            assert raw["sources"][key].startswith(("derived:", "assumption:")), (raw["name"], key)
    events = {e.name: e for e in load_events()}
    assert events["mar1-2"].sources["duration_seconds"].startswith("assumption:")


def test_every_published_cell_quotes_the_post() -> None:
    data = json.loads(DATA.joinpath("model_published.json").read_text(encoding="utf-8"))
    assert all(c["source"].startswith("post:") for c in data["cells"])
