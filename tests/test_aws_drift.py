"""benchmarks/aws_drift.py: a report of what the installed botocore documents and edge-origin's tables
do not know. It exits 0 with a report, names the botocore version, and really detects drift: a member
removed from a copy of a table shows up."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import botocore

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "aws_drift.py"


def _module():
    spec = importlib.util.spec_from_file_location("aws_drift", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("aws_drift", module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_runs_as_a_report_exit_0_naming_the_botocore_version() -> None:
    env = {**os.environ, "PYTHONPATH": str(SCRIPT.parent.parent / "constructs")}
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"botocore {botocore.__version__}" in done.stdout
    assert "route53 ResourceRecordSet:" in done.stdout and "elbv2 target group attributes:" in done.stdout


def test_a_member_removed_from_a_copied_table_is_listed() -> None:
    drift = _module()
    known = {label: set(names) for label, names in drift.KNOWN.items()}
    before = drift.render(drift.sections(known))
    assert "  - Weight:" not in before and "  - tcp.idle_timeout.seconds" not in before
    assert "  - ResponseCompletionTimeout:" not in before and "  - zonal_shift.config.enabled" not in before
    known["route53 ResourceRecordSet"].discard("Weight")
    known["cloudfront Origin"].discard("ResponseCompletionTimeout")
    known["elbv2 listener attributes"].discard("tcp.idle_timeout.seconds")
    known["elbv2 load balancer attributes"].discard("zonal_shift.config.enabled")
    after = drift.render(drift.sections(known))
    assert "  - Weight: Weighted resource record sets only" in after
    assert "  - ResponseCompletionTimeout: The time (in seconds)" in after
    assert "  - tcp.idle_timeout.seconds [" in after
    assert "  - zonal_shift.config.enabled [both Application Load Balancers and Network Load Balancers]: Indicates whether zonal shift is enabled." in after


def test_a_table_entry_the_models_do_not_document_is_flagged() -> None:
    drift = _module()
    known = {label: set(names) for label, names in drift.KNOWN.items()}
    known["cloudfront Origin"].add("OriginFromTheFuture")
    text = drift.render(drift.sections(known))
    assert "  ! OriginFromTheFuture: in edge-origin's table, not documented by this botocore" in text


def test_the_facts_section_names_a_fact_a_doctored_model_contradicts(tmp_path: Path, capsys) -> None:
    """``--data DIR`` (what ``--newest`` hands over after unpacking the newest wheel): a copy of the
    models whose route53 MultiValueAnswer says "up to ten" is reported against the facts table."""
    import gzip
    import shutil

    from edge_origin.core import facts_check

    drift = _module()
    for svc in facts_check.SERVICES:
        model = facts_check._newest_model(facts_check.installed_data_dir(), svc)
        (tmp_path / svc / model.parent.name).mkdir(parents=True)
        shutil.copy(model, tmp_path / svc / model.parent.name / model.name)
    route53 = facts_check._newest_model(tmp_path, "route53")
    text = gzip.decompress(route53.read_bytes()).decode().replace("up to eight healthy records", "up to ten healthy records")
    route53.write_bytes(gzip.compress(text.encode()))
    assert drift.main(["--data", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"data folder {tmp_path}" in out
    assert "1 differ" in out and "  ! route53.multivalue.max_answers: botocore route53 ResourceRecordSet.MultiValueAnswer" in out
