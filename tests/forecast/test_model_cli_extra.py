"""`edge-origin model` without the rehearsal extra: help works; each command names the extra, exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_PROBE = r"""
import contextlib, io, json, sys
class Absent:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"numpy", "grpc", "grpc_health", "dns", "matplotlib"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Absent())
from edge_origin.cli import main
def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code
    return {"code": code, "out": out.getvalue(), "err": err.getvalue()}
print(json.dumps({
    "help": run("model", "fit", "--help"),
    "fit": run("model", "fit"),
    "predict": run("model", "predict", "--capacity", "1000", "--scale-seconds", "1"),
    "compare": run("model", "compare", "--no-loopback"),
}))
"""


def test_model_commands_name_the_extra_when_numpy_is_missing() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "constructs")}
    result = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-2000:]
    runs = json.loads(result.stdout.splitlines()[-1])
    assert runs["help"]["code"] == 0 and "--published" in runs["help"]["out"]
    for name in ("fit", "predict", "compare"):
        err = runs[name]["err"].strip()
        assert runs[name]["code"] == 2, (name, err)
        assert len(err.splitlines()) == 1 and "pip install 'edge-origin[rehearsal]'" in err, (name, err)
        assert "Traceback" not in err
