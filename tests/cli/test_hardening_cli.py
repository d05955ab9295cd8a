"""Generated arguments for every subcommand (NaN, inf, negatives, huge, empty, unicode, odd files):
``main()`` in-process exits 0, 1 or 2 and never prints a traceback; bad input is one line."""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from pathlib import Path

import pytest
from hardening_support import examples, json_values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin import cli

ROOT = Path(__file__).resolve().parents[2]
RULES_DIR = ROOT / "tests" / "fixtures" / "templates" / "rules"
FIXTURE = str(RULES_DIR / "eo-dns1-fire.yaml")
WORK = Path(tempfile.mkdtemp(prefix="eo-hardening-"))
FIFO = WORK / "fifo"
os.mkfifo(FIFO)
PROFILE = WORK / "profile.json"
PROFILE.write_text(json.dumps({"nlb_idle_timeout_s": 400}))

WEIRD = st.sampled_from(
    ["nan", "NaN", "inf", "-inf", "Infinity", "-1", "0", "1e400", "9" * 50, "", " ", "é☃", "\u202e", "1.5", "70000",
     "-0", "0x10", "1_000", "x@nan", "a@1e400", "@1", "a@", "--", "-"]
) | st.text(max_size=8)
ODD_PATHS = st.sampled_from(
    [FIXTURE, str(ROOT / "tests" / "fixtures" / "templates" / "world"), "/dev/zero", "/dev/null", str(FIFO), str(WORK), "/nonexistent/x.yaml", "", "é☃.json",
     str(PROFILE)]
)

FLAGS = {
    "check": ["--format", "--fail-on"],
    "report": ["--format"],
    "rehearse": [
        "--clients", "--edges", "--duration", "--rpc-interval", "--port", "--dns-port", "--kill", "--max-seconds",
        "--time-scale", "--late-clients", "--client-processes", "--seed", "--chart", "--lb-policy", "--name",
    ],
    "profile check": ["--format"],
    "profile render": ["--lang", "--name", "--namespace", "--preset"],
}


def run_main(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


@st.composite
def argv_for(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from(sorted(FLAGS)))
    argv = command.split()
    if command == "rehearse":
        # a path that cannot load: the run never starts, but every flag is parsed and checked
        argv += ["/nonexistent/edge.yaml", "--name", "o.example.com"]
    elif command == "profile render":
        if draw(st.booleans()):
            argv.append(draw(ODD_PATHS))
        argv += ["--lang", draw(st.sampled_from(["go", "java", "python", "service-config", "configmap"]))]
    else:
        argv += draw(st.lists(ODD_PATHS, min_size=1, max_size=3))
    for flag in draw(st.lists(st.sampled_from(FLAGS[command]), max_size=4)):
        argv += [flag, draw(WEIRD)]
    return argv


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argv=argv_for())
def test_every_subcommand_exits_cleanly_on_generated_arguments(argv: list[str]) -> None:
    code, _, err = run_main(argv)
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err, (argv, err)
    if code == 2:
        assert err.strip() and err.count("\n") == 1, (argv, err)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["rehearse", FIXTURE, "--name", "o", "--duration", "nan"], "--duration"),
        (["rehearse", FIXTURE, "--name", "o", "--rpc-interval", "-1"], "--rpc-interval"),
        (["rehearse", FIXTURE, "--name", "o", "--port", "70000"], "<= 65535"),
        (["rehearse", FIXTURE, "--name", "o", "--dns-port", "-1"], "--dns-port"),
        (["rehearse", FIXTURE, "--name", "o", "--kill", "A@nan"], "finite"),
        (["rehearse", FIXTURE, "--name", "o", "--max-seconds", "inf"], "--max-seconds"),
        (["rehearse", FIXTURE, "--name", "o", "--chart", str(WORK / "missing" / "c.png")], "does not exist"),
        (["rehearse", FIXTURE, "--name", "o", "--chart", str(WORK / "c.bmp")], "unknown extension"),
        (["check", str(FIFO)], "named pipe"),
        (["check", "/dev/zero"], "character device"),
        (["profile", "check", str(FIFO)], "named pipe"),
        (["profile", "check", "/dev/zero"], "character device"),
        (["profile", "render", str(FIFO), "--lang", "go"], "named pipe"),
        (["profile", "check", str(WORK)], "a directory"),
        (["profile", "render", "--lang", "configmap", "--name", "Bad_Name"], "RFC 1123"),
        (["profile", "render", "--lang", "configmap", "--namespace", "a.b"], "RFC 1123"),
    ],
)
def test_named_bad_input_is_one_line_exit_2(argv: list[str], needle: str) -> None:
    code, out, err = run_main(argv)
    assert code == 2 and out == "", (code, out, err)
    assert needle in err and err.count("\n") == 1, err


def test_profile_render_refuses_what_check_rejects(tmp_path: Path) -> None:
    bad = tmp_path / "incident.json"
    bad.write_text(json.dumps({"client_keepalive_time_s": 20, "server_min_ping_interval_s": 300, "server_permit_without_calls": False}))
    check_code, _, _ = run_main(["profile", "check", str(bad)])
    code, out, err = run_main(["profile", "render", str(bad), "--lang", "go"])
    assert check_code == 1
    assert code == 2 and out == "" and "not rendered" in err and "EO-PROFILE" in err


def test_profile_numbers_out_of_range_name_the_field(tmp_path: Path) -> None:
    for text, field in (
        ('{"nlb_idle_timeout_s": ' + "9" * 400 + "}", "nlb_idle_timeout_s"),
        ('{"server_max_ping_strikes": ' + "9" * 30 + "}", "server_max_ping_strikes"),
        ('{"client_keepalive_time_s": NaN}', "client_keepalive_time_s"),
        ('{"client_keepalive_time_s": Infinity}', "client_keepalive_time_s"),
        ('{"client_keepalive_time_s": ' + "9" * 5000 + "}", "not valid JSON"),
    ):
        path = tmp_path / "p.json"
        path.write_text(text)
        code, _, err = run_main(["profile", "check", str(path)])
        assert code == 2 and field in err and err.count("\n") == 1 and len(err) < 400, err


@settings(max_examples=examples(150), deadline=None)
@given(data=st.dictionaries(st.sampled_from(["preset", "nlb_idle_timeout_s", "client_keepalive_time_s",
                                             "server_max_ping_strikes", "client_lb_policy",
                                             "server_max_connection_age_s", "cloudfront_extended_timeouts",
                                             "p99_rpc_duration_s", "unknown_key"]), json_values, max_size=4))
def test_profile_loader_on_generated_mappings(data: dict) -> None:
    from edge_origin.profile import ConnectionProfile, ProfileError
    from edge_origin.profile.render import LANGS, RenderError, configmap, honour_problem, render

    try:
        profile = ConnectionProfile.from_mapping(data, source="gen")
    except ProfileError as exc:
        assert str(exc).startswith("gen: ") and len(str(exc)) < 800  # an unknown key lists the 23 known ones
        return
    profile.check()
    profile.check(cloudfront=False, ranges=False)
    for lang in LANGS:
        if lang == "configmap":
            configmap(profile, "n")
            continue
        problem = honour_problem(profile, lang)
        if problem:  # a profile the language's server cannot honour: an asserted refusal, one line
            with pytest.raises(RenderError, match=f"--lang {lang}: not rendered: "):
                render(profile, lang)
        else:
            render(profile, lang)
