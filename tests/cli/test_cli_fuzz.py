"""Bad input at every ``edge-origin`` subcommand: never a traceback, a hang or a stray exit code.

Each case runs ``edge_origin.cli.main`` in-process on a worker thread bounded in time (a hang fails
the case instead of blocking the suite; a FIFO left waiting is released by opening its other end).
A case passes when the exit code is 0, 1 or 2, no traceback is printed, and bad input (exit 2) is
one line on stderr that names the flag or file. Live commands get fake credentials, empty AWS config
files and a closed port on 127.0.0.1 (or moto's in-process mock where they need an account).

``EDGE_ORIGIN_FUZZ=deep`` raises the hypothesis examples tenfold.
Cases that fail in modules whose authors are still at work are ``xfail(strict=True)`` with the
reproducing command in the reason, so the suite stays green and a fix turns them into failures to
un-mark.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from edge_origin.cli import main
from edge_origin.core.escape import visible

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "tests" / "fixtures" / "rehearsal" / "Reference.template.json"
OTHER_TEMPLATE = ROOT / "tests" / "fixtures" / "rehearsal" / "ReferenceWeighted.template.json"
ASSEMBLY_LIKE = ROOT / "tests" / "fixtures" / "rehearsal"
CLOSED = "http://127.0.0.1:9"  # discard port: nothing listens on loopback, connect is refused at once
NAME = "origin.example.com"
DEEP = os.environ.get("EDGE_ORIGIN_FUZZ", "") == "deep"
EXAMPLES = 600 if DEEP else 60
CASE_SECONDS = 20.0


# --- running one case --------------------------------------------------------------------------
@dataclass
class Outcome:
    code: object
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        return [line for line in re.split(r"[\r\n]", self.err) if line.strip()]  # what a terminal shows


def _release_fifos(fifos: list[Path]) -> None:
    """Open the other end of each FIFO (O_RDWR never blocks on Linux) so a stuck open/read returns."""
    for fifo in fifos:
        with contextlib.suppress(OSError):
            fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
            os.close(fd)


def run_cli(argv: list[str], fifos: list[Path] | None = None, seconds: float = CASE_SECONDS) -> Outcome:
    """``main(argv)`` on a daemon thread, stdout/stderr captured; a hang fails the test."""
    out, err = io.StringIO(), io.StringIO()
    result: dict[str, object] = {}

    def target() -> None:
        try:
            result["code"] = main(argv)
        except SystemExit as exc:  # argparse (--help, bad flags)
            result["code"] = 0 if exc.code is None else exc.code
        except BaseException as exc:  # noqa: BLE001 - the point is to see any escape
            import traceback

            result["code"] = f"raised {type(exc).__name__}"
            err.write("Traceback (escaped main):\n" + "".join(traceback.format_exception(exc)))

    worker = threading.Thread(target=target, name=f"cli-fuzz {argv[:2]}", daemon=True)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        worker.start()
        worker.join(seconds)
    if worker.is_alive():
        _release_fifos(fifos or [])
        worker.join(2.0)
        pytest.fail(f"hang: edge-origin {' '.join(argv)} still running after {seconds:.0f} s")
    return Outcome(result.get("code"), out.getvalue(), err.getvalue())


def assert_clean(outcome: Outcome, argv: list[str], names: str | None = None) -> None:
    """Exit 0/1/2, no traceback, and exit 2 is one stderr line (naming ``names`` when given)."""
    shown = " ".join(argv)[:300]
    assert outcome.code in (0, 1, 2), f"exit {outcome.code!r} for: edge-origin {shown}\n{outcome.err[-2000:]}"
    assert "Traceback" not in outcome.err, f"traceback for: edge-origin {shown}\n{outcome.err[-2000:]}"
    if outcome.code == 2:
        assert len(outcome.err_lines) == 1, f"{len(outcome.err_lines)} stderr lines for: edge-origin {shown}\n{outcome.err[-2000:]}"
        if names is not None:
            assert names in outcome.err, f"message does not name {names!r}: {outcome.err.strip()[:300]}"


@pytest.fixture()
def fake_aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Fake keys, empty AWS config files, no metadata service: nothing reaches a real account."""
    for key in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
        monkeypatch.delenv(key, raising=False)
    (tmp_path / "aws-empty").write_text("")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "aws-empty"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "aws-empty"))
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


def _plan_document(zone_id: str = "Z1", generation: int = 1) -> dict:
    return {
        "schema_version": 1, "name": NAME, "hosted_zone_id": zone_id, "generation": generation, "ttl": 60,
        "records": [
            {"set_identifier": "a", "ip": "203.0.113.10", "zone": "us-east-1a", "health_check": {"type": "TCP", "port": 443}},
            {"set_identifier": "b", "ip": "203.0.113.11", "zone": "us-east-1b", "health_check": {"type": "TCP", "port": 443}},
        ],
    }


# --- file kinds ----------------------------------------------------------------------------------
def _make_kinds(folder: Path) -> dict[str, Path]:
    """Every kind of bad input file, by name."""
    folder.mkdir(parents=True, exist_ok=True)
    kinds: dict[str, Path] = {}

    def text(name: str, body: str | bytes) -> None:
        path = folder / name
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body, encoding="utf-8")
        kinds[name.split(".")[0]] = path

    fifo = folder / "fifo.json"
    os.mkfifo(fifo)
    kinds["fifo"] = fifo
    text("empty.json", "")
    text("binary.json", b"\x00\x01\xff\xfe\x80garbage")
    text("truncated.json", '{"Resources": {"A": ')
    text("list.json", "[1, 2, 3]")
    text("string.json", '"a string"')
    text("null.json", "null")
    text("number.json", "1e999")
    text("nan.json", '{"Resources": {"R": {"Type": "AWS::Route53::RecordSet", "Properties": {"TTL": NaN}}}}')
    text("resources_list.json", '{"Resources": []}')
    text("resource_number.json", '{"Resources": {"X": 5}}')
    text("type_number.json", '{"Resources": {"X": {"Type": 5}}}')
    text("properties_list.json", '{"Resources": {"X": {"Type": "AWS::Route53::RecordSet", "Properties": []}}}')
    text("deep_types.json", json.dumps({"Resources": {"R": {"Type": "AWS::Route53::RecordSet", "Properties": {
        "Name": ["origin.example.com"], "Type": {"A": 1}, "TTL": "sixty", "Weight": -1, "SetIdentifier": 5,
        "MultiValueAnswer": "yes", "ResourceRecords": "203.0.113.1", "HealthCheckId": {"Ref": 7}}}}}))
    text("bad.yaml", "Resources: [unclosed\n  - : :\n")
    text("tabs.yaml", "Resources:\n\tX: 1\n")
    text("bom.json", b'\xef\xbb\xbf{"Resources": {}}')
    bomb = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
    bomb += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    text("yaml_bomb.yaml", "\n".join([*bomb, "Resources:\n  R:\n    Type: AWS::SNS::Topic\n    Properties:\n      Tags: *a8\n"]))
    text("nested.json", "[" * 100_000 + "]" * 100_000)
    huge = folder / "huge.json"
    with huge.open("wb") as handle:  # sparse: no disk used, but stat says 2 GiB
        handle.truncate(2 * 1024**3)
    kinds["huge"] = huge
    newline = folder / "line\nbreak.json"
    newline.write_text("[]")
    kinds["newline"] = newline
    odd = folder / "odd name $`;'\"\u00e9\u200b.json"
    odd.write_text("{}")
    kinds["odd"] = odd
    (folder / "dir.json").mkdir()
    kinds["dir"] = folder / "dir.json"
    (folder / "dangling.json").symlink_to(folder / "nowhere")
    kinds["dangling"] = folder / "dangling.json"
    kinds["missing"] = folder / "missing" / "nothing.json"
    kinds["long_name"] = folder / ("n" * 3000 + ".json")  # ENAMETOOLONG on every stat
    kinds["dev_zero"] = Path("/dev/zero")
    kinds["dev_null"] = Path("/dev/null")
    return kinds


KIND_NAMES = [
    "fifo", "empty", "binary", "truncated", "list", "string", "null", "number", "nan", "resources_list",
    "resource_number", "type_number", "properties_list", "deep_types", "bad", "tabs", "bom", "yaml_bomb", "nested", "huge",
    "odd", "newline", "dir", "dangling", "missing", "long_name", "dev_zero", "dev_null",
]


@pytest.fixture(scope="module")
def kinds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    made = _make_kinds(tmp_path_factory.mktemp("bad-files"))
    assert sorted(made) == sorted(KIND_NAMES)
    return made


def _model(path: str) -> list[str]:
    return ["rehearse", "--model", "--name", NAME, path]


# Where each command reads (or writes) a user file; the file stands in for PATH.
FILE_READERS: dict[str, Callable[[str], list[str]]] = {
    "check": lambda p: ["check", p],
    "report": lambda p: ["report", p],
    "diff --base": lambda p: ["diff", "--base", p, "--head", str(TEMPLATE)],
    "diff --head": lambda p: ["diff", "--base", str(TEMPLATE), "--head", p],
    "preflight": lambda p: ["preflight", "--endpoint-url", CLOSED, p],
    "verify": lambda p: ["verify", "--endpoint-url", CLOSED, p],
    "profile check": lambda p: ["profile", "check", p],
    "profile render": lambda p: ["profile", "render", "--lang", "go", p],
    "rehearse --model": _model,
    "rehearse (loopback)": lambda p: ["rehearse", "--name", NAME, "--max-seconds", "5", p],
    "rehearse --edge-traffic": lambda p: [*_model(str(TEMPLATE)), "--edges", "2", "--edge-traffic", p],
    "rehearse --origin-capacity-file": lambda p: [*_model(str(TEMPLATE)), "--origin-capacity", "10", "--origin-capacity-file", p],
    "enact": lambda p: ["enact", "--dry-run", "--endpoint-url", CLOSED, p],
    "plan from-template": lambda p: ["plan", "from-template", "--name", NAME, "--zone-id", "Z1", "--endpoint-url", CLOSED, p],
}

# Kinds a command may accept (exit 0 or 1 is then right, not a silent pass).
ACCEPTED = {
    ("profile check", "odd"), ("profile render", "odd"),  # '{}' is a profile of all defaults
}

# (reader, kind) pairs that fail in modules still being worked on: the reason is the repro.
_RAW_PATH = ("prints the path raw: a file named 'line\\nbreak.json' gives a 2-line message "
             "(repro: edge-origin {} $'line\\nbreak.json')")
KNOWN_FILE_DEFECTS: dict[tuple[str, str], str] = {}  # none known: fixed in the library


# Kinds about the file itself (what it is, its name, its size) go to every reader; kinds about its
# content go to one reader per parser (the others share it) unless EDGE_ORIGIN_FUZZ=deep.
FILE_SYSTEM_KINDS = {"fifo", "empty", "binary", "huge", "odd", "newline", "dir", "dangling", "missing", "long_name", "dev_zero", "dev_null"}
CONTENT_READERS = {"check", "enact", "profile check", "rehearse --edge-traffic", "rehearse --origin-capacity-file",
                   "rehearse --model"}


def _file_cases() -> Iterator[object]:
    for reader in FILE_READERS:
        for kind in KIND_NAMES:
            if not DEEP and kind not in FILE_SYSTEM_KINDS and reader not in CONTENT_READERS:
                continue
            marks = []
            if (reader, kind) in KNOWN_FILE_DEFECTS:
                marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_FILE_DEFECTS[(reader, kind)]))
            yield pytest.param(reader, kind, id=f"{reader}-{kind}", marks=marks)


@pytest.mark.parametrize(("reader", "kind"), list(_file_cases()))
def test_bad_files_are_one_line_exit_2(reader: str, kind: str, kinds: dict[str, Path], fake_aws: None) -> None:
    path = kinds[kind]
    argv = FILE_READERS[reader](str(path))
    if kind == "fifo":
        assert stat.S_ISFIFO(os.stat(path).st_mode)
    outcome = run_cli(argv, fifos=[kinds["fifo"]])
    assert_clean(outcome, argv)
    if (reader, kind) not in ACCEPTED:
        assert outcome.code == 2, f"exit {outcome.code} (expected 2) for edge-origin {' '.join(argv)}: {outcome.out[:200]!r}"
        escaped = path.name.encode("unicode_escape").decode("ascii")
        if kind in ("fifo", "dev_zero", "dev_null", "dir"):  # refused by what it is, not by reading it
            assert re.search(r"FIFO|pipe|device|director|folder|not a regular file", outcome.err), outcome.err
        # issue 50: invisible characters in a name are shown escaped
        named = any(n in outcome.err for n in (path.name, escaped, path.name[:20], visible(path.name)))
        assert named or "--" in outcome.err, f"the message names neither the file nor a flag: {outcome.err[:300]}"


# Outputs: where a command writes, the same kinds must be refused before anything happens.
FILE_WRITERS: dict[str, Callable[[str], list[str]]] = {
    "rehearse --chart": lambda p: [*_model(str(TEMPLATE)), "--chart", p],
    "plan from-live -o": lambda p: ["plan", "from-live", "--name", NAME, "--zone-id", "Z1", "--endpoint-url", CLOSED,
                                    "--address", "203.0.113.10@us-east-1a", "-o", p],
    "plan from-template -o": lambda p: ["plan", "from-template", "--name", NAME, "--zone-id", "Z1", "--endpoint-url", CLOSED,
                                        str(TEMPLATE), "-o", p],
    "enact --plan-store": lambda p: ["enact", "--endpoint-url", CLOSED, "--plan-store", p, "PLAN"],
}
WRITE_KINDS = ["fifo_out", "dir", "dev_zero", "missing", "empty_name", "nul_name", "long_name"]
KNOWN_WRITE_DEFECTS: dict[tuple[str, str], str] = {}  # none known: fixed in the library (keep the table for the next one)


@pytest.fixture()
def write_targets(tmp_path: Path) -> dict[str, Path | str]:
    fifo = tmp_path / "out.png"
    os.mkfifo(fifo)
    (tmp_path / "dir.png").mkdir()
    return {
        "fifo_out": fifo, "dir": tmp_path / "dir.png", "dev_zero": "/dev/zero",
        "missing": tmp_path / "no" / "such" / "out.png", "empty_name": "", "nul_name": "x\x00y.png",
        "long_name": "a" * 5000 + ".png",
    }


def _write_cases() -> Iterator[object]:
    for writer in FILE_WRITERS:
        for kind in WRITE_KINDS:
            marks = []
            if (writer, kind) in KNOWN_WRITE_DEFECTS:
                marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_WRITE_DEFECTS[(writer, kind)]))
            yield pytest.param(writer, kind, id=f"{writer}-{kind}", marks=marks)


@pytest.mark.parametrize(("writer", "kind"), list(_write_cases()))
def test_bad_outputs_are_refused_without_blocking(writer: str, kind: str, write_targets: dict, tmp_path: Path,
                                                  fake_aws: None) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(_plan_document()))
    argv = [str(plan) if a == "PLAN" else a for a in FILE_WRITERS[writer](str(write_targets[kind]))]
    outcome = run_cli(argv, fifos=[write_targets["fifo_out"]])
    assert_clean(outcome, argv)
    assert outcome.code == 2, f"exit {outcome.code} (expected 2) for edge-origin {' '.join(argv)[:300]}"
    if kind == "fifo_out":
        assert stat.S_ISFIFO(os.stat(write_targets["fifo_out"]).st_mode)  # still a FIFO: nothing replaced it


# --- every subcommand and flag, generated values ---------------------------------------------------
NASTY = [
    "nan", "NaN", "inf", "-inf", "-1", "0", "-0", "1e309", "-1e309", "1e-320", "99999999999999999999999", "2147483648",
    "", " ", "\t", "\u0661\u0662", "0x10", "1_000", "1.5", "\x00", "\U0001f642", "--", "-x", "a" * 3000, "../../etc",
    "/dev/zero", "origin.example.com", "ORIGIN.EXAMPLE.COM.", "*.example.com", "a..b", "203.0.113.1@us-east-1a",
]
ENDPOINTS = [CLOSED, "ftp://127.0.0.1:9", "127.0.0.1:9", "http://", "http://[::1", "http://127.0.0.1:99999",
             "file:///etc/passwd", "http://127.0.0.1:9/\x00", "", "http://256.0.0.1"]
VALUES = st.one_of(
    st.sampled_from(NASTY),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(alphabet=st.characters(blacklist_characters="\n\r\x85\u2028\u2029"), max_size=12),
)  # line breaks in paths: test_bad_files_are_one_line_exit_2[*-newline]
NZ = ["--name", NAME, "--zone-id", "Z1"]
SESSION_FLAGS = ["--region", "--profile"]


@dataclass(frozen=True)
class Spec:
    """One subcommand: an argv that fails fast without the fuzzed flag, and the flags to fuzz."""

    base: tuple[str, ...]
    flags: tuple[str, ...]
    positional: bool = False  # also fuzz the last positional argument


def _specs(plan: str) -> dict[str, Spec]:
    t, t2 = str(TEMPLATE), str(OTHER_TEMPLATE)
    live = ("--endpoint-url", CLOSED)
    return {
        "check": Spec(("check", t), ("--format", "--fail-on"), positional=True),
        "report": Spec(("report", t), ("--format",), positional=True),
        "diff": Spec(("diff", "--base", t, "--head", t2), ("--format", "--fail-on", "--base", "--head")),
        "profile check": Spec(("profile", "check", t), ("--format",), positional=True),
        "profile render": Spec(("profile", "render", "--lang", "configmap"),
                               ("--preset", "--lang", "--verify-header", "--name", "--namespace")),
        "rehearse --model": Spec(("rehearse", "--model", "--name", NAME, "--devices", "1000", t), (
            "--devices", "--ttl", "--ramp-seconds", "--resolvers", "--edge-traffic", "--origin-capacity", "--retry",
            "--step", "--horizon", "--error-limit", "--edges", "--seed", "--lb-policy", "--name",
            "--origin-capacity-file")),
        # --name nothere: the loopback run stops at the plan, after every flag was parsed
        "rehearse": Spec(("rehearse", "--name", "nothere.example.com", t), (
            "--clients", "--edges", "--lb-policy", "--seed", "--max-seconds", "--duration", "--rpc-interval",
            "--time-scale", "--kill", "--late-clients", "--client-processes", "--port", "--dns-port")),
        "audit": Spec(("audit", *live), ("--name", "--grpc-origin", "--format", "--fail-on", *SESSION_FLAGS)),
        "verify": Spec(("verify", *live, str(ASSEMBLY_LIKE)), ("--stack", "--format", *SESSION_FLAGS), positional=True),
        "preflight": Spec(("preflight", *live, t), ("--format", *SESSION_FLAGS), positional=True),
        "dns-spread": Spec(("dns-spread", "--resolver", "127.0.0.1:9", "--queries", "2", "--timeout", "0.05", NAME),
                           ("--resolver", "--queries", "--timeout"), positional=True),
        "plan from-live": Spec(("plan", "from-live", *NZ, *live, "--address", "203.0.113.10@us-east-1a"),
                               ("--name", "--zone-id", "--address", "--health-check", "--ttl", "-o", *SESSION_FLAGS)),
        "plan from-template": Spec(("plan", "from-template", *NZ, *live, t),
                                   ("--name", "--zone-id", "--health-check", "--ttl", "-o", *SESSION_FLAGS), positional=True),
        "plan show": Spec(("plan", "show", *NZ, *live), ("--name", "--zone-id", *SESSION_FLAGS)),
        "enact": Spec(("enact", "--dry-run", *live, plan), (
            "--format", "--max-change-share", "--wait", "--keep", "--plan-store", *SESSION_FLAGS), positional=True),
    }


def _argv(spec: Spec, flag: str, value: str) -> list[str]:
    """``spec.base`` with ``flag`` set to ``value`` (replacing its base value), or the positional replaced."""
    base = list(spec.base)
    if flag == "POSITIONAL":
        return [*base[:-1], value]
    if flag in base:
        base[base.index(flag) + 1] = value
        return base
    return [*base, flag, value]


@pytest.fixture()
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from an empty folder: a generated --plan-store or -o lands there, not in the repo."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plan.json").write_text(json.dumps(_plan_document()))
    return tmp_path


# Generated cases known to fail in modules still being worked on: (spec, flag, value) -> repro.
KNOWN_FLAG_DEFECTS = {}  # none known: fixed in the library (keep the table for the next one)


def _known(spec: str, flag: str, value: str) -> bool:
    """True for a value in a known defect's class (none today; see KNOWN_FLAG_DEFECTS)."""
    return (spec, flag, value) in KNOWN_FLAG_DEFECTS


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                      HealthCheck.too_slow])
@given(data=st.data())
def test_every_flag_takes_garbage_cleanly(data: st.DataObject, in_tmp: Path, fake_aws: None) -> None:
    specs = _specs(str(in_tmp / "plan.json"))
    label = data.draw(st.sampled_from(sorted(specs)), label="command")
    spec = specs[label]
    flag = data.draw(st.sampled_from([*spec.flags, *(("POSITIONAL",) if spec.positional else ())]), label="flag")
    value = data.draw(VALUES, label="value")
    assume(not _known(label, flag, value))
    if (label, flag) == ("dns-spread", "--timeout"):
        with contextlib.suppress(ValueError):
            assume(not 0.2 < float(value) <= 30)  # a valid long timeout is only slow, three tries of it
    argv = _argv(spec, flag, value)
    assert_clean(run_cli(argv), argv, names=None)


_SESSION = ("live/session.py LiveSession.client catches BotoCoreError only; botocore raises {} (repro: "
            "edge-origin audit --endpoint-url '{}')")
KNOWN_ENDPOINT_DEFECTS: dict[str, str] = {}  # none known: fixed in the library (keep the table for the next one)


ENDPOINT_COMMANDS = ["audit", "plan show", "enact", "preflight", "verify"]


def _endpoint_cases() -> Iterator[object]:
    """Every endpoint at two commands, the closed port at all; all pairs with EDGE_ORIGIN_FUZZ=deep
    (a reachable-looking endpoint costs botocore's retries, about half a second a case)."""
    for endpoint in ENDPOINTS:
        for command in ENDPOINT_COMMANDS:
            if DEEP or command in ("audit", "plan show") or endpoint == CLOSED:
                yield pytest.param(endpoint, command, id=f"{endpoint}-{command}")


@pytest.mark.parametrize(("endpoint", "command"), list(_endpoint_cases()))
def test_bad_endpoints_are_one_line(endpoint: str, command: str, in_tmp: Path, fake_aws: None,
                                    request: pytest.FixtureRequest) -> None:
    if endpoint in KNOWN_ENDPOINT_DEFECTS:
        request.applymarker(pytest.mark.xfail(strict=True, reason=KNOWN_ENDPOINT_DEFECTS[endpoint]))
    spec = _specs(str(in_tmp / "plan.json"))[command]
    argv = _argv(spec, "--endpoint-url", endpoint)
    outcome = run_cli(argv)
    assert_clean(outcome, argv)
    assert outcome.code == 2, f"exit {outcome.code} for edge-origin {' '.join(argv)}"


# Once pinned as defects (tracebacks or exit 0), fixed in the library; kept as regressions.
FIXED_FLAG_DEFECTS = [
    ("audit", "--name", ""), ("audit", "--name", " "), ("audit", "--name", "."),
    ("audit", "--grpc-origin", ""), ("audit", "--grpc-origin", " "),
    ("profile render", "--preset", ""),
]


@pytest.mark.parametrize("case", [
    pytest.param(key, id=f"{key[0]} {key[1]} {key[2]!r}",
                 marks=[pytest.mark.xfail(strict=True, reason=KNOWN_FLAG_DEFECTS[key])] if key in KNOWN_FLAG_DEFECTS else [])
    for key in [*FIXED_FLAG_DEFECTS, *(k for k in KNOWN_FLAG_DEFECTS if k not in FIXED_FLAG_DEFECTS)]
])
def test_known_flag_defects(case: tuple[str, str, str], in_tmp: Path, fake_aws: None) -> None:
    """Flag values that once failed (and any pinned today): each is one line, exit 2."""
    label, flag, value = case
    argv = _argv(_specs(str(in_tmp / "plan.json"))[label], flag, value)
    outcome = run_cli(argv)
    assert_clean(outcome, argv)
    assert outcome.code == 2


# --- plans with wrong types at any depth, against an account (moto) ------------------------------
def _json_paths(doc: object, prefix: tuple = ()) -> Iterator[tuple]:
    yield prefix
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from _json_paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            yield from _json_paths(value, (*prefix, index))


_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70), st.just(1.0), st.just(443.0),
    st.text(max_size=20), st.sampled_from(["", "203.0.113.300", "203.0.113.10", "TCP", "/", "Z1", "a" * 300]),
)
_JSON = st.recursive(_LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                      st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                     max_leaves=5)


@pytest.fixture()
def moto_zone(fake_aws: None) -> Iterator[str]:
    """moto's in-process Route 53 with the zone example.com; yields its id."""
    from moto import mock_aws

    with mock_aws():
        import boto3

        zone = boto3.client("route53", region_name="us-east-1").create_hosted_zone(Name="example.com", CallerReference="fuzz")
        yield zone["HostedZone"]["Id"].split("/")[-1]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                      HealthCheck.too_slow])
@given(mutations=st.lists(st.tuples(st.integers(min_value=0), _JSON, st.booleans()), min_size=1, max_size=3))
def test_enact_takes_any_plan_document_cleanly(mutations: list, moto_zone: str, tmp_path: Path) -> None:
    """A plan with any field replaced or dropped: exit 2 in one line naming the field, or a clean run
    (exit 0 only when the plan library accepts the document)."""
    from edge_origin.live.plans import LivePlanError, parse_plan

    document: object = _plan_document(moto_zone)
    for pick, value, drop in mutations:
        paths = list(_json_paths(document))
        path = paths[pick % len(paths)]
        if not path:
            document = value
            continue
        parent = document
        for key in path[:-1]:
            parent = parent[key]  # type: ignore[index]
        if drop and isinstance(parent, dict):
            parent.pop(path[-1], None)
        else:
            parent[path[-1]] = value  # type: ignore[index]
    plan_file = tmp_path / "mutated.json"
    plan_file.write_text(json.dumps(document))
    argv = ["enact", "--dry-run", str(plan_file)]
    outcome = run_cli(argv)
    assert_clean(outcome, argv)
    event(f"enact exit {outcome.code}")
    try:
        parse_plan(document)
        accepted = True
    except LivePlanError:
        accepted = False
    if outcome.code == 0:
        assert accepted, f"enact accepted a plan the schema refuses: {json.dumps(document)[:300]}"
    if not accepted:
        assert outcome.code == 2, f"exit {outcome.code} for a refused plan: {json.dumps(document)[:300]}"


NAMES = st.one_of(st.sampled_from(["origin.example.com", "ORIGIN.example.com.", "example.com", "a.b.example.com",
                                   "origin.example.org", "_edge-origin-generation.origin.example.com", "x" * 64 + ".example.com",
                                   "*.example.com", "origin..example.com", "-a.example.com", "\u00e9.example.com"]),
                  st.text(max_size=30))
ADDRESSES = st.one_of(st.sampled_from(["203.0.113.10@us-east-1a", "203.0.113.10@us-east-1a", "10.0.0.1@us-east-1b",
                                       "0.0.0.0@us-east-1a", "203.0.113.10", "@us-east-1a", "203.0.113.1@zz"]),
                      st.text(max_size=24))


@settings(max_examples=EXAMPLES // 2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                           HealthCheck.too_slow])
@given(name=NAMES, addresses=st.lists(ADDRESSES, min_size=1, max_size=3), show=st.booleans())
def test_plan_commands_against_an_account(name: str, addresses: list[str], show: bool, moto_zone: str,
                                          in_tmp: Path) -> None:
    """``plan from-live`` / ``plan show`` with generated names and addresses against moto's zone: a plan
    is written only for a name inside the zone, never for the reserved generation label."""
    assume(not (name.strip() == "" and show))
    if show:
        argv = ["plan", "show", "--name", name, "--zone-id", moto_zone]
    else:
        argv = ["plan", "from-live", "--name", name, "--zone-id", moto_zone, "-o", "out.json"]
        for address in addresses:
            argv += ["--address", address]
    outcome = run_cli(argv)
    assert_clean(outcome, argv)
    event(f"plan {'show' if show else 'from-live'} exit {outcome.code}")
    if not show and outcome.code == 0:
        from edge_origin.live.plans import load_plan

        plan = load_plan(in_tmp / "out.json")
        assert plan.fqdn.rstrip(".").lower().endswith("example.com")
        assert not plan.fqdn.lower().startswith("_edge-origin-generation")
        assert len(plan.records) == len({a.split("@")[0] for a in addresses})


def test_a_name_holding_a_cname_gets_no_plan_and_no_batch(moto_zone: str, in_tmp: Path) -> None:
    """moto lets A records join a CNAME; Route 53 refuses the batch. plan from-live and enact refuse first."""
    import boto3

    r53 = boto3.client("route53", region_name="us-east-1")
    r53.change_resource_record_sets(HostedZoneId=moto_zone, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": {
        "Name": NAME, "Type": "CNAME", "TTL": 60, "ResourceRecords": [{"Value": "elsewhere.example.net"}]}}]})
    argv = ["plan", "from-live", "--name", NAME, "--zone-id", moto_zone, "--address", "203.0.113.10@us-east-1a", "-o", "p.json"]
    outcome = run_cli(argv)
    assert_clean(outcome, argv)
    assert outcome.code == 1 and "CNAME (elsewhere.example.net)" in outcome.err and not (in_tmp / "p.json").exists()
    (in_tmp / "p.json").write_text(json.dumps(_plan_document(moto_zone)))
    before = r53.list_resource_record_sets(HostedZoneId=moto_zone)["ResourceRecordSets"]
    argv = ["enact", "--wait", "0", "--allow-full-change", "p.json"]
    outcome = run_cli(argv)
    assert_clean(outcome, argv)
    assert outcome.code == 1 and "holds a CNAME" in outcome.err
    assert r53.list_resource_record_sets(HostedZoneId=moto_zone)["ResourceRecordSets"] == before


# --- cloud assemblies that lie -------------------------------------------------------------------
def _stack_manifest(template_file: object, **extra: object) -> dict:
    artifact = {"type": "aws:cloudformation:stack", "properties": {"templateFile": template_file}, **extra}
    return {"version": "36.0.0", "artifacts": {"S": artifact}}


ASSEMBLIES: dict[str, object] = {
    "artifacts-list": {"artifacts": []},
    "escapes": _stack_manifest("../../../../etc/passwd"),
    "fifo-template": _stack_manifest("t.json"),
    "template-number": _stack_manifest(5),
    "no-properties": {"version": "36.0.0", "artifacts": {"S": {"type": "aws:cloudformation:stack"}}},
    "fifo-manifest": None,
    "self-nested": {"version": "36.0.0", "artifacts": {"S": {"type": "cdk:cloud-assembly", "properties": {"directoryName": "."}}}},
    "manifest-list": [],
}


@pytest.fixture(scope="module")
def assemblies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("assemblies")
    made = {}
    for name, manifest in ASSEMBLIES.items():
        folder = root / name
        folder.mkdir()
        if manifest is None:
            os.mkfifo(folder / "manifest.json")
        else:
            (folder / "manifest.json").write_text(json.dumps(manifest))
        if name == "fifo-template":
            os.mkfifo(folder / "t.json")
        made[name] = folder
    return made


@pytest.mark.parametrize("name", sorted(ASSEMBLIES))
@pytest.mark.parametrize("reader", ["check", "verify", "plan from-template", "rehearse --model", "diff --base", "preflight"])
def test_lying_cloud_assemblies_are_one_line_exit_2(reader: str, name: str, assemblies: dict[str, Path], fake_aws: None) -> None:
    folder = assemblies[name]
    argv = FILE_READERS[reader](str(folder))
    fifos = [p for p in (folder / "manifest.json", folder / "t.json") if p.exists() and stat.S_ISFIFO(os.stat(p).st_mode)]
    outcome = run_cli(argv, fifos=fifos)
    assert_clean(outcome, argv)
    assert outcome.code == 2 and str(folder) in outcome.err, outcome.err


# --- argument shapes: missing, extra, unknown ----------------------------------------------------
SHAPES = [
    [], ["nope"], ["--versoin"], ["check"], ["report"], ["diff"], ["diff", "--base"], ["diff", "--head", "x"],
    ["profile"], ["profile", "nope"], ["profile", "check"], ["profile", "render"], ["rehearse"], ["audit", "extra"],
    ["verify"], ["preflight"], ["dns-spread"], ["dns-spread", "a", "b", "--resolver", "127.0.0.1"], ["plan"],
    ["plan", "nope"], ["plan", "from-live"], ["plan", "from-template"], ["plan", "show"], ["enact"],
    ["check", "--nope", "x"], ["enact", "--dry-run", "--wait"],
]
COMMANDS = [["check"], ["report"], ["diff"], ["profile"], ["profile", "check"], ["profile", "render"], ["rehearse"],
            ["audit"], ["verify"], ["preflight"], ["dns-spread"], ["plan"], ["plan", "from-live"],
            ["plan", "from-template"], ["plan", "show"], ["enact"]]


@pytest.mark.parametrize("argv", SHAPES, ids=lambda a: " ".join(a) or "(none)")
def test_missing_extra_and_unknown_arguments_are_one_line_exit_2(argv: list[str]) -> None:
    outcome = run_cli(argv)
    assert_clean(outcome, argv)
    assert outcome.code == 2


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_every_command_has_help(argv: list[str]) -> None:
    outcome = run_cli([*argv, "--help"])
    assert outcome.code == 0 and "usage: edge-origin" in outcome.out and "Traceback" not in outcome.err


@pytest.mark.parametrize("garbage", ["name-folder-is-a-file", "target-is-a-fifo", "target-is-a-folder"])
def test_a_broken_plan_store_is_refused_before_the_batch(garbage: str, moto_zone: str, in_tmp: Path) -> None:
    """What the store holds is checked before enact changes DNS: a bad store is exit 2 and no change."""
    import boto3

    store = in_tmp / "store"
    store.mkdir()
    if garbage == "name-folder-is-a-file":
        (store / NAME).write_text("not a folder")
    else:
        (store / NAME).mkdir()
        target = store / NAME / "1.json"
        os.mkfifo(target) if garbage == "target-is-a-fifo" else target.mkdir()
    (in_tmp / "p.json").write_text(json.dumps(_plan_document(moto_zone)))
    r53 = boto3.client("route53", region_name="us-east-1")
    before = r53.list_resource_record_sets(HostedZoneId=moto_zone)["ResourceRecordSets"]
    argv = ["enact", "--wait", "0", "--allow-full-change", "--plan-store", str(store), "p.json"]
    outcome = run_cli(argv, fifos=[store / NAME / "1.json"])
    assert_clean(outcome, argv, names="--plan-store")
    assert outcome.code == 2
    assert r53.list_resource_record_sets(HostedZoneId=moto_zone)["ResourceRecordSets"] == before


def test_plan_store_cleanup_skips_what_is_not_a_plan_file(moto_zone: str, in_tmp: Path) -> None:
    """A folder or FIFO named like an old plan neither stops the clean-up nor is deleted."""
    store = in_tmp / "store"
    (store / NAME / "3.json").mkdir(parents=True)
    os.mkfifo(store / NAME / "2.json")
    (store / NAME / "1.json").write_text("{}")
    document = _plan_document(moto_zone, generation=10)
    (in_tmp / "p.json").write_text(json.dumps(document))
    argv = ["enact", "--wait", "0", "--allow-full-change", "--plan-store", str(store), "--keep", "0", "p.json"]
    outcome = run_cli(argv, fifos=[store / NAME / "2.json"])
    assert_clean(outcome, argv)
    assert outcome.code == 0, outcome.err
    assert sorted(p.name for p in (store / NAME).iterdir()) == ["10.json", "10.state.json", "2.json", "3.json"]  # 10.state.json: the write-ahead entry
    assert "removed generations 1" in outcome.out


def test_a_foreign_generation_record_gets_no_plan(moto_zone: str, in_tmp: Path) -> None:
    """A TXT record at the reserved label that edge-origin did not write: enact would refuse, so
    plan from-live refuses too instead of writing a plan that can never apply."""
    import boto3

    boto3.client("route53", region_name="us-east-1").change_resource_record_sets(
        HostedZoneId=moto_zone, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": {
            "Name": f"_edge-origin-generation.{NAME}", "Type": "TXT", "TTL": 60,
            "ResourceRecords": [{"Value": '"generation=-5 by hand"'}]}}]})
    argv = ["plan", "from-live", "--name", NAME, "--zone-id", moto_zone, "--address", "203.0.113.10@us-east-1a", "-o", "p.json"]
    outcome = run_cli(argv)
    assert_clean(outcome, argv)
    assert outcome.code == 1 and "did not write" in outcome.err and not (in_tmp / "p.json").exists()
