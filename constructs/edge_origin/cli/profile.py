"""`edge-origin profile`: argument parsing only; the work is in the library."""

from __future__ import annotations

import argparse
import sys

from edge_origin.cli.common import UsageError


# --- profile -----------------------------------------------------------------------------------
def _add_profile_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("profile", help="check or render a connection profile (keepalive, idle timeouts, age)")
    psub = p.add_subparsers(dest="profile_command", required=True)
    c = psub.add_parser("check", help="check a profile file (JSON or YAML): exit 0 clean, 1 errors, 2 bad input")
    c.add_argument("file", help="profile file, JSON or YAML")
    c.add_argument("--format", choices=("text", "json"), default="text")
    c.add_argument("--no-cloudfront", action="store_true", help="internal origin: skip the CloudFront checks")
    c.add_argument(
        "--in-vpc-clients", action=argparse.BooleanOptionalAction, default=None,
        help="whether clients in the VPC reach the NLB directly (default: the file's in_vpc_clients key, else yes); "
        "--no-in-vpc-clients for a CloudFront-only path (no in-VPC client checks)",
    )
    r = psub.add_parser("render", help="render the matching gRPC settings for the services")
    r.add_argument("file", nargs="?", help="profile file (default: --preset, or the defaults)")
    r.add_argument("--preset", help="start from this preset (a file's own 'preset' key wins)")
    r.add_argument(
        "--lang", required=True,
        help="go, java, python, service-config, configmap, or an origin-verification interceptor: "
        "go-interceptor, java-interceptor, python-interceptor",
    )
    r.add_argument("--verify-header", help="origin verification header of the interceptors (default x-origin-verify)")
    r.add_argument("--name", default="edge-origin-connection-profile", help="ConfigMap name (--lang configmap)")
    r.add_argument("--namespace", default="default", help="ConfigMap namespace (--lang configmap)")
    r.add_argument("--no-cloudfront", action="store_true", help="internal origin: skip the CloudFront checks")
    p.set_defaults(func=_cmd_profile)


def _cmd_profile(args: argparse.Namespace) -> int:
    from edge_origin.profile import cli as profile_cli

    try:
        if args.profile_command == "check":
            code, out = profile_cli.check_file(
                args.file, args.format, cloudfront=not args.no_cloudfront, in_vpc_clients=args.in_vpc_clients
            )
        else:
            code, out = profile_cli.render_profile(
                args.file, args.preset, args.lang, args.name, args.namespace, cloudfront=not args.no_cloudfront,
                verify_header=args.verify_header,
            )
    except ValueError as exc:  # ProfileError, RenderError: bad input
        raise UsageError(str(exc)) from None
    sys.stdout.write(out)
    return code


def register(sub: argparse._SubParsersAction) -> None:
    _add_profile_parser(sub)
