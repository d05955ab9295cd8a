"""`edge-origin rules` (the catalogue: id, severity, title) and `edge-origin rules explain ID`
(why, source, fix, how to acknowledge, an example), read from the rule registry."""

from __future__ import annotations

import argparse
import json
import sys

from edge_origin.cli.common import EXIT_OK, UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rules",
        help="list the rules (id, severity, title); `rules explain EO-DNS1`: why, source, fix, an example",
        description="The rule catalogue (RULES.md is generated from the same registry).",
    )
    p.add_argument("--format", default="text", help="text | json (default: text)")
    p.set_defaults(func=_cmd_list)
    actions = p.add_subparsers(dest="rules_command", required=False, parser_class=type(p))
    explain = actions.add_parser("explain", help="why a rule exists, its source, its fix and an example")
    explain.add_argument("rule_id", metavar="ID", help="a rule id, e.g. EO-DNS1 (case-insensitive)")
    explain.add_argument(
        "--example", action="store_true",
        help="print only the example template (YAML) the rule fires on: `edge-origin check` that file to see it",
    )
    explain.set_defaults(func=_cmd_explain)
    actions.add_parser("list", help="the catalogue (the default)").set_defaults(func=_cmd_list)


def _cmd_list(args: argparse.Namespace) -> int:
    from edge_origin.rules.explain import catalogue_rows

    rows = catalogue_rows()
    fmt = getattr(args, "format", "text")
    if fmt == "json":
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
    elif fmt == "text":
        width = max(len(r["id"]) for r in rows)
        for r in rows:
            sys.stdout.write(f"{r['id']:<{width}}  {r['severity']:<7}  {r['kind']:<10}  {r['title']}\n")
        sys.stdout.write(f"{len(rows)} rules; `edge-origin rules explain ID` for one (why, source, fix, example)\n")
    else:
        raise UsageError(f"--format {fmt!r}: allowed text, json")
    return EXIT_OK


def _cmd_explain(args: argparse.Namespace) -> int:
    from edge_origin.rules.explain import example_template, explain_text, find_rule

    try:
        rule = find_rule(args.rule_id)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.example:
        text = example_template(rule.id)
        if text is None:
            raise UsageError(f"{rule.id} is a transition rule: its example is a change (see `edge-origin rules explain {rule.id}`)")
        sys.stdout.write(text)
        return EXIT_OK
    sys.stdout.write(explain_text(rule))
    return EXIT_OK
