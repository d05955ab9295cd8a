"""`edge-origin check` and `edge-origin report`: argument parsing only; the work is in the library."""

from __future__ import annotations

import argparse
import sys

from edge_origin.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    UsageError,
    add_selection_flags,
    findings_flags,
    hold_until_exit,
    one_line,
    project_settings,
)


# --- check -------------------------------------------------------------------------------------
def _add_check_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="check CloudFormation templates (or a cdk.out) for edge-origin failure modes")
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="template files (.json/.yaml/.yml/.template), folders of them (recursive) or cdk.out directories; "
        "files that cannot be read are reported (stderr, and 'unreadable' in --format json) and the rest is checked: "
        "exit 1 then, 2 only when no file could be read",
    )
    p.add_argument("--format", default="text", help="text | json | markdown | sarif | github (GitHub Actions annotations) | junit (default: text)")
    p.add_argument(
        "--fail-on", default=None,
        help="exit 1 on findings at or above: error | warning | info (default: the config file's fail-on, else error)",
    )
    add_selection_flags(p)
    p.add_argument(
        "--advisory",
        action="store_true",
        help="also run the advisory (info) rules, e.g. EO-WATCH1: a long-lived origin without an imbalance alarm "
        "(for templates made without OriginWatch)",
    )
    p.add_argument(
        "--create-baseline", metavar="FILE", default=None,
        help="write today's open findings to FILE (JSON) and exit 0: adopt edge-origin on an app that already has findings",
    )
    p.add_argument(
        "--baseline", metavar="FILE", default=None,
        help="findings recorded in FILE (by --create-baseline) pass and are listed as such; new ones fail; baseline "
        "entries no longer found are reported as fixed (matched by rule + fingerprint, else rule + construct path)",
    )
    p.add_argument(
        "--soft-fail", action="store_true",
        help="exit 0 even when findings are at or above --fail-on (they are still printed; unreadable files still exit 1)",
    )
    p.set_defaults(func=_cmd_check)


def _cmd_check(args: argparse.Namespace) -> int:
    from edge_origin.model import ModelError
    from edge_origin.review.checker import FORMATS, check_paths, format_findings, summarize
    from edge_origin.rules import ADVISORY_RULES, RULES

    selection = project_settings(args)
    fail_on = findings_flags(args, FORMATS)
    if args.create_baseline and args.baseline:
        raise UsageError("--create-baseline and --baseline go separately: create the baseline once, then check against it")
    try:
        result = check_paths(args.paths, advisory=args.advisory, settings=selection)
    except (ModelError, RecursionError, MemoryError) as exc:
        raise UsageError(str(exc) if isinstance(exc, ModelError) else f"cannot read templates ({type(exc).__name__})") from None
    hold_until_exit(result)  # the model: freed by the process's exit, not when this returns
    for _, message in result.unreadable:
        print(f"edge-origin check: {one_line(message)}", file=sys.stderr)
    findings, acknowledged, known, fixed = _with_baseline(args, result.findings, list(result.acknowledged))
    rules = (*RULES, *ADVISORY_RULES) if args.advisory else RULES
    summary = summarize(findings, acknowledged, rules=rules, fail_on=fail_on, baseline=known, fixed=len(fixed))
    shown = [*acknowledged, *known]
    if args.format == "junit":
        from edge_origin.review.junit import format_junit

        left_out = {r.id: selection.reason(r.id) for r in rules if not selection.allows(r.id)}
        sys.stdout.write(format_junit(findings, rules=rules, left_out=left_out, fail_on=fail_on, unreadable=result.unreadable,
                                      acknowledged=shown, summary=summary, notices=args.setting_notices))
    else:
        sys.stdout.write(format_findings(findings, args.format, result.unreadable, acknowledged=shown, summary=summary,
                                         notices=args.setting_notices, fixed=fixed))
    failing = [f for f in findings if f.severity.at_least(fail_on)]
    if failing and (args.soft_fail or args.create_baseline):
        why = "--soft-fail" if args.soft_fail else f"--create-baseline wrote them to {one_line(args.create_baseline)}"
        print(f"edge-origin check: {len(failing)} finding(s) at or above {fail_on.value}; exit 0 ({why})", file=sys.stderr)
        failing = []
    return EXIT_FINDINGS if failing or result.unreadable else EXIT_OK


def _with_baseline(args: argparse.Namespace, findings: list, acknowledged: list) -> tuple[list, list, list, list]:
    """``--create-baseline`` writes the open findings; ``--baseline`` splits them: (new findings,
    acknowledged, known ones marked as set aside by the baseline, fixed entries)."""
    if not args.create_baseline and not args.baseline:
        return findings, acknowledged, [], []  # nothing of the baseline module is imported
    from dataclasses import replace

    from edge_origin.core.findings import Suppression
    from edge_origin.review.baseline import BaselineError, apply_baseline, write_baseline

    try:
        if args.create_baseline:
            count = write_baseline(findings, args.create_baseline)
            print(f"edge-origin check: wrote {count} finding(s) to the baseline {one_line(args.create_baseline)}", file=sys.stderr)
            return findings, acknowledged, [], []
        split = apply_baseline(findings, args.baseline)
    except BaselineError as exc:
        raise UsageError(str(exc)) from None
    why = Suppression("external", "baseline (--baseline)", "recorded in the baseline: accepted when it was created", args.baseline)
    return split.new, acknowledged, [replace(f, suppression=why) for f in split.known], split.fixed


# --- report ------------------------------------------------------------------------------------
def _add_report_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write a review report (Markdown + Mermaid) of the edge-to-origin paths")
    p.add_argument("paths", nargs="*", metavar="PATH", help="template files or cdk.out directories")
    p.add_argument("--format", default="markdown", help="markdown | text (default: markdown)")
    p.add_argument("--base", nargs="+", metavar="PATH", help="with --head: add 'What this change does' (the deployed side)")
    p.add_argument("--head", nargs="+", metavar="PATH", help="with --base: the change (reported instead of PATH)")
    add_selection_flags(p)
    p.set_defaults(func=_cmd_report)


def _cmd_report(args: argparse.Namespace) -> int:
    from edge_origin.model import ModelError
    from edge_origin.review.report import REPORT_FORMATS, report_change_paths, report_paths

    selection = project_settings(args)
    if args.format not in REPORT_FORMATS:
        raise UsageError(f"--format {args.format!r}: allowed {', '.join(REPORT_FORMATS)}")
    if (args.base is None) != (args.head is None):
        raise UsageError(f"{'--head' if args.head is None else '--base'} is needed too: --base and --head go together")
    if args.base is not None and args.paths:
        raise UsageError(f"give either PATH ({args.paths[0]}...) or --base/--head, not both")
    if args.base is None and not args.paths:
        raise UsageError("no templates given: PATH... (or --base PATH... --head PATH...)")
    try:
        if args.base is not None:
            text = report_change_paths(args.base, args.head, args.format, selection=selection, extra_notices=args.setting_notices)
        else:
            text = report_paths(args.paths, args.format, selection=selection, notices=args.setting_notices)
    except (ModelError, RecursionError, MemoryError) as exc:
        raise UsageError(str(exc) if isinstance(exc, ModelError) else f"cannot read templates ({type(exc).__name__})") from None
    sys.stdout.write(text)
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    _add_check_parser(sub)
    _add_report_parser(sub)
