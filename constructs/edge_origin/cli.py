"""The ``edge-origin`` command: argument parsing only; every command calls into the library.

Exit codes, for every subcommand: 0 clean, 1 findings (or a failed run), 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2


class UsageError(Exception):
    """Bad input: printed as one line, exit code 2."""


# --- check -------------------------------------------------------------------------------------
def _add_check_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="check CloudFormation templates (or a cdk.out) for edge-origin failure modes")
    p.add_argument("paths", nargs="+", metavar="PATH", help="template files (.json/.yaml/.yml/.template) or cdk.out directories")
    p.add_argument("--format", default="text", help="text | json | markdown | sarif (default: text)")
    p.add_argument("--fail-on", default="error", help="exit 1 on findings at or above: error | warning | info (default: error)")
    p.set_defaults(func=_cmd_check)


def _cmd_check(args: argparse.Namespace) -> int:
    from edge_origin.checker import FORMATS, check_paths, format_findings, parse_severity
    from edge_origin.model import ModelError

    if args.format not in FORMATS:
        raise UsageError(f"--format {args.format!r}: allowed {', '.join(FORMATS)}")
    try:
        fail_on = parse_severity(args.fail_on)
    except ValueError as exc:
        raise UsageError(f"--fail-on: {exc}") from None
    try:
        result = check_paths(args.paths)
    except (ModelError, RecursionError, MemoryError) as exc:
        raise UsageError(str(exc) if isinstance(exc, ModelError) else f"cannot read templates ({type(exc).__name__})") from None
    sys.stdout.write(format_findings(result.findings, args.format))
    return EXIT_FINDINGS if result.failing(fail_on) else EXIT_OK


# --- report ------------------------------------------------------------------------------------
def _add_report_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write a review report (Markdown + Mermaid) of the edge-to-origin paths")
    p.add_argument("paths", nargs="+", metavar="PATH", help="template files or cdk.out directories")
    p.add_argument("--format", default="markdown", help="markdown | text (default: markdown)")
    p.set_defaults(func=_cmd_report)


def _cmd_report(args: argparse.Namespace) -> int:
    from edge_origin.model import ModelError
    from edge_origin.report import REPORT_FORMATS, report_paths

    if args.format not in REPORT_FORMATS:
        raise UsageError(f"--format {args.format!r}: allowed {', '.join(REPORT_FORMATS)}")
    try:
        text = report_paths(args.paths, args.format)
    except (ModelError, RecursionError, MemoryError) as exc:
        raise UsageError(str(exc) if isinstance(exc, ModelError) else f"cannot read templates ({type(exc).__name__})") from None
    sys.stdout.write(text)
    return EXIT_OK


# --- profile -----------------------------------------------------------------------------------
def _add_profile_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("profile", help="check or render a connection profile (keepalive, idle timeouts, age)")
    psub = p.add_subparsers(dest="profile_command", required=True)
    c = psub.add_parser("check", help="check a profile file (JSON or YAML): exit 0 clean, 1 errors, 2 bad input")
    c.add_argument("file", help="profile file, JSON or YAML")
    c.add_argument("--format", choices=("text", "json"), default="text")
    c.add_argument("--no-cloudfront", action="store_true", help="internal origin: skip the CloudFront checks")
    r = psub.add_parser("render", help="render the matching gRPC settings for the services")
    r.add_argument("file", nargs="?", help="profile file (default: --preset, or the defaults)")
    r.add_argument("--preset", help="start from this preset (a file's own 'preset' key wins)")
    r.add_argument("--lang", required=True, help="go, java, python, service-config or configmap")
    r.add_argument("--name", default="edge-origin-connection-profile", help="ConfigMap name (--lang configmap)")
    r.add_argument("--namespace", default="default", help="ConfigMap namespace (--lang configmap)")
    p.set_defaults(func=_cmd_profile)


def _cmd_profile(args: argparse.Namespace) -> int:
    from edge_origin.profile import cli as profile_cli

    try:
        if args.profile_command == "check":
            code, out = profile_cli.check_file(args.file, args.format, cloudfront=not args.no_cloudfront)
        else:
            code, out = profile_cli.render_profile(args.file, args.preset, args.lang, args.name, args.namespace)
    except ValueError as exc:  # ProfileError, RenderError: bad input
        raise UsageError(str(exc).splitlines()[0]) from None
    sys.stdout.write(out)
    return code


# --- rehearse ----------------------------------------------------------------------------------
def _add_rehearse_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rehearse", help="replay a synchronized connection burst against the DNS plan")
    p.set_defaults(func=_cmd_rehearse)


def _cmd_rehearse(args: argparse.Namespace) -> int:
    raise UsageError("rehearse: not implemented yet")


# --- main --------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="edge-origin", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    _add_check_parser(sub)
    _add_report_parser(sub)
    _add_profile_parser(sub)
    _add_rehearse_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except UsageError as exc:
        print(f"edge-origin {args.command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"edge-origin {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
