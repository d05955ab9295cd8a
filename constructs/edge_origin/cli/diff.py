"""`edge-origin diff`: argument parsing only; the work is in ``edge_origin.review.diff``."""

from __future__ import annotations

import argparse
import sys

from edge_origin.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    UsageError,
    add_selection_flags,
    findings_flags,
    project_settings,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "diff",
        help="what deploying --head over --base does to the origin paths: changes and transition findings",
        description="Compare two sets of templates or cloud assemblies (main's cdk.out and the PR's), matched by stack and logical id.",
    )
    p.add_argument("--base", nargs="+", required=True, metavar="PATH", help="the deployed side: template files or a cdk.out")
    p.add_argument("--head", nargs="+", required=True, metavar="PATH", help="the change: template files or a cdk.out")
    p.add_argument("--format", default="text", help="text | json | markdown | sarif | junit (default: text)")
    p.add_argument(
        "--fail-on", default=None,
        help="exit 1 on findings at or above: error | warning | info (default: the config file's fail-on, else error)",
    )
    add_selection_flags(p)
    p.add_argument(
        "--fail-on-new-only", action="store_true",
        help="head's own findings fail the run only when base did not have them (transition findings always count)",
    )
    p.set_defaults(func=_cmd_diff)


def _cmd_diff(args: argparse.Namespace) -> int:
    from edge_origin.model import ModelError
    from edge_origin.review.diff import DIFF_FORMATS, diff_paths, format_diff

    selection = project_settings(args)
    fail_on = findings_flags(args, DIFF_FORMATS)
    from edge_origin.review.diff_suppressions import diff_with_suppressions

    try:
        everything = diff_paths(args.base, args.head)
    except ModelError as exc:
        raise UsageError(str(exc)) from None
    except (RecursionError, MemoryError) as exc:
        raise UsageError(f"cannot read templates ({type(exc).__name__})") from None
    result = everything.selected(selection)
    shown = diff_with_suppressions(everything, result, selection, args.setting_notices)
    if args.format == "sarif":
        sys.stdout.write(shown.sarif())
    else:
        sys.stdout.write(shown.wrap(format_diff(result, args.format), args.format))
    failing = result.failing(fail_on, args.fail_on_new_only) or [f for f in shown.errors if f.severity.at_least(fail_on)]
    return EXIT_FINDINGS if failing else EXIT_OK
