"""The one place boto3 clients are made: region, profile, endpoint, retries and timeouts.

Every live command builds a ``LiveSession`` (the CLI from ``--region/--profile/--endpoint-url``)
and passes it down; tests hand in one pointed at moto. Problems with credentials, profiles or
endpoints become ``LiveError`` (one line, exit 2 in the CLI), never a botocore traceback.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any

# boto3 is imported on first use: every `edge-origin` command registers the session flags, and
# importing boto3 costs 0.15-0.6 s of each CLI start.

# Bounded: an unreachable endpoint fails in a few seconds, not minutes. MAX_ATTEMPTS counts every
# request sent, the first included: botocore's ``total_max_attempts`` (its ``max_attempts`` counts
# the retries only, so ``max_attempts: 3`` sends 4 requests).
MAX_ATTEMPTS = 3
MAX_ATTEMPTS_RANGE = (1, 10)
CONNECT_TIMEOUT_S = 2.0
READ_TIMEOUT_S = 10.0
DEFAULT_REGION = "us-east-1"


class LiveError(ValueError):
    """A live command cannot run (credentials, profile, endpoint, region): one line."""


@dataclass
class LiveSession:
    """boto3 clients with edge-origin's retry and timeout settings, one client per service."""

    region: str | None = None
    profile: str | None = None
    endpoint_url: str | None = None
    max_attempts: int = MAX_ATTEMPTS
    connect_timeout: float = CONNECT_TIMEOUT_S
    read_timeout: float = READ_TIMEOUT_S
    _session: Any = field(default=None, init=False, repr=False)
    _clients: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        lo, hi = MAX_ATTEMPTS_RANGE
        if not (isinstance(self.max_attempts, int) and lo <= self.max_attempts <= hi):
            raise LiveError(f"--max-attempts {self.max_attempts!r}: allowed {lo}..{hi} (requests sent in all, the first included)")
        import boto3
        import botocore.exceptions

        try:
            self._session = boto3.session.Session(profile_name=self.profile, region_name=self.region)
        except botocore.exceptions.ProfileNotFound:
            raise LiveError(f"{self._profile_shown()}: no such profile in the AWS config files "
                            "(list them with: aws configure list-profiles; or pass another --profile)") from None
        except botocore.exceptions.BotoCoreError as exc:
            raise LiveError(f"AWS configuration: {exc}") from None
        if self.region is None:
            self.region = self._session.region_name or DEFAULT_REGION

    @property
    def boto3_session(self) -> Any:
        return self._session

    def client(self, service: str) -> Any:
        """The client for ``service`` (cached). Route 53 and CloudFront are global: us-east-1."""
        if service not in self._clients:
            import botocore.config
            import botocore.exceptions

            region = "us-east-1" if service in ("route53", "cloudfront") and not self.endpoint_url else self.region
            config = botocore.config.Config(
                retries={"mode": "standard", "total_max_attempts": self.max_attempts},
                connect_timeout=self.connect_timeout,
                read_timeout=self.read_timeout,
                user_agent_extra="edge-origin",
            )
            from edge_origin.live.boundary import guard_client
            from edge_origin.live.guard import track_client

            try:
                client = self._session.client(service, region_name=region, endpoint_url=self.endpoint_url, config=config)
            except (botocore.exceptions.BotoCoreError, ValueError) as exc:
                raise LiveError(f"{service} client: {exc}") from None
            self._clients[service] = track_client(guard_client(client))
        return self._clients[service]

    def _profile_shown(self) -> str:
        import os

        if self.profile is not None:
            return f"--profile {self.profile!r}"
        env = os.environ.get("AWS_PROFILE") or os.environ.get("AWS_DEFAULT_PROFILE")
        return f"profile {env!r} (AWS_PROFILE)" if env else "the default profile"

    def check_credentials(self) -> None:
        """Resolve the credentials now (before any API call), remember their secret parts for
        ``redact``, and raise LiveError, one line naming the profile and what to do, when they
        cannot be had (``credential_error``)."""
        from edge_origin.live.redact import remember

        try:
            creds = self._session.get_credentials()
            frozen = creds.get_frozen_credentials() if creds is not None else None
        except Exception as exc:  # botocore raises ValueError (JSON), BotoCoreError, OSError
            raise credential_error(self._profile_shown(), exc) from None
        if frozen is None:
            raise LiveError(
                "no AWS credentials found (set AWS_PROFILE / --profile, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"
            )
        remember(frozen.secret_key, frozen.token)


def credential_error(profile: str, exc: BaseException) -> LiveError:
    """One line for credentials that cannot be resolved: the profile and what to do (no traceback)."""
    import json

    import botocore.exceptions

    from edge_origin.live.redact import redact

    detail = redact(" ".join(str(exc).split()))[:200]
    if isinstance(exc, json.JSONDecodeError) or "credential_process" in detail.lower() and isinstance(exc, ValueError):
        return LiveError(f"{profile}: its credential_process printed something that is not the JSON AWS expects ({detail}): "
                         "run the command by hand; it must print one JSON object with Version 1, AccessKeyId, SecretAccessKey "
                         "(and SessionToken, Expiration for temporary credentials)")
    if isinstance(exc, botocore.exceptions.CredentialRetrievalError):
        return LiveError(f"{profile}: its credential_process failed ({detail}): run the command by hand and fix it")
    if isinstance(exc, botocore.exceptions.SSOError) or type(exc).__name__.startswith(("SSO", "UnauthorizedSSO")):
        name = profile.split("'")[1] if "'" in profile else "default"
        return LiveError(f"{profile}: the SSO token is missing or expired ({detail}): run: aws sso login --profile {name}")
    if isinstance(exc, botocore.exceptions.ProfileNotFound):
        return LiveError(f"{profile}: {detail} (list them with: aws configure list-profiles)")
    if isinstance(exc, botocore.exceptions.PartialCredentialsError):
        return LiveError(f"{profile}: incomplete credentials ({detail}): give both the access key id and the secret access key")
    return LiveError(f"{profile}: AWS credentials cannot be loaded ({type(exc).__name__}: {detail})")


def add_session_arguments(parser: argparse.ArgumentParser) -> None:
    """``--region``, ``--profile``, ``--endpoint-url`` for a live subcommand."""
    parser.add_argument("--region", help="AWS region (default: the profile's, else us-east-1)")
    parser.add_argument("--profile", help="AWS named profile")
    parser.add_argument("--endpoint-url", help="send every API call here (a moto server, a VPC endpoint)")
    parser.add_argument(
        "--max-attempts", type=_attempts, default=MAX_ATTEMPTS, metavar="N",
        help=f"requests sent per API call in all, the first included (botocore standard retries; default {MAX_ATTEMPTS})",
    )
    parser.add_argument(
        "--deadline", type=_deadline, default=None, metavar="SECONDS",
        help="stop the whole command after this many seconds, whatever call is in flight (default 120; enact: 120 + --wait)",
    )


def _attempts(text: str) -> int:
    lo, hi = MAX_ATTEMPTS_RANGE
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not an integer") from None
    if not lo <= value <= hi:
        raise argparse.ArgumentTypeError(f"{value} is out of range {lo}..{hi}")
    return value


def _deadline(text: str) -> float:
    import math

    lo, hi = 1.0, 86400.0
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number of seconds") from None
    if not math.isfinite(value) or not lo <= value <= hi:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is out of range {lo:g}..{hi:g} seconds")
    return value


def check_endpoint_url(url: str) -> None:
    """LiveError unless ``url`` is an http(s) URL with a host and a port in 1..65535."""
    from urllib.parse import urlsplit

    shown = url[:120].encode("unicode_escape").decode("ascii")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise LiveError(f"--endpoint-url {shown!r}: not a URL ({exc})") from None
    if parts.scheme not in ("http", "https"):
        raise LiveError(f"--endpoint-url {shown!r}: must start with http:// or https://")
    if not parts.hostname:
        raise LiveError(f"--endpoint-url {shown!r}: no host (e.g. http://127.0.0.1:5000)")
    if port == 0:
        raise LiveError(f"--endpoint-url {shown!r}: port must be 1..65535")
    if any(ord(c) < 33 or ord(c) == 127 for c in url):
        raise LiveError(f"--endpoint-url {shown!r}: spaces or control characters in the URL")


def session_from_args(args: argparse.Namespace) -> LiveSession:
    """A LiveSession from the parsed session arguments; LiveError on bad configuration."""
    url = args.endpoint_url
    if url is not None:
        check_endpoint_url(url)
    session = LiveSession(region=args.region, profile=args.profile, endpoint_url=url,
                          max_attempts=getattr(args, "max_attempts", MAX_ATTEMPTS))
    session.check_credentials()
    return session
