"""core.fast_json's light import: the ``edge-origin`` program's read-and-print commands import orjson without the
modules it reads only to serialize UUIDs and dataclasses (uuid, dataclasses and what they import: ~9 ms of a
check's start, issue 53), and orjson reads and writes JSON values exactly as it does when imported plainly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from edge_origin.core import fast_json

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "constructs")}

CHILD = """
import sys
from edge_origin.core import fast_json
fast_json.LIGHT_IMPORT = True
assert fast_json.available()
import orjson
print(sorted(n for n in ("uuid", "dataclasses", "inspect", "platform") if n in sys.modules))
print(sorted(n for n, m in sys.modules.items() if m.__class__.__name__ == "_StandIn"))
print(fast_json.loads_exact(b'{"a": [1, 2.5, null, true, "x"], "b": {"c": -3}}'))
print(fast_json.loads_exact(b'{"a": 1, "a": 2}'))
import dataclasses, uuid
print(callable(dataclasses.dataclass), callable(uuid.uuid4))
try:
    orjson.dumps(uuid.uuid4())
except TypeError:
    print("uuid refused")
"""


def test_the_light_import_leaves_json_as_it_was_and_the_modules_unimported() -> None:
    run = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=ENV, timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines() == [
        "[]",  # none of the write-only modules (nor what they import) was imported
        "[]",  # no stand-in left behind
        "{'a': [1, 2.5, None, True, 'x'], 'b': {'c': -3}}",
        "None",  # a repeated key: still declined (the strict parse words it)
        "True True",  # a later import gets the real modules
        "uuid refused",  # orjson in this process writes no UUID (nothing in it hands orjson one)
    ]


def test_the_program_imports_orjson_lightly_and_a_library_caller_plainly(tmp_path: Path) -> None:
    """``edge-origin check`` of a template large enough for orjson imports neither uuid nor dataclasses; ``cli.main``
    in a library caller's process imports orjson as it is."""
    template = tmp_path / "big.template.json"
    body = {"Resources": {"B": {"Type": "AWS::S3::Bucket", "Metadata": {"pad": "x" * (4 << 20)}}}}
    template.write_text(json.dumps(body))
    program = subprocess.run([sys.executable, "-X", "importtime", "-m", "edge_origin.cli", "check", str(template)],
                             capture_output=True, text=True, env=ENV, timeout=120, check=False)
    library = subprocess.run([sys.executable, "-X", "importtime", "-c",
                              f"from edge_origin.cli import main; print(main(['check', {str(template)!r}]))"],
                             capture_output=True, text=True, env=ENV, timeout=120, check=False)
    imported = [{line.rsplit("|", 1)[1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")}
                for run in (program, library)]
    assert program.returncode == 0, program.stderr[-2000:]
    assert "orjson" in imported[0] and not {"uuid", "dataclasses"} & imported[0]
    assert library.stdout.splitlines()[-1:] == ["0"], library.stderr[-2000:]
    assert {"orjson", "uuid", "dataclasses"} <= imported[1]


def test_an_orjson_that_refuses_the_stand_ins_is_imported_plainly(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bool] = []
    real = object()

    def importing() -> object:
        standing = sys.modules.get("uuid").__class__ is fast_json._StandIn
        calls.append(standing)
        if standing:
            raise SystemError("orjson read a name the stand-in answers wrongly")
        return real

    monkeypatch.delitem(sys.modules, "uuid", raising=False)
    monkeypatch.setattr(fast_json, "_import", importing)
    assert fast_json._import_lightly() is real
    assert calls == [True, False]
    assert not any(m.__class__ is fast_json._StandIn for m in list(sys.modules.values()))


def test_a_module_already_imported_is_not_stood_in(monkeypatch: pytest.MonkeyPatch) -> None:
    import uuid

    seen: list[object] = []
    monkeypatch.setattr(fast_json, "_import", lambda: seen.append(sys.modules["uuid"]) or "orjson")
    assert fast_json._import_lightly() == "orjson"
    assert seen == [uuid]
