"""The pods' half of origin verification: rendered interceptors (Go, Java, Python), ConfigMap, CLI.

The rendered Python interceptor runs on real grpcio in tests/loopback/test_origin_verify_interceptor.py;
here its pure parts run in-process, and the Java one compiles against signature stubs of io.grpc.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import shutil
import subprocess
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin import cli
from edge_origin.core.origin_verification import OriginVerification, header_name_problem
from edge_origin.profile import render as render_profile_lang
from edge_origin.profile.interceptors import (
    FILE_NAMES,
    INTERCEPTOR_LANGS,
    InterceptorError,
    render_interceptor,
    verification_configmap,
)
from edge_origin.profile.render import LANGS

CONSTANT_TIME = {
    "python-interceptor": "hmac.compare_digest(",
    "go-interceptor": "subtle.ConstantTimeCompare(",
    "java-interceptor": "MessageDigest.isEqual(",
}
REFUSAL = {
    "python-interceptor": "grpc.StatusCode.UNAUTHENTICATED",
    "go-interceptor": "codes.Unauthenticated",
    "java-interceptor": "Status.UNAUTHENTICATED",
}


def _module(tmp_path: Path, verification: OriginVerification | None = None) -> ModuleType:
    path = tmp_path / "origin_verify.py"
    path.write_text(render_interceptor("python-interceptor", verification))
    spec = importlib.util.spec_from_file_location(f"ov_{abs(hash(str(path)))}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _balanced(text: str) -> bool:
    depth = {"{": 0, "(": 0, "[": 0}
    pairs = {"}": "{", ")": "(", "]": "["}
    in_string = False
    for i, ch in enumerate(text):
        if ch == '"' and text[i - 1] != "\\":
            in_string = not in_string
        if in_string:
            continue
        if ch in depth:
            depth[ch] += 1
        elif ch in pairs:
            depth[pairs[ch]] -= 1
            if depth[pairs[ch]] < 0:
                return False
    return all(v == 0 for v in depth.values())


@pytest.mark.parametrize("lang", INTERCEPTOR_LANGS)
def test_every_interceptor_checks_both_values_in_constant_time_and_exempts_health(lang: str) -> None:
    text = render_interceptor(lang, OriginVerification(header_name="x-proof", json_field="now", previous_json_field="before"))
    for needle in ('"x-proof"', '"now"', '"before"', '"/grpc.health.v1.Health/"', "EDGE_ORIGIN_VERIFY_SECRET",
                   "EDGE_ORIGIN_VERIFY_FILE", "/var/run/secrets/edge-origin/origin-verify", CONSTANT_TIME[lang], REFUSAL[lang]):
        assert needle in text, (lang, needle)
    assert "x-origin-verify" not in text.split("\n", 3)[-1]  # the header comes from the props, nothing left over
    assert _balanced(text), lang
    assert lang in LANGS and render_profile_lang(None, lang) == render_interceptor(lang)  # type: ignore[arg-type]


def test_python_interceptor_parses_secrets_and_checks_metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    m = _module(tmp_path)
    assert m.parse_origin_verify_secret('{"current": "a1", "previous": "b2", "other": "c3"}') == (b"a1", b"b2")
    assert m.parse_origin_verify_secret('{"current": "a1", "previous": ""}') == (b"a1",)
    assert m.parse_origin_verify_secret('{"current": 7}') == ()
    assert m.parse_origin_verify_secret("  plain-value\n") == (b"plain-value",)
    assert m.parse_origin_verify_secret("") == ()
    assert m.parse_origin_verify_secret('"quoted"') == (b'"quoted"',)  # as Go and Java: not an object, the whole text
    monkeypatch.setenv("EDGE_ORIGIN_VERIFY_SECRET", '{"current": "from-env"}')
    interceptor = m.OriginVerifyInterceptor()
    assert interceptor.verified([("x-origin-verify", "from-env")])
    assert interceptor.verified([("x-origin-verify", b"from-env")])
    assert not interceptor.verified([("x-origin-verify", "from-env"), ("x-origin-verify", "from-env")])
    assert not interceptor.verified([("X-Origin-Verify", "from-env")])  # gRPC hands keys over lowercase
    assert not interceptor.verified([])
    assert not interceptor.verified(None)


def test_python_interceptor_passes_exempt_methods_and_refuses_with_the_same_handler_kind(tmp_path: Path) -> None:
    m = _module(tmp_path)
    interceptor = m.OriginVerifyInterceptor(m.OriginVerifySecret(value="v"))
    handler = SimpleNamespace(request_streaming=True, response_streaming=False, request_deserializer=None, response_serializer=None)
    continuation = lambda details: handler  # noqa: E731

    def details(method: str, *metadata: tuple[str, str]) -> SimpleNamespace:
        return SimpleNamespace(method=method, invocation_metadata=metadata)

    assert interceptor.intercept_service(continuation, details("/grpc.health.v1.Health/Check")) is handler
    assert interceptor.intercept_service(continuation, details("/svc.Ingest/Push", ("x-origin-verify", "v"))) is handler
    refused = interceptor.intercept_service(continuation, details("/svc.Ingest/Push"))
    assert refused is not handler and refused.request_streaming and not refused.response_streaming
    assert interceptor.refused == 1
    assert interceptor.intercept_service(lambda d: None, details("/no.Such/Method")) is None


def test_python_interceptor_fails_closed_and_logs_no_value(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    m = _module(tmp_path)
    secret = m.OriginVerifySecret(path=str(tmp_path / "missing"), reload_s=0)
    assert secret.values() == ()
    assert not m.OriginVerifyInterceptor(secret).verified([("x-origin-verify", "")])
    good = tmp_path / "secret.json"
    good.write_text('{"current": "s3cr3t-value"}')
    assert m.OriginVerifySecret(path=str(good)).values() == (b"s3cr3t-value",)
    assert "s3cr3t-value" not in caplog.text and "unreadable" in caplog.text


@settings(max_examples=15, deadline=None)
@given(name=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.", min_size=1, max_size=30).map(lambda s: "x-" + s))
def test_rendered_python_is_valid_for_every_valid_header(name: str) -> None:
    if header_name_problem(name):
        with pytest.raises(InterceptorError, match="header: invalid"):
            render_interceptor("python-interceptor", OriginVerification(header_name=name))
        return
    tree = ast.parse(render_interceptor("python-interceptor", OriginVerification(header_name=name)))
    constants = {t.targets[0].id: t.value for t in tree.body if isinstance(t, ast.Assign) and isinstance(t.targets[0], ast.Name)}
    assert ast.literal_eval(constants["ORIGIN_VERIFY_HEADER"]) == name


def test_bad_header_or_language_is_refused() -> None:
    with pytest.raises(InterceptorError, match="header: invalid 'Host'"):
        render_interceptor("go-interceptor", OriginVerification(header_name="Host"))
    with pytest.raises(InterceptorError, match="unknown interceptor language 'rust-interceptor'"):
        render_interceptor("rust-interceptor")


def test_configmap_carries_settings_and_the_three_interceptors_but_no_value() -> None:
    cm = verification_configmap(OriginVerification(header_name="x-proof"), "ingest-origin-verify", "telemetry")
    assert cm["kind"] == "ConfigMap" and cm["metadata"]["namespace"] == "telemetry"
    settings_ = json.loads(cm["data"]["origin-verify.json"])
    assert settings_["header"] == "x-proof" and settings_["fields"] == ["current", "previous"]
    assert settings_["exemptPrefixes"] == ["/grpc.health.v1.Health/"]
    assert set(cm["data"]) == {"origin-verify.json", *FILE_NAMES.values()}
    with pytest.raises(InterceptorError, match="needs a name"):
        verification_configmap(OriginVerification(), "")


def test_cli_renders_interceptors_and_refuses_bad_headers(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["profile", "render", "--lang", "python-interceptor", "--verify-header", "x-proof"]) == 0
    out = capsys.readouterr().out
    assert 'ORIGIN_VERIFY_HEADER = "x-proof"' in out
    ast.parse(out)
    for argv, message in (
        (["--lang", "go-interceptor", "--verify-header", "X-Proof"], "--verify-header: invalid 'X-Proof'; allowed: a lowercase"),
        (["--lang", "java-interceptor", "--verify-header", "x-amz-proof"], "--verify-header: invalid 'x-amz-proof'; allowed: a name CloudFront can add"),
        (["--lang", "go", "--verify-header", "x-proof"], "--verify-header: only with --lang"),
    ):
        assert cli.main(["profile", "render", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("javac") is None, reason="no javac")
def test_java_interceptor_compiles_against_io_grpc_signatures(tmp_path: Path) -> None:
    """Signature stubs of the io.grpc API the interceptor uses (grpc-java 1.x), then javac."""
    stubs = {
        "Metadata": "public final class Metadata { public interface AsciiMarshaller<T> {}"
        " public static final AsciiMarshaller<String> ASCII_STRING_MARSHALLER = null;"
        " public static final class Key<T> { public static <T> Key<T> of(String n, AsciiMarshaller<T> m) { return null; } }"
        " public <T> Iterable<T> getAll(Key<T> key) { return null; } }",
        "ServerCall": "public abstract class ServerCall<ReqT, RespT> { public abstract static class Listener<ReqT> {}"
        " public abstract void close(Status status, Metadata trailers);"
        " public abstract MethodDescriptor<ReqT, RespT> getMethodDescriptor(); }",
        "MethodDescriptor": "public final class MethodDescriptor<ReqT, RespT> { public String getFullMethodName() { return \"\"; } }",
        "ServerCallHandler": "public interface ServerCallHandler<ReqT, RespT> {"
        " ServerCall.Listener<ReqT> startCall(ServerCall<ReqT, RespT> call, Metadata headers); }",
        "ServerInterceptor": "public interface ServerInterceptor { <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall("
        "ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next); }",
        "Status": "public final class Status { public static final Status UNAUTHENTICATED = new Status();"
        " public Status withDescription(String d) { return this; } }",
    }
    grpc_dir = tmp_path / "io" / "grpc"
    grpc_dir.mkdir(parents=True)
    for name, body in stubs.items():
        (grpc_dir / f"{name}.java").write_text(f"package io.grpc;\n{body}\n")
    (tmp_path / "OriginVerifyInterceptor.java").write_text(render_interceptor("java-interceptor"))
    (tmp_path / "Probe.java").write_text(
        "public class Probe { public static void main(String[] a) {\n"
        '  for (byte[] b : OriginVerifyInterceptor.parse("{\\"current\\": \\"c1\\", \\"previous\\": \\"p\\\\\\"2\\"}"))'
        " System.out.println(new String(b));\n"
        '  System.out.println(OriginVerifyInterceptor.parse("plain").size());\n'
        '  System.out.println(OriginVerifyInterceptor.parse("{\\"current\\": \\"c1\\", \\"previous\\": \\"\\"}").size());\n'
        "} }\n"
    )
    sources = [str(p) for p in tmp_path.rglob("*.java")]
    subprocess.run(["javac", "-d", str(tmp_path / "out"), *sources], check=True, timeout=120, capture_output=True)
    run = subprocess.run(["java", "-cp", str(tmp_path / "out"), "Probe"], check=True, timeout=60, capture_output=True, text=True)
    assert run.stdout.split() == ["c1", 'p"2', "1", "1"]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("go") is None, reason="no Go toolchain")
def test_go_interceptor_vets_and_passes_its_go_test(tmp_path: Path) -> None:
    """Offline: google.golang.org/grpc replaced by signature stubs (tests/fixtures/interceptor_stubs/go)."""
    import os

    stubs = Path(__file__).parents[1] / "fixtures" / "interceptor_stubs" / "go"
    work = tmp_path / "gov"
    shutil.copytree(stubs, work)
    package = work / "originverify"
    package.mkdir()
    shutil.move(str(work / "origin_verify_test.go"), package / "origin_verify_test.go")
    (package / "origin_verify.go").write_text(render_interceptor("go-interceptor"))
    env = {**os.environ, "GOPROXY": "off", "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"}  # the build cache is Go's own
    env.pop("EDGE_ORIGIN_VERIFY_SECRET", None)
    fmt = subprocess.run(["gofmt", "-l", str(package)], capture_output=True, text=True, timeout=60, check=True)
    assert fmt.stdout == "", fmt.stdout
    for argv in (["go", "vet", "./originverify"], ["go", "test", "./originverify"]):
        run = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=240)
        assert run.returncode == 0, run.stdout + run.stderr
