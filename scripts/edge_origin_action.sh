#!/usr/bin/env bash
# The edge-origin GitHub Action's work (action.yml runs it; it also runs locally):
#   EO_HEAD              paths of the change (spaces or new lines between them), required
#   EO_BASE              paths of the deployed side; set: `edge-origin diff`, unset: `edge-origin check`
#   EO_FAIL_ON           error | warning | info (default error)
#   EO_FAIL_ON_NEW_ONLY  true: with a base, fail only on what the change introduces (default true)
#   EO_SARIF             SARIF output file (default edge-origin.sarif); the report goes beside it (.md);
#                        a missing folder is created; one that cannot be: one line, exit 2, no sarif-file
#   EO_CONFIG_FROM       base (default): on a pull request, read edge-origin's settings file (.edge-origin.yaml,
#                        .edge-origin.yml or pyproject.toml at the repository root) from EO_BASE_REF, not from the
#                        change: a PR cannot silence its own review; the head's file is passed as --head-config, so
#                        what it would set aside is said at the top. head: read the checked-out file (the workflow
#                        author's choice, e.g. for trusted branches). A missing base file: --config none.
#   EO_BASE_REF          the commit of the pull request's base (action.yml: github.event.pull_request.base.sha);
#                        empty (not a pull request): the checked-out file is read
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

# The settings file: from the pull request's base unless the workflow says otherwise.
# A pyproject.toml holds them when it has the [tool.edge-origin] table, in any spelling TOML allows for
# that header ([tool."edge-origin"], [ tool.edge-origin ]): the CLI reads them all (tomllib), so the
# head's settings must be found to be shown (and the base's to be applied) in each.
has_table() {
    grep -Eq "^[[:space:]]*\\[[[:space:]]*tool[[:space:]]*\\.[[:space:]]*(edge-origin|\"edge-origin\"|'edge-origin')[[:space:]]*\\]" "$1"
}
config_args=()
config_dir="$(mktemp -d)"
trap 'rm -f "$errors"; rm -rf "$config_dir"' EXIT
head_config=""
for name in .edge-origin.yaml .edge-origin.yml pyproject.toml; do
    if [[ -f "$name" ]] && { [[ "$name" != pyproject.toml ]] || has_table "$name"; }; then
        head_config="$name"
        break
    fi
done
base_ref="${EO_BASE_REF:-}"
if [[ "${EO_CONFIG_FROM:-base}" == "base" && -n "$base_ref" ]]; then
    if ! git cat-file -e "$base_ref^{commit}" 2> /dev/null; then
        git fetch --quiet --depth=1 origin "$base_ref" 2> /dev/null || true
    fi
    if ! git cat-file -e "$base_ref^{commit}" 2> /dev/null; then
        # fail closed: no settings at all (nothing set aside), the head's file shown, not applied
        echo "edge-origin action: config-from base: cannot read the base commit $base_ref (not fetched, or no git checkout): no settings file applied; set config-from: head to read the checked-out one" >&2
    fi
    base_config=""
    for name in .edge-origin.yaml .edge-origin.yml pyproject.toml; do
        if git show "$base_ref:$name" > "$config_dir/$name" 2> /dev/null; then
            if [[ "$name" != pyproject.toml ]] || has_table "$config_dir/$name"; then
                base_config="$config_dir/$name"
                break
            fi
        fi
        rm -f "$config_dir/$name"
    done
    config_args=(--config "${base_config:-none}")
    [[ -n "$head_config" ]] && config_args+=(--head-config "$head_config")
elif [[ "${EO_CONFIG_FROM:-base}" != "base" && "${EO_CONFIG_FROM:-base}" != "head" ]]; then
    refuse_output "config-from '${EO_CONFIG_FROM}': allowed base, head"
fi

eo_base="${EO_BASE:-}"
if [[ -n "${eo_base//[[:space:]]/}" ]]; then
    split base "$eo_base"
    extra=()
    [[ "${EO_FAIL_ON_NEW_ONLY:-true}" == "true" ]] && extra+=(--fail-on-new-only)
    "${cli[@]}" diff --base "${base[@]}" --head "${head[@]}" --format sarif --fail-on "$fail_on" "${extra[@]}" "${config_args[@]}" > "$sarif" 2> "$errors"
    code=$?
    [[ $code -ne 2 ]] && "${cli[@]}" report --base "${base[@]}" --head "${head[@]}" --format markdown "${config_args[@]}" > "$report" 2>> "$errors"
else
    "${cli[@]}" check "${head[@]}" --format sarif --fail-on "$fail_on" "${config_args[@]}" > "$sarif" 2> "$errors"
    code=$?
    [[ $code -ne 2 ]] && "${cli[@]}" report "${head[@]}" --format markdown "${config_args[@]}" > "$report" 2>> "$errors"
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
