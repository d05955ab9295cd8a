"""The command blocks of README.md and of every docs/*.md page, and what the tests do with each:
run it (with a fixture), or skip it with a reason. ``tests/test_readme_commands.py`` fails on any
command block that is in neither.

To add a block (a ```sh or ```console block in the README or a docs page):
1. Run ``python -m pytest -q tests/test_readme_commands.py -k listed``: the failure names the
   block's file and line and its KEY (its first command, ``$ `` and comments stripped, spaces
   collapsed).
2. Add ``("<file>", "<a prefix of that key>"): Run(...)`` or ``Skip("why it cannot run here")`` to
   ``BLOCKS`` (``<file>`` as the repository names it: ``README.md``, ``docs/live.md``; a bare
   ``"<prefix>"`` key means ``README.md``).
   ``Run`` fields: ``fixture`` (a name in ``FIXTURES`` below: the folder the commands run in),
   ``slow`` (marks it ``@pytest.mark.slow``), ``stand_ins`` ({command index: reason} for commands
   the fixture stands in for, e.g. a ``cdk synth`` whose output the fixture already made),
   ``codes`` ({command index: exit code, or a tuple of codes for a verdict that varies run to run}; default: the ``exit N`` the command's comment or output
   says, else 0), ``expect`` (strings the output must hold).
3. A new fixture: a function ``(workdir: Path, assembly: Path) -> Path`` in ``FIXTURES`` that lays
   out what the commands read (``assembly`` is the reference app's synthesized cdk.out) and
   returns the folder to run them in.

In ``console`` style blocks (lines starting ``$ ``), the lines after a command are its expected
output: each one without ``...`` must appear in the real output (spaces collapsed; a trailing
``(exit N)`` note is the exit code); a line with ``...`` checks the part before it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
COMMAND_LANGS = ("sh", "console", "bash", "shell", "shell-session")
FENCE = re.compile(r"^```(\S*)\s*$")


@dataclass(frozen=True)
class Command:
    text: str  # what bash runs (continuations joined)
    line: int  # line of its first line in the page
    output: tuple[str, ...] = ()  # console style: the lines shown after it
    comment_code: int | None = None  # "exit N" in its comment or output


@dataclass(frozen=True)
class Block:
    line: int  # line of the opening fence in its file
    lang: str
    commands: tuple[Command, ...]
    file: str = "README.md"  # the page, relative to the repository root

    @property
    def key(self) -> str:
        return normalize(self.commands[0].text) if self.commands else ""


@dataclass(frozen=True)
class Run:
    fixture: str = "workdir"
    slow: bool = False
    stand_ins: Mapping[int, str] = field(default_factory=dict)
    codes: Mapping[int, int | tuple[int, ...]] = field(default_factory=dict)  # a tuple: any of these
    expect: Sequence[str] = ()


@dataclass(frozen=True)
class Skip:
    reason: str


def normalize(command: str) -> str:
    """The command without its comment, continuations and repeated spaces."""
    return " ".join(strip_comment(command).replace("\\\n", " ").split())


def strip_comment(command: str) -> str:
    """``cmd args  # comment`` -> ``cmd args`` (a ``#`` after a space, outside quotes), per line."""
    out = []
    for line in command.splitlines():
        quote = None
        for i, ch in enumerate(line):
            if quote:
                quote = None if ch == quote else quote
            elif ch in "'\"":
                quote = ch
            elif ch == "#" and (i == 0 or line[i - 1].isspace()):
                line = line[:i]
                break
        out.append(line.rstrip())
    return "\n".join(out)


_EXIT = re.compile(r"\bexit (\d+)\b")


def _code_in(text: str) -> int | None:
    match = _EXIT.search(text)
    return int(match.group(1)) if match else None


def parse_blocks(text: str, file: str = "README.md") -> list[Block]:
    """Every fenced block whose language is a shell: its commands (and console output)."""
    blocks: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        lang, start = fence.group(1), i + 1
        j = start
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        if lang in COMMAND_LANGS:
            blocks.append(Block(start, lang, tuple(_commands(lines[start:j], start + 1)), file))
        i = j + 1
    return blocks


def _commands(body: list[str], first_line: int) -> list[Command]:
    console = any(line.startswith("$ ") for line in body)
    commands: list[Command] = []
    k = 0
    while k < len(body):
        line = body[k]
        is_command = line.startswith("$ ") if console else (line.strip() and not line.lstrip().startswith("#"))
        if not is_command:
            k += 1
            continue
        parts, at = [line[2:] if console else line], first_line + k
        while parts[-1].rstrip().endswith("\\") and k + 1 < len(body):
            k += 1
            parts.append(body[k])
        k += 1
        output: list[str] = []
        while console and k < len(body) and not body[k].startswith("$ "):
            output.append(body[k])
            k += 1
        text = "\n".join(parts)
        comment = _comment_of(text)
        code = _code_in(comment)
        if code is None and output:
            code = _code_in(" ".join(o for o in output if "(exit" in o))
        commands.append(Command(text, at, tuple(output), code))
    # `$ echo $?` after a command: its output is the previous command's exit code
    merged: list[Command] = []
    for command in commands:
        if console and command.text.strip() == "echo $?" and merged and command.output:
            prev = merged[-1]
            merged[-1] = Command(prev.text, prev.line, prev.output, int(command.output[0].strip()))
            continue
        merged.append(command)
    return merged


def _comment_of(text: str) -> str:
    stripped = strip_comment(text).splitlines()
    return " ".join(line[len(s):] for line, s in zip(text.splitlines(), stripped, strict=False))


def alternatives_in(command: str) -> list[str]:
    """Words a reader would copy that the shell reads differently: ``a|b`` (a pipe) and
    ``[--flag]`` (a glob), outside comments and quotes."""
    bare = re.sub(r"'[^']*'|\"[^\"]*\"", "''", strip_comment(command))
    return re.findall(r"\S+\|\S+", bare) + re.findall(r"\[--?[\w-]+[^\]]*\]", bare)


# --- fixtures: the folder a block runs in ---------------------------------------------------------
def _workdir(workdir: Path, assembly: Path) -> Path:
    """The reference app's cdk.out, the repository's tests/ (fixtures) and a profile file."""
    shutil.copytree(assembly, workdir / "cdk.out")
    (workdir / "tests").symlink_to(ROOT / "tests")
    (workdir / "my-profile.yaml").write_text(
        "preset: streaming-telemetry\nclient_keepalive_time_s: 45\nnlb_idle_timeout_s: 400\n", encoding="utf-8"
    )
    return workdir


def _git_main(workdir: Path, assembly: Path) -> Path:
    """A clone on branch main (the PR workflow runs from the PR checkout, main checked out or not),
    with the two synthesized sides the skipped synth commands would have written."""
    repo = workdir / "checkout"
    repo.mkdir()
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": "/usr/bin:/bin", "HOME": str(workdir)}
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "main"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, timeout=60)
    shutil.copytree(assembly, repo / "cdk.out")
    shutil.copytree(assembly, workdir / "main.cdk.out")
    return repo


def _clone(workdir: Path, assembly: Path) -> Path:
    """What `git clone` of this repository gives: the files git knows (tracked, and new ones not
    ignored), copied from this checkout."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True, timeout=60).stdout.decode().split("\0")
    clone = workdir / "edge-origin"
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file() and not source.is_symlink():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)
    return clone


FIXTURES: dict[str, Callable[[Path, Path], Path]] = {"workdir": _workdir, "git-main": _git_main, "clone": _clone}

_SYNTH_STAND_IN = ("installs the app's requirements from the registry and synthesizes with the CDK CLI: the "
                   "fixture holds the reference app synthesized as both sides (../main.cdk.out, cdk.out)")
_LIVE = "reads or changes a live AWS account"

# (page, key prefix) -> what the tests do with the block (see the module docstring)
BLOCKS: dict[tuple[str, str] | str, Run | Skip] = {
    ("README.md", "make synth"): Skip("builds a fresh venv and node_modules and runs the whole suite (what CI runs)"),
    # the install section: a copy of this checkout stands in for the clone; pip installs it into a
    # fresh venv there (from the package index: slow), then the reference app synthesizes without the CLI
    ("README.md", "git clone https://github.com/edge-origin/edge-origin"): Run(
        fixture="clone", slow=True, stand_ins={0: "the fixture is a copy of this checkout (what the clone holds)"}),
    # the walk-through: the fixture's cdk.out (the reference app) stands in for the user's synth
    ("README.md", "npx cdk synth"): Run(stand_ins={0: "needs the CDK CLI; the fixture holds the reference app "
                                                      "synthesized (tests/test_constructs_readme.py runs the example)"}),
    ("README.md", "edge-origin check tests/fixtures/diff/naive-migration/base"): Run(),
    ("README.md", "edge-origin diff --base tests/fixtures/diff/naive-migration"): Run(),
    # docs/model.md: every block runs in-process, its output compared line by line, in
    # tests/forecast/test_model_docs.py::test_every_command_of_the_page_prints_what_the_page_shows
    ("docs/model.md", "edge-origin forecast predict"): Skip("run and compared by tests/forecast/test_model_docs.py"),
    ("docs/model.md", "edge-origin forecast fit"): Skip("run and compared by tests/forecast/test_model_docs.py"),
    ("docs/rehearsal-at-scale.md", "edge-origin rehearse cdk.out --name origin.telemetry.example.com --engine locust --workers 2"): Skip(
        "500 clients through 2 Locust workers: the same flags at the smallest size (6 clients) run in tests/rehearsal/"
        "test_rehearsal_locust.py::test_cli_writes_locusts_own_csv_and_html_beside_the_report"),
    ("docs/rehearsal-at-scale.md", "edge-origin rehearse cdk.out --name origin.telemetry.example.com --engine locust --manifest"): Run(
        stand_ins={1: "kubectl apply: nothing is applied here (the manifest is validated against the operator's CRD "
                      "schema in tests/rehearsal/test_rehearsal_locust.py)", 2: "kubectl logs: no cluster here"}),
    ("docs/rehearsal-at-scale.md", "PYTHONPATH=constructs python benchmarks/bench_locust.py"): Skip(
        "a benchmark: prints this machine's figures (minutes of CPU), not a verdict"),
    ("docs/rules.md", "edge-origin --version"): Run(),
    ("docs/rules.md", "edge-origin check cdk.out/"): Run(),
    ("docs/review.md", "git worktree add --detach ../main-checkout main"): Run(
        fixture="git-main", stand_ins={1: _SYNTH_STAND_IN, 2: _SYNTH_STAND_IN}),
    ("docs/review.md", "edge-origin diff --base tests/fixtures/diff/naive-migration"): Run(),
    ("docs/connection-profile.md", "edge-origin profile check my-profile.yaml"): Run(),
    ("docs/origin-verification.md", "edge-origin profile render --lang python-interceptor"): Run(),
    # the kill run's verdict is the loopback's (moved clients can tip max/mean past 1.35): 0 or 1, never 2
    ("docs/rehearsal.md", "edge-origin rehearse cdk.out --name origin.telemetry.example.com --clients 500"): Run(
        slow=True, codes={1: (0, 1)}),
    ("docs/rehearsal.md", "edge-origin rehearse cdk.out --name origin.telemetry.example.com --engine locust"): Run(
        slow=True),
    ("docs/rehearsal.md", "edge-origin forecast compare"): Skip(
        "its loopback column varies run to run; tests/forecast/test_model_agreement.py runs the same comparison "
        "and holds it to the stated bands"
    ),
    ("docs/rehearsal.md", "EDGE_ORIGIN_LOCUST_CONFIG=rehearsal.json locust"): Skip(
        "a multi-machine run (a master and worker machines, a hand-written configuration); "
        "tests/rehearsal/test_rehearsal_locust.py runs the same locustfile with a local master and 2 workers"
    ),
    ("docs/live.md", "edge-origin watch --grpc-origin"): Skip(
        f"{_LIVE} (CloudWatch); tests/live/test_watch.py runs watch against moto"),
    ("docs/live.md", "edge-origin plan show"): Skip(f"{_LIVE} (Route 53); tests/live_write/ runs the same commands against moto"),
    ("docs/live.md", "edge-origin audit"): Skip(f"{_LIVE}; tests/live/ runs audit against moto"),
    ("docs/live.md", "edge-origin verify cdk.out"): Skip(f"{_LIVE}; tests/live/ runs verify against moto"),
    ("docs/live.md", "edge-origin preflight cdk.out"): Skip(f"{_LIVE}; tests/live/ runs preflight against moto"),
    ("docs/live.md", "edge-origin ready --name api.example.com"): Skip(
        f"{_LIVE}; tests/live/test_ready.py runs ready against moto"),
    ("docs/live.md", "edge-origin dns-spread origin.example.com --resolver 127.0.0.1:46112"): Skip(
        "needs a resolver on that port; tests/rehearsal/ runs dns-spread against the rehearsal DNS server"),
}


def _page_and_prefix(key: tuple[str, str] | str) -> tuple[str, str]:
    return key if isinstance(key, tuple) else ("README.md", key)


def entry_for(block: Block) -> tuple[tuple[str, str] | str, Run | Skip] | None:
    """The one BLOCKS entry of the block's page whose key prefixes the block's key (the longest when
    several)."""
    matches = []
    for key in BLOCKS:
        page, prefix = _page_and_prefix(key)
        if page == block.file and block.key.startswith(normalize(prefix)):
            matches.append(key)
    if not matches:
        return None
    key = max(matches, key=lambda k: len(_page_and_prefix(k)[1]))
    return key, BLOCKS[key]


def pages() -> list[Path]:
    """README.md and every docs page, in that order."""
    return [README, *sorted(DOCS.glob("*.md"))]


def readme_blocks() -> list[Block]:
    """The command blocks of README.md and of every docs/*.md page."""
    blocks: list[Block] = []
    for page in pages():
        blocks += parse_blocks(page.read_text(encoding="utf-8"), page.relative_to(ROOT).as_posix())
    return blocks
