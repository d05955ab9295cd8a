"""Origin verification: only our distribution reaches the pods.

The NLBs admit CloudFront's origin-facing prefix list: every CloudFront edge, serving every
customer. Anyone can point their own distribution at our origin name (or an EIP) and reach the
pods around our WAF, geo rules and logs; an L4 NLB cannot tell distributions apart. So
CloudFront adds a secret header to every origin request (``x-origin-verify`` by default) and the
pods reject calls without it (interceptors: ``edge_origin.profile.interceptors``).

The value lives in a Secrets Manager secret, a JSON object ``{"current": ..., "previous": ...}``,
and reaches CloudFront through a CloudFormation dynamic reference
(``{{resolve:secretsmanager:<arn>:SecretString:current::<version id>}}``): the template never
holds the value. The pods accept both ``current`` and ``previous``, so a rotation never drops
traffic. CloudFormation resolves a dynamic reference only when it updates the resource, so
putting a new secret value changes nothing in CloudFront by itself: the rotation bumps
``version_id`` in the template (``rotation_steps`` lists the procedure; README "Origin
verification").

This module loads no aws-cdk-lib (the rules, the report and ``profile render`` use it); the
construct that makes the secret is ``edge_origin.cdk.edge.OriginVerificationSecret``.
"""

from __future__ import annotations

import json

from edge_origin.core.fast_dataclass import dataclass, replace
from edge_origin.core.lazy_re import lazy

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

    from edge_origin.core.errors import ConstructLabel

DEFAULT_HEADER = "x-origin-verify"
METADATA_KEY = "edge-origin:origin-verification"
"""Distribution Metadata: the header name and where its value comes from (never the value)."""
HEALTH_SERVICE_PREFIX = "/grpc.health.v1.Health/"
"""gRPC methods the pods serve without the header: the NLB and Route 53 checks do not send it."""

# CloudFront developer guide, "Custom headers that CloudFront can't add to origin requests".
CLOUDFRONT_DISALLOWED = frozenset(
    {
        "cache-control", "connection", "content-length", "cookie", "host", "if-match", "if-modified-since",
        "if-none-match", "if-range", "if-unmodified-since", "max-forwards", "pragma", "proxy-authorization",
        "proxy-connection", "range", "request-range", "te", "trailer", "transfer-encoding", "upgrade", "via",
        "x-real-ip",
    }
)
CLOUDFRONT_DISALLOWED_PREFIXES = ("x-amz-", "x-edge-")
# Headers every gRPC call carries itself: a custom header of that name would overwrite the viewer's.
GRPC_CALL_HEADERS = frozenset({"content-type", "user-agent", "authorization", "accept-encoding", "content-encoding"})
HEADER_NAME_MAX = 256  # CloudFront quota: maximum length of a custom header name
# gRPC metadata keys (a subset of HTTP/2's lowercase token characters): 0-9 a-z _ - .
GRPC_METADATA_KEY = lazy(r"[0-9a-z_.-]+")
JSON_FIELD = lazy(r"[A-Za-z0-9_.-]{1,128}")
VERSION_ID = lazy(r"[A-Za-z0-9-]{32,64}")  # Secrets Manager VersionId / ClientRequestToken
SECRET_ARN = lazy(r"arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+")


def header_name_problem(name: Any) -> str | None:
    """Why ``name`` cannot be the verification header (None when it can)."""
    if not isinstance(name, str) or not name:
        return "a non-empty header name"
    if len(name) > HEADER_NAME_MAX:
        return f"at most {HEADER_NAME_MAX} characters (CloudFront quota)"
    if not GRPC_METADATA_KEY.fullmatch(name):
        return "a lowercase HTTP/2 header name that is also a gRPC metadata key: a-z, 0-9, '-', '_', '.'"
    if name in CLOUDFRONT_DISALLOWED or name.startswith(CLOUDFRONT_DISALLOWED_PREFIXES):
        return "a name CloudFront can add to origin requests (not Cache-Control, Connection, Host, Via, X-Amz-*, X-Edge-*, ...)"
    if name.startswith("grpc-"):
        return "a name outside gRPC's reserved grpc-* headers"
    if name.endswith("-bin"):
        return "a text header: gRPC base64-decodes *-bin metadata"
    if name in GRPC_CALL_HEADERS:
        return f"a header the calls do not carry themselves ({', '.join(sorted(GRPC_CALL_HEADERS))} are taken)"
    return None


@dataclass(frozen=True)
class OriginVerification:
    """Props of origin verification (``GrpcEdgeToOrigin(origin_verification=...)``).

    :param header_name: the custom origin header CloudFront adds and the pods check. Lowercase,
        a gRPC metadata key, allowed by CloudFront as an origin custom header. Default
        ``x-origin-verify``.
    :param secret: a Secrets Manager secret (``secretsmanager.ISecret`` or its ARN) holding a JSON
        object with ``json_field`` (and ``previous_json_field`` during a rotation). Default: a
        new secret with a generated 48-character alphanumeric value.
    :param json_field: the key of the value CloudFront sends. Default ``current``.
    :param previous_json_field: the key of the value the pods also accept during a rotation.
        Default ``previous``.
    :param version_id: the secret version CloudFront's reference pins. Default: none (the
        ``AWSCURRENT`` version when the distribution is created or updated). Set it in every
        rotation: changing it is what makes CloudFormation update the distribution.
    :param secret_length: length of a generated value (32..128). Default 48.
    """

    header_name: str = DEFAULT_HEADER
    secret: Any = None
    json_field: str = "current"
    previous_json_field: str = "previous"
    version_id: str | None = None
    secret_length: int = 48

    def validated(self, where: str | ConstructLabel) -> OriginVerification:
        """These props, or an EdgeOriginPropError naming ``origin_verification.<field>``."""
        from edge_origin.core.errors import EdgeOriginPropError, require_int_range

        problem = header_name_problem(self.header_name)
        if problem:
            raise EdgeOriginPropError(where, "origin_verification.header_name", self.header_name, problem)
        for prop in ("json_field", "previous_json_field"):
            value = getattr(self, prop)
            if not isinstance(value, str) or not JSON_FIELD.fullmatch(value):
                raise EdgeOriginPropError(
                    where, f"origin_verification.{prop}", value, "a JSON key of 1..128 characters: A-Z, a-z, 0-9, '_', '-', '.'"
                )
        if self.previous_json_field == self.json_field:
            raise EdgeOriginPropError(
                where, "origin_verification.previous_json_field", self.previous_json_field, f"a key other than json_field={self.json_field!r}"
            )
        if self.version_id is not None and (not isinstance(self.version_id, str) or not VERSION_ID.fullmatch(self.version_id)):
            raise EdgeOriginPropError(
                where, "origin_verification.version_id", self.version_id,
                "a Secrets Manager VersionId (32..64 characters: A-Z, a-z, 0-9, '-'), or None for AWSCURRENT",
            )
        require_int_range(where, "origin_verification.secret_length", self.secret_length, 32, 128)
        secret_kind(where, self.secret)
        return self

    def with_version(self, version_id: str | None) -> OriginVerification:
        """The same props pinned to another secret version (the rotation's template bump)."""
        return replace(self, version_id=version_id)


DEFAULT_ORIGIN_VERIFICATION = OriginVerification()


def checked_prop(where: str | ConstructLabel, value: Any) -> OriginVerification | None:
    """The ``origin_verification`` prop of a construct, validated (None: off)."""
    if value is None:
        return None
    if not isinstance(value, OriginVerification):
        from edge_origin.core.errors import EdgeOriginPropError

        raise EdgeOriginPropError(where, "origin_verification", value, "an OriginVerification or None")
    return value.validated(where)


def secret_kind(where: str | ConstructLabel, secret: Any) -> str:
    """``new``, ``arn`` or ``construct``; an error for anything that is not a Secrets Manager secret."""
    from edge_origin.core.errors import EdgeOriginPropError, is_token

    if secret is None:
        return "new"
    if isinstance(secret, str):
        if is_token(secret) or SECRET_ARN.fullmatch(secret):
            return "arn"
        raise EdgeOriginPropError(
            where, "origin_verification.secret", secret, "a Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>)"
        )
    if type(secret).__name__ == "SecretValue":
        raise EdgeOriginPropError(
            where, "origin_verification.secret", "<SecretValue>", "the Secrets Manager secret itself (secretsmanager.ISecret), not a SecretValue"
        )
    if hasattr(secret, "secret_arn") and hasattr(secret, "secret_value_from_json"):
        return "construct"
    raise EdgeOriginPropError(
        where, "origin_verification.secret", type(secret).__name__, "a Secrets Manager secret (secretsmanager.ISecret or its ARN) or None"
    )


def secret_template(previous_field: str) -> str:
    """The JSON a created secret starts from (the generator adds the current field)."""
    return json.dumps({previous_field: ""})


def is_dynamic_reference(value: Any) -> bool:
    """True for a resolved template value that is a Secrets Manager or SSM SecureString dynamic reference."""
    text = value if isinstance(value, str) else getattr(value, "expr", None)
    if not isinstance(text, str):
        return False
    text = text.lstrip()
    return text.startswith("{{resolve:secretsmanager:") or text.startswith("{{resolve:ssm-secure:")


def rotation_steps(secret_id: str = "<secret ARN>", header_name: str = DEFAULT_HEADER) -> list[str]:
    """The rotation procedure, step by step (the README prints the same)."""
    return [
        "0. Once, before the first rotation: pin the version in use (aws secretsmanager describe-secret: the "
        "version with AWSCURRENT) as origin_verification.version_id and deploy; unpinned, any later update of "
        "the distribution would resolve a new AWSCURRENT before the pods know it.",
        f"1. Put a new version: edge-origin origin-secret rotate --secret-id {secret_id} (or put-secret-value "
        "with --client-request-token $(uuidgen) and {\"current\": NEW, \"previous\": OLD}); note the version id "
        "it prints. CloudFront keeps sending OLD: its reference pins the old version (or resolved AWSCURRENT at "
        "its last update).",
        "2. Wait until every pod has reloaded the mounted secret (the interceptors re-read the file; the CSI "
        "driver's rotation poll interval): the pods now accept OLD and NEW.",
        "3. Set origin_verification.version_id to the new version id (reference app: cdk.json "
        "edge-origin:originVerifyVersionId) and deploy: the template changes, CloudFormation updates the "
        f"distribution and resolves NEW into {header_name}. Wait until the distribution is Deployed.",
        f"4. Retire OLD: edge-origin origin-secret retire-previous --secret-id {secret_id}, pin that version too "
        "and deploy (the value CloudFront sends does not change); the pods stop accepting OLD once they reload.",
    ]


VERIFICATION_NAME_HINTS = ("verify", "secret", "token", "auth", "key", "signature", "password")


@dataclass(frozen=True)
class VerificationStatus:
    """How a CloudFront origin proves itself to the pods (names only, never a value).

    ``state``: ``secret`` (a header from a dynamic reference), ``plaintext`` (a verification
    header whose value is written in the template), ``parameter`` (from a plain SSM parameter
    ``{{resolve:ssm:...}}``: readable by anyone with ssm:GetParameter, not a secret),
    ``deploy-time`` (a verification header whose value the templates cannot show, e.g. a
    CloudFormation parameter without a default) or ``none``.
    """

    state: str
    header: str | None = None

    @property
    def verified(self) -> bool:
        """A secret header, known from the templates; a value set at deploy time is not judged, never verified."""
        return self.state == "secret"

    def describe(self) -> str:
        if self.state == "secret":
            return f"header `{self.header}` from a secret (dynamic reference)"
        if self.state == "plaintext":
            return f"header `{self.header}` with a PLAINTEXT value in the template"
        if self.state == "parameter":
            return f"header `{self.header}` from a plain SSM parameter (PLAINTEXT, not a secret)"
        if self.state == "deploy-time":
            return f"header `{self.header}` (value set at deploy time: not judged, a secret or plaintext)"
        return "no origin verification header"


def verification_status(custom_headers: dict[str, Any], declared_header: Any = None) -> VerificationStatus:
    """The status of an origin from its custom headers ``{lowercase name: resolved value}`` and the
    header named in the distribution's ``edge-origin:origin-verification`` Metadata, if any."""
    for name, value in custom_headers.items():
        if is_dynamic_reference(value):
            return VerificationStatus("secret", name)
    declared = declared_header.strip().lower() if isinstance(declared_header, str) else None
    candidates = [
        n for n in custom_headers
        if n in (declared, DEFAULT_HEADER) or any(hint in n for hint in VERIFICATION_NAME_HINTS)
    ]
    for name in candidates:
        value = custom_headers[name]
        if isinstance(value, str) and value.lstrip().startswith("{{resolve:ssm:"):
            return VerificationStatus("parameter", name)
        if isinstance(value, (str, int, float)):
            return VerificationStatus("plaintext", name)
    if candidates:
        return VerificationStatus("deploy-time", candidates[0])
    return VerificationStatus("none")
