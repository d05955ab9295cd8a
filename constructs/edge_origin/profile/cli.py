"""What ``edge-origin profile check|render`` does; cli.py only parses arguments."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from edge_origin.findings import Severity
from edge_origin.origin_verification import DEFAULT_HEADER, OriginVerification, header_name_problem
from edge_origin.profile.core import ConnectionProfile, ProfileError, parse_profile_text
from edge_origin.profile.interceptors import INTERCEPTOR_LANGS, render_interceptor
from edge_origin.profile.render import LANGS, RenderError, configmap, render

EXIT_OK, EXIT_FINDINGS = 0, 1


def check_file(path: str, fmt: str = "text", *, cloudfront: bool = True) -> tuple[int, str]:
    """Check a profile file: (exit code, output). Raises ProfileError for bad input."""
    profile = ConnectionProfile.from_file(path)
    findings = profile.check(source=path, cloudfront=cloudfront)
    code = EXIT_FINDINGS if any(f.severity is Severity.ERROR for f in findings) else EXIT_OK
    if fmt == "json":
        return code, json.dumps({"findings": [f.to_dict() for f in findings]}, indent=2) + "\n"
    if not findings:
        return code, f"{path}: connection profile OK\n"
    lines = [f"{path}: {f.severity.value} {f.rule} [{f.resource}]: {f.message}\n    fix: {f.fix}" for f in findings]
    return code, "\n".join(lines) + "\n"


def render_profile(
    path: str | None, preset: str | None, lang: str, name: str, namespace: str, verify_header: str | None = None
) -> tuple[int, str]:
    """Render a profile (file, else preset, else defaults) for ``lang``: (exit code, text).

    ``*-interceptor`` languages render the origin-verification interceptor for ``verify_header``.
    """
    if lang not in LANGS:
        raise RenderError(f"--lang: unknown language {lang!r}; known: {', '.join(LANGS)}")
    if path:
        data = parse_profile_text(_read(path), path)
        if isinstance(data, dict) and preset and "preset" not in data:
            data = {"preset": preset, **data}
        profile = ConnectionProfile.from_mapping(data, source=path)
    else:
        profile = ConnectionProfile.preset(preset or "default")
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


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read: {exc.strerror or exc}") from None
