#!/usr/bin/env bash
# The edge-origin GitHub Action's work (action.yml runs it; it also runs locally):
#   EO_HEAD              paths of the change (spaces or new lines between them), required
#   EO_BASE              paths of the deployed side; set: `edge-origin diff`, unset: `edge-origin check`
#   EO_FAIL_ON           error | warning | info (default error)
#   EO_FAIL_ON_NEW_ONLY  true: with a base, fail only on what the change introduces (default true)
#   EO_SARIF             SARIF output file (default edge-origin.sarif); the report goes beside it (.md);
#                        a missing folder is created; one that cannot be: one line, exit 2, no sarif-file
#   EO_CLI               the command to run (default: edge-origin)
#   EO_DEFER_EXIT        1: always exit 0 and leave the exit code in $GITHUB_OUTPUT (the action fails later,
#                        after the SARIF upload); otherwise exit with edge-origin's code
# Writes the Markdown review report to $GITHUB_STEP_SUMMARY and exit-code / sarif-file / report-file to
# $GITHUB_OUTPUT when those are set (as on GitHub Actions).
set -uo pipefail

split() { local IFS=$' \t\n'; read -r -d '' -a "$1" <<< "$2" || true; }

EO_HEAD="${EO_HEAD:-}"
if [[ -z "${EO_HEAD//[[:space:]]/}" ]]; then
    echo "edge-origin action: EO_HEAD (input 'head') is empty: give the templates or cdk.out of the change" >&2
    exit 2
fi
split cli "${EO_CLI:-edge-origin}"
split head "$EO_HEAD"
fail_on="${EO_FAIL_ON:-error}"
sarif="${EO_SARIF:-edge-origin.sarif}"
report="${sarif%.sarif}.md"
[[ "$report" == "$sarif" ]] && report="$sarif.md"
errors="$(mktemp)"
trap 'rm -f "$errors"' EXIT

# The output files' folder: made here, or refused now with one line (before a run whose results
# could not be written, and before the upload step is told of a SARIF file that does not exist).
refuse_output() {
    echo "edge-origin action: $1" >&2
    if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
        { echo "## edge-origin: bad input"; echo; echo "$1"; } >> "$GITHUB_STEP_SUMMARY"
    fi
    if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
        { echo "exit-code=2"; echo "sarif-file="; echo "report-file="; } >> "$GITHUB_OUTPUT"
    fi
    [[ "${EO_DEFER_EXIT:-}" == "1" ]] && exit 0
    exit 2
}
sarif_dir="$(dirname -- "$sarif")"
if [[ -d "$sarif" ]]; then
    refuse_output "sarif-file $sarif is a directory: give a file path (e.g. $sarif/edge-origin.sarif)"
fi
if ! mkdir -p -- "$sarif_dir" 2> /dev/null; then
    refuse_output "sarif-file $sarif: cannot create its folder $sarif_dir (a file is in the way, or no permission)"
fi
if ! { : > "$sarif"; } 2> /dev/null || ! { : > "$report"; } 2> /dev/null; then
    refuse_output "sarif-file $sarif: cannot write it or the report $report in $sarif_dir"
fi

eo_base="${EO_BASE:-}"
if [[ -n "${eo_base//[[:space:]]/}" ]]; then
    split base "$eo_base"
    extra=()
    [[ "${EO_FAIL_ON_NEW_ONLY:-true}" == "true" ]] && extra+=(--fail-on-new-only)
    "${cli[@]}" diff --base "${base[@]}" --head "${head[@]}" --format sarif --fail-on "$fail_on" "${extra[@]}" > "$sarif" 2> "$errors"
    code=$?
    [[ $code -ne 2 ]] && "${cli[@]}" report --base "${base[@]}" --head "${head[@]}" --format markdown > "$report" 2>> "$errors"
else
    "${cli[@]}" check "${head[@]}" --format sarif --fail-on "$fail_on" > "$sarif" 2> "$errors"
    code=$?
    [[ $code -ne 2 ]] && "${cli[@]}" report "${head[@]}" --format markdown > "$report" 2>> "$errors"
fi

if [[ $code -eq 2 ]]; then
    rm -f "$sarif"
    sarif=""
    { echo "## edge-origin: bad input"; echo; echo '```'; cat "$errors"; echo '```'; } > "$report"
fi
# The messages quote template-controlled names (made one line, controls visible, by edge-origin);
# on GitHub, also stop workflow commands while they are printed, with a token nobody can guess.
if [[ -s "$errors" ]]; then
    if [[ -n "${GITHUB_ACTIONS:-}" ]]; then
        token="eo-$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
        { echo "::stop-commands::$token"; cat "$errors"; echo "::$token::"; } >&2  # one stream: no reordering
    else
        cat "$errors" >&2
    fi
fi
if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
    cat "$report" >> "$GITHUB_STEP_SUMMARY"
fi
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    { echo "exit-code=$code"; echo "sarif-file=$sarif"; echo "report-file=$report"; } >> "$GITHUB_OUTPUT"
fi
echo "edge-origin: exit $code (0 clean, 1 findings at or above $fail_on, 2 bad input); report $report${sarif:+, SARIF $sarif}"
if [[ "${EO_DEFER_EXIT:-}" == "1" ]]; then
    exit 0
fi
exit "$code"
