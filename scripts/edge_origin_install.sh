#!/usr/bin/env bash
# The edge-origin GitHub Action's install step (action.yml runs it; it also runs locally):
#   EO_INSTALL  what to pip install: one or more requirements, separated by spaces or new lines
#               (`edge-origin==0.2.0`, `./path`, `-r requirements-ci.txt`, `--index-url URL pkg`...);
#               write `name @ url` requirements without spaces (`name@url`). Empty: EO_DEFAULT.
#   EO_DEFAULT  what to install when EO_INSTALL is empty (the action passes its own checkout)
#   EO_PIP      the pip command (default: python -m pip)
set -uo pipefail

split() { local IFS=$' \t\n'; read -r -d '' -a "$1" <<< "$2" || true; }

split requirements "${EO_INSTALL:-}"
if [[ ${#requirements[@]} -eq 0 ]]; then
    split requirements "${EO_DEFAULT:-}"
fi
if [[ ${#requirements[@]} -eq 0 ]]; then
    echo "edge-origin action: nothing to install (input 'install' is empty and no default)" >&2
    exit 2
fi
split pip "${EO_PIP:-python -m pip}"
"${pip[@]}" install --quiet "${requirements[@]}"
