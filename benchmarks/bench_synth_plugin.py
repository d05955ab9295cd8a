#!/usr/bin/env python3
"""What the synth plugin costs (issue 53 item 3): the reference app synthesized with `EdgeOriginChecks`
registered and without it, alternated in one process, CloudFormation validation off and on.

    python benchmarks/bench_synth_plugin.py [rounds]          # default 9 rounds off, 5 on; target <= 1.05

Both builds are the same app (both stacks of app.py, cdk.json's context, the acknowledgements, path and
asset metadata on as the CDK CLI sets them) written to a fresh folder; only the plugin differs. Prints
the median of each side, the ratio of medians, the median of per-round ratios (each round runs the two
back to back, the order flipped every round, so load on a shared machine hits both alike) and the ratio
of the minimums, plus the plugin's own time inside `validate` (rules, model, reading the templates).

Measured 2026-12-06 on 2 cores with a load average of 11-12 (eight other jobs), 9 rounds off / 5 on:
the plugin adds 8 jsii requests to a synth's ~612 (its registration and CDK's callbacks; a synth with
no finding reads nothing else through jsii); its `validate` takes 10-16 ms of CPU, 46-70 ms wall:
1 + validate / synth without = 1.030 (validation on) and 1.032 (off), target <= 1.05. The wall-clock
ratios of whole synths swung from 0.81 to 1.33 either way in the same run: on a machine that loaded,
only the plugin's own share means much. Before (issue 53): 1.24-1.30x, 72 % of it reading every
construct's metadata through jsii for acknowledgements on every synth.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "constructs"))
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

import aws_cdk as cdk  # noqa: E402

from edge_origin.review.nag import EdgeOriginChecks  # noqa: E402
from stacks.acknowledgements import acknowledge_reference_findings  # noqa: E402
from stacks.app_builder import STACK_NAME, build_vpc_origin_stack, cdk_json_context  # noqa: E402
from stacks.reference import ReferenceConfig, TelemetryIngestStack  # noqa: E402

#: What `cdk synth` passes an app: path metadata (the plugin names constructs by it) and asset metadata.
CLI_CONTEXT = {"aws:cdk:enable-path-metadata": True, "aws:cdk:enable-asset-metadata": True}


class Timed(EdgeOriginChecks):
    """The plugin, timing its own ``validate`` (wall clock, and this process's CPU: load-proof)."""

    spent: list[float] = []
    cpu: list[float] = []

    def validate(self, context):  # noqa: ANN001, ANN201
        start, cpu = time.perf_counter(), time.process_time()
        try:
            return super().validate(context)
        finally:
            Timed.spent.append(time.perf_counter() - start)
            Timed.cpu.append(time.process_time() - cpu)


def synth(plugin: bool, validation: bool) -> float:
    outdir = tempfile.mkdtemp(prefix="bench-synth-")
    start = time.perf_counter()
    try:
        app = cdk.App(context={**cdk_json_context(), **CLI_CONTEXT}, outdir=outdir, stack_traces=False,
                      builtin_cloud_formation_validation=validation)
        config = ReferenceConfig.from_context(app.node)
        env = cdk.Environment(account=config.account, region=config.region)
        stacks = [TelemetryIngestStack(app, STACK_NAME, config=config, env=env), build_vpc_origin_stack(app, config)]
        for stack in stacks:
            acknowledge_reference_findings(stack)
        if plugin:
            cdk.Validations.of(app).add_plugins(Timed())
        app.synth()
        return time.perf_counter() - start
    finally:
        shutil.rmtree(outdir, ignore_errors=True)


def measure(rounds: int, validation: bool) -> tuple[list[float], list[float]]:
    with_plugin, without = [], []
    for i in range(rounds):
        pair = [(True, with_plugin), (False, without)]
        for plugin, samples in pair if i % 2 == 0 else pair[::-1]:
            samples.append(synth(plugin, validation))
    return with_plugin, without


def report(label: str, with_plugin: list[float], without: list[float]) -> None:
    med_with, med_without = statistics.median(with_plugin), statistics.median(without)
    per_round = statistics.median(w / o for w, o in zip(with_plugin, without, strict=True))
    print(f"CloudFormation validation {label}, {len(with_plugin)} alternated rounds:")
    print(f"  with EdgeOriginChecks     : {med_with * 1000:8.1f} ms (median)")
    print(f"  without                   : {med_without * 1000:8.1f} ms (median)")
    print(f"  ratio of medians          : {med_with / med_without:8.3f}   (target <= 1.05)")
    print(f"  median of per-round ratios: {per_round:8.3f}")
    print(f"  ratio of minimums         : {min(with_plugin) / min(without):8.3f}")
    spent = statistics.median(Timed.spent[-len(with_plugin):])
    print(f"  the plugin's validate()   : {spent * 1000:8.1f} ms (median)")
    cpu = statistics.median(Timed.cpu[-len(with_plugin):])
    print(f"  the plugin's validate() CPU: {cpu * 1000:7.1f} ms (median; this process only)")
    print(f"  1 + validate() / without  : {1 + spent / med_without:8.3f}   (the plugin's own share: least disturbed by load)")


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    if rounds < 3:
        raise SystemExit("rounds: at least 3")
    synth(True, False), synth(False, False)  # warm jsii and the imports
    from bench_synth import JsiiCalls  # the counter of requests to the jsii kernel

    for plugin in (False, True):
        with JsiiCalls() as calls:
            synth(plugin, False)
        print(f"one synth {'with' if plugin else 'without'} the plugin: {calls.summary()}")
    report("off", *measure(rounds, validation=False))
    report("on", *measure(max(3, rounds * 5 // 9), validation=True))


if __name__ == "__main__":
    main()
