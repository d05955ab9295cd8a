"""The parser imports only the command it runs (issue 53): `--help`, `--version` and `check` import no
other command's module, and the lazy parser says exactly what the full one (docs/cli.md) says."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from edge_origin import cli

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "tests" / "fixtures" / "templates" / "rules" / "eo-dns1-fire.json"


def _choices(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def test_the_command_table_is_what_the_modules_register() -> None:
    """``COMMANDS`` (name, aliases, module, help, in --help order) is held to the modules' own
    ``register``: a command added, renamed or re-worded in its module fails here."""
    registered = []
    for module in cli.COMMAND_MODULES:
        sub = _choices(cli.build_parser([_first_command(module)]))
        by_name = {a.dest: a for a in sub._choices_actions}
        for name, aliases, owner, text in cli.COMMANDS:
            if owner == module:
                assert sub.choices[name].add_help, f"{name}: registered by {module}, not a placeholder"
                for alias in aliases:
                    assert sub.choices[alias] is sub.choices[name]
                assert by_name[name].help == text, name
        registered.extend(a.dest for a in _choices(_only(module))._choices_actions)
    assert registered == [name for name, *_ in cli.COMMANDS]


def _first_command(module: str) -> str:
    return next(name for name, _, owner, _ in cli.COMMANDS if owner == module)


def _only(module: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    __import__(f"edge_origin.cli.{module}", fromlist=["register"]).register(parser.add_subparsers())
    return parser


@pytest.mark.parametrize("word", [None, *(name for name, *_ in cli.COMMANDS), "model", "nonsense"])
def test_the_lazy_parser_helps_as_the_full_one(word: str | None) -> None:
    full = cli.build_parser()
    lazy = cli.build_parser(["--help"] if word is None else [word, "--help"])
    assert lazy.format_help() == full.format_help()
    if word in _choices(full).choices:
        assert _choices(lazy).choices[word].format_help() == _choices(full).choices[word].format_help()


@pytest.mark.parametrize(("argv", "word"), [
    (["check", "x"], "check"), (["--version"], ""), (["-h", "audit"], "audit"), (["--", "check"], ""), ([], ""),
    (["--max-eval-steps", "5000", "check"], "check"), (["--max-file-mib=2", "diff"], "diff"),
])
def test_the_command_word_is_the_first_non_option(argv: list[str], word: str) -> None:
    assert cli._command_word(argv) == word


_PROBE = """
import contextlib, io, json, sys
from edge_origin.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps(sorted(m for m in sys.modules if m.startswith("edge_origin") or m.split(".")[0] in {"boto3", "botocore", "yaml", "numpy"})))
"""
_OTHER_COMMANDS = {f"edge_origin.cli.{m}" for m in cli.COMMAND_MODULES}


def _loaded(*argv: str) -> set[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "constructs")}
    out = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, timeout=60, env=env, check=True)
    return set(json.loads(out.stdout))


def test_help_version_and_check_import_nothing_they_do_not_run() -> None:
    for argv in (["--help"], ["--version"]):
        loaded = _loaded(*argv)
        assert loaded <= {"edge_origin", "edge_origin._moved", "edge_origin._version", "edge_origin.cli",
                          "edge_origin.cli.common", "edge_origin.core", "edge_origin.core.limits",
                          "edge_origin.core.lazy_re"}, (argv, loaded)
    loaded = _loaded("check", str(TEMPLATE))
    assert loaded & _OTHER_COMMANDS == {"edge_origin.cli.check"}
    assert not {m for m in loaded if m.split(".")[1:2] in (["forecast"], ["live"], ["rehearsal"], ["cdk"], ["testing"])}, loaded
    assert not {"boto3", "botocore", "numpy"} & loaded


#: What `check` never runs on a template (no change, no config file, no --format sarif or baseline):
#: the change model and the transition rules (`diff`), fingerprints (hashlib: SARIF, baselines), an
#: answer's random draw (the rehearsal), did-you-mean (difflib), and importlib.resources' readers
#: (zipfile, threading, tempfile) for the data files, read from the package folder instead; signal (a
#: closed pipe's exit status). Issue 53: these were ~15 ms of the check's start; a module-level import
#: of one of them fails here.
CHECK_NEVER_LOADS = {
    "edge_origin.model.transition", "edge_origin.model.replacement_schemas",
    *(f"edge_origin.rules.{m}" for m in ("chg1_policy_across_resources", "chg2_origin_ips_replaced",
      "chg3_name_left_without_records", "chg4_connection_profile_transition", "chg5_record_identity_moved")),
    "hashlib", "random", "difflib", "zipfile", "threading", "tempfile", "importlib.resources", "importlib.readers",
    "signal",
    # orjson and what it imports (uuid, platform, datetime, dataclasses with inspect, ast, dis, tokenize): a
    # small template takes the strict parse (core.fast_json), its classes are made without dataclasses
    # (core.fast_dataclass); ~15 ms of a small check's start.
    "orjson", "uuid", "platform", "datetime", "dataclasses", "inspect", "ast", "dis", "tokenize",
    # the terminal's size, asked by every argparse formatter: only help, usage and errors format (cli._Parser)
    "shutil",
    # typing (~13M instructions): its names are imported under ``if TYPE_CHECKING:`` (a module constant False)
    "typing",
}
_ALL_MODULES = _PROBE.replace('sorted(m for m in sys.modules if m.startswith("edge_origin") or m.split(".")[0] in {"boto3", "botocore", "yaml", "numpy"})', "sorted(sys.modules)")


def test_check_loads_none_of_the_modules_only_other_paths_run() -> None:
    """A template whose security group rules read the shipped data files (EO-SG1) and whose check
    finds something: the whole path of a check runs, and none of ``CHECK_NEVER_LOADS`` is imported."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "constructs")}
    template = ROOT / "tests" / "fixtures" / "templates" / "rules" / "eo-sg1-fire.json"
    out = subprocess.run([sys.executable, "-c", _ALL_MODULES, "check", "--format", "json", "--config", "none", str(template)],
                         capture_output=True, text=True, timeout=60, env=env, check=True)
    loaded = set(json.loads(out.stdout))
    assert {"edge_origin.data", "edge_origin.rules.sg1_health_checkers", "json"} <= loaded  # the probe sees the run
    assert not loaded & CHECK_NEVER_LOADS, (sorted(loaded & CHECK_NEVER_LOADS),
                                            "see docs/development.md, 'Keeping check quick to start'")
    before = subprocess.run([sys.executable, "-c", _ALL_MODULES, "rules", "--format", "json"],
                            capture_output=True, text=True, timeout=60, env=env, check=True)
    assert "edge_origin.rules.chg1_policy_across_resources" in json.loads(before.stdout)  # the catalogue still has them


def test_the_program_exits_with_the_code_and_every_line_written(tmp_path: Path) -> None:
    """``python -m edge_origin.cli check`` ends by ``os._exit`` after flushing: the same exit code and the
    same output as ``main`` (findings: 1; bad input: 2, one line)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "constructs")}
    run = subprocess.run([sys.executable, "-m", "edge_origin.cli", "check", str(TEMPLATE), "--format", "json"],
                         capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 1 and json.loads(run.stdout)["findings"], run.stderr
    bad = subprocess.run([sys.executable, "-m", "edge_origin.cli", "check", str(tmp_path / "missing.json")],
                         capture_output=True, text=True, timeout=60, env=env)
    assert bad.returncode == 2 and bad.stdout == "" and len(bad.stderr.splitlines()) == 1, bad.stderr
    flag = subprocess.run([sys.executable, "-m", "edge_origin.cli", "check", "--nope", str(TEMPLATE)],
                          capture_output=True, text=True, timeout=60, env=env)
    assert flag.returncode == 2 and "--nope" in flag.stderr


def test_the_forecast_answers_to_its_old_verb() -> None:
    """`forecast` is the verb; `model` (its name before 0.3) is an alias of the same parser."""
    sub = _choices(cli.build_parser())
    assert sub.choices["model"] is sub.choices["forecast"]
    args = cli.build_parser(["model"]).parse_args(["model", "predict", "--devices", "10", "--ramp-seconds", "1"])
    assert args.func.__name__ == "_cmd_predict"


def test_a_metavar_that_does_not_fit_its_nargs_is_still_refused() -> None:
    """cli._Parser gives the formatter that checks a new argument's metavar a width (no terminal query):
    the check itself is argparse's."""
    parser = cli._Parser(prog="x")  # noqa: SLF001
    with pytest.raises(ValueError, match="length of metavar tuple does not match nargs"):
        parser.add_argument("--pair", nargs=2, metavar=("one",))
    parser.add_argument("--pair", nargs=2, metavar=("one", "two"))
    assert "--pair one two" in parser.format_usage()


def test_a_listed_command_s_parser_is_built_only_when_used() -> None:
    """The commands a run does not name are listed (help, choices, aliases) but their parsers are made on
    first use, as ``add_parser`` makes them (argparse calling one would get that parser)."""
    parser = cli.build_parser(["check", "x"])
    choices = _choices(parser).choices
    assert isinstance(choices["check"], cli._Parser) and isinstance(choices["rules"], cli._Unbuilt)  # noqa: SLF001
    assert "_parser" not in vars(choices["rules"]) and choices["model"] is choices["forecast"]
    assert choices["rules"].prog == "edge-origin rules" and not choices["rules"].add_help
    assert isinstance(vars(choices["rules"])["_parser"], cli._Parser)  # noqa: SLF001
    assert choices["rules"].parse_known_args(["extra"]) == (argparse.Namespace(), ["extra"])


def test_a_check_compiles_no_source() -> None:
    """A process's first ``compile`` builds the ``ast`` types (~9.5M instructions, issue 53): a check calls
    none (fast_dataclass's __init__ code is precompiled; no typing.NamedTuple with string annotations).
    An import that compiles a module's source (no bytecode cached yet, as on a fresh clone or with
    PYTHONDONTWRITEBYTECODE) is the interpreter's, not the check's: the probe counts only other callers."""
    probe = """
import builtins, contextlib, io, sys
calls = []
original = builtins.compile
def counting(*a, **k):
    if not sys._getframe(1).f_code.co_filename.startswith("<frozen importlib"):
        calls.append(a[0] if a else k)
    return original(*a, **k)
builtins.compile = counting
from edge_origin.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(["check", "--config", "none", sys.argv[1]])
from edge_origin.core import fast_dataclass
print(len(calls), len(fast_dataclass.COMPILED))
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "constructs"), "PYTHONDONTWRITEBYTECODE": "1"}
    template = ROOT / "tests" / "fixtures" / "templates" / "rules" / "eo-sg1-fire.json"
    out = subprocess.run([sys.executable, "-c", probe, str(template)], capture_output=True, text=True, timeout=60,
                         env=env, check=True)
    assert out.stdout.split() == ["0", "0"], out.stdout
