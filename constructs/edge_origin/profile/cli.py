"""What ``edge-origin profile check|render`` does; cli.py only parses arguments."""

from __future__ import annotations

import json
import re

import yaml

from edge_origin.core.findings import Severity
from edge_origin.core.origin_verification import DEFAULT_HEADER, OriginVerification, header_name_problem
from edge_origin.profile.core import ConnectionProfile, ProfileError, parse_profile_text, read_profile_file
from edge_origin.profile.interceptors import INTERCEPTOR_LANGS, render_interceptor
from edge_origin.profile.policy import POLICIES
from edge_origin.profile.render import LANGS, RenderError, configmap, render, require_honoured

EXIT_OK, EXIT_FINDINGS = 0, 1

#: Kubernetes object names (a ConfigMap's): an RFC 1123 subdomain, at most 253 characters.
K8S_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
#: Kubernetes namespaces: an RFC 1123 label, at most 63 characters.
K8S_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


#: Profile-file key that is not a profile field but a fact about the path (issue 31): whether clients
#: inside the VPC reach the NLB directly. ``false`` for a CloudFront-only path (the public-EIP path
#: whose security groups admit only CloudFront, or a VPC origin to an internal NLB): the in-VPC
#: client checks (hop "in-VPC client -> NLB") are then not run. Default true.
IN_VPC_CLIENTS_KEY = "in_vpc_clients"


def load_path_profile(path: str, preset: str | None = None) -> tuple[ConnectionProfile, bool | None]:
    """A profile file and its ``in_vpc_clients`` key (None when absent); ProfileError for bad input."""
    data = parse_profile_text(read_profile_file(path), path)
    in_vpc: bool | None = None
    if isinstance(data, dict) and IN_VPC_CLIENTS_KEY in data:
        data = dict(data)
        in_vpc = data.pop(IN_VPC_CLIENTS_KEY)
        if not isinstance(in_vpc, bool):
            raise ProfileError(f"{path}: {IN_VPC_CLIENTS_KEY}: must be true or false, got {in_vpc!r:.60}")
    if isinstance(data, dict) and preset and "preset" not in data:
        data = {"preset": preset, **data}
    return ConnectionProfile.from_mapping(data, source=path), in_vpc


def check_file(
    path: str, fmt: str = "text", *, cloudfront: bool = True, langs: tuple[str, ...] | None = None,
    in_vpc_clients: bool | None = None,
) -> tuple[int, str]:
    """Check a profile file: (exit code, output). Raises ProfileError for bad input.

    ``langs`` the gRPC implementations judged (go, java, python); default all three.
    ``in_vpc_clients`` whether clients in the VPC reach the NLB directly: the flag
    (``--in-vpc-clients`` / ``--no-in-vpc-clients``) wins over the file's ``in_vpc_clients`` key;
    neither: True. False (a CloudFront-only path) skips the in-VPC client checks.
    """
    profile, from_file = load_path_profile(path)
    in_vpc = in_vpc_clients if in_vpc_clients is not None else from_file
    findings = profile.check(source=path, cloudfront=cloudfront, langs=langs, in_vpc_clients=in_vpc)
    code = EXIT_FINDINGS if any(f.severity is Severity.ERROR for f in findings) else EXIT_OK
    if fmt == "json":
        return code, json.dumps({"findings": [f.to_dict() for f in findings]}, indent=2) + "\n"
    if not findings:
        return code, f"{path}: connection profile OK\n"
    lines = [f"{path}: {f.severity.value} {f.rule} [{f.resource}]: {f.message}\n    fix: {f.fix}" for f in findings]
    return code, "\n".join(lines) + "\n"


def check_configmap_names(name: str, namespace: str) -> None:
    """RenderError unless ``name`` is an RFC 1123 subdomain and ``namespace`` an RFC 1123 label."""
    if len(name) > 253 or not K8S_SUBDOMAIN.match(name):
        raise RenderError(
            f"--name {name[:80]!r}: not a Kubernetes object name (RFC 1123 subdomain: lower-case letters, digits, "
            "'-' and '.', starting and ending with a letter or digit, at most 253 characters)"
        )
    if len(namespace) > 63 or not K8S_LABEL.match(namespace):
        raise RenderError(
            f"--namespace {namespace[:80]!r}: not a Kubernetes namespace (RFC 1123 label: lower-case letters, "
            "digits and '-', starting and ending with a letter or digit, at most 63 characters)"
        )


def render_profile(
    path: str | None, preset: str | None, lang: str, name: str, namespace: str, *, cloudfront: bool = True,
    verify_header: str | None = None,
) -> tuple[int, str]:
    """Render a profile (file, else preset, else defaults) for ``lang``: (exit code, text).

    A profile that ``profile check`` rejects (error findings, judged by the rendered language's
    ping policy) is not rendered, nor one the language's server cannot honour (grpc-go and
    grpc-java hard-code 2 ping strikes): ProfileError naming the first problem (bad input, exit 2),
    so no settings that fail their own checks reach the services. ``cloudfront=False`` skips the CloudFront checks (internal origin), as in check.
    ``*-interceptor`` languages render the origin-verification interceptor for ``verify_header``.
    """
    if preset is not None and not preset.strip():
        raise RenderError("--preset '': empty; give a preset name (see edge-origin profile render --help)")
    if lang not in LANGS:
        raise RenderError(f"--lang: unknown language {lang!r}; known: {', '.join(LANGS)}")
    if lang == "configmap":
        check_configmap_names(name, namespace)
    source = path or f"preset {preset or 'default'}"
    if path:
        profile, _in_vpc = load_path_profile(path, preset)  # rendered settings serve every client alike
    else:
        profile = ConnectionProfile.preset(preset or "default")
    if lang in POLICIES:
        try:
            require_honoured(profile, lang)
        except RenderError as exc:
            raise ProfileError(f"{source}: {exc}") from None
    # Judged as the rendered language's server does (the configmap carries every language: all).
    errors = profile.errors(cloudfront=cloudfront, langs=(lang,) if lang in POLICIES else None)
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ProfileError(
            f"{source}: not rendered: the profile fails its checks: {first.rule} [{first.resource}]: "
            f"{first.message}{more}; see edge-origin profile check"
        )
    if lang == "configmap":
        return EXIT_OK, yaml.safe_dump(configmap(profile, name, namespace), sort_keys=False)
    if lang in INTERCEPTOR_LANGS:
        header = DEFAULT_HEADER if verify_header is None else verify_header
        problem = header_name_problem(header)
        if problem:
            raise RenderError(f"--verify-header: invalid {header!r}; allowed: {problem}")
        return EXIT_OK, render_interceptor(lang, OriginVerification(header_name=header))
    if verify_header is not None:
        raise RenderError(f"--verify-header: only with --lang {'|'.join(INTERCEPTOR_LANGS)}")
    return EXIT_OK, render(profile, lang)
