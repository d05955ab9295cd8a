"""`edge-origin origin-secret rotate|retire-previous`: argument parsing only; the work is in edge_origin.live."""

from __future__ import annotations

import argparse
import sys

from edge_origin.cli.common import EXIT_OK, UsageError, int_range


def add_session_arguments(parser: argparse.ArgumentParser) -> None:
    """``live.session.add_session_arguments`` without importing boto3 when the parser is built (~0.35 s
    on every ``edge-origin`` start); a test keeps the two in step."""
    parser.add_argument("--region", help="AWS region (default: the profile's, else us-east-1)")
    parser.add_argument("--profile", help="AWS named profile")
    parser.add_argument("--endpoint-url", help="send every API call here (a moto server, a VPC endpoint)")
    parser.add_argument("--max-attempts", type=int_range(1, 10), default=3, metavar="N",
                        help="requests sent per API call in all, the first included (default 3)")
    parser.add_argument("--deadline", type=_deadline, default=None, metavar="SECONDS",
                        help="stop the whole command after this many seconds, whatever call is in flight (default 120; enact: 120 + --wait)")


def _deadline(text: str) -> float:
    from edge_origin.live.session import _deadline as parse

    return parse(text)


def _add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("origin-secret", help="rotate the origin verification secret (prints version ids, never values)")
    psub = p.add_subparsers(dest="origin_secret_command", required=True)
    for name, text in (
        ("rotate", "put a new value as current, the old one as previous (step 1 of the rotation)"),
        ("retire-previous", "clear previous once CloudFront sends the new value (step 4)"),
    ):
        c = psub.add_parser(name, help=text)
        c.add_argument("--secret-id", required=True, help="ARN or name of the Secrets Manager secret")
        c.add_argument("--json-field", default="current", help="key of the value CloudFront sends (default current)")
        c.add_argument("--previous-json-field", default="previous", help="key of the other accepted value (default previous)")
        c.add_argument("--version-id", help="the new version's id (default: a new UUID)")
        add_session_arguments(c)
    p.set_defaults(func=_cmd)


def _cmd(args: argparse.Namespace) -> int:
    from edge_origin.live import origin_secret
    from edge_origin.live.session import LiveError, session_from_args

    try:
        client = session_from_args(args).client("secretsmanager")
        fn = origin_secret.rotate if args.origin_secret_command == "rotate" else origin_secret.retire_previous
        result = fn(
            client,
            args.secret_id,
            current_field=args.json_field,
            previous_field=args.previous_json_field,
            version_id=args.version_id,
        )
    except LiveError as exc:
        raise UsageError(str(exc)) from None
    if args.origin_secret_command == "rotate":
        sys.stdout.write(result.next_step() + "\n")
    else:
        sys.stdout.write(f"new version {result.version_id}: previous cleared; pin it as origin_verification.version_id too.\n")
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    _add_parser(sub)
