#!/usr/bin/env bash
# Checks the library's layering (docs/architecture.md, "Layers"): each module folder includes only
# the folders listed for it — its own and those below it. Run from anywhere; exit 1 names every
# include that breaks the rule. `gmbd/` is the generated version header (allowed everywhere).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
declare -A allowed=(
  [core]="core"
  [elements]="core elements"
  [constraints]="core constraints"
  [integrators]="core integrators"
  [models]="core models"
  [analysis]="core elements analysis"
  [io]="core io"
  [builder]="core elements analysis models io builder"
  [simulation]="core elements constraints integrators models analysis io builder simulation"
  [study]="core elements constraints integrators models analysis io builder simulation study"
)
# io/ sees only core's vocabulary, not the engine: types, errors, signals, names, the clock.
io_core="types errors signal name_text coarse_clock"
status=0
for module in "${!allowed[@]}"; do
  for file in "$root/$module"/*.hpp "$root/$module"/*.cpp; do
    [[ -e "$file" ]] || continue
    while IFS= read -r line; do
      target="${line#*\"}"
      target="${target%%\"*}"
      folder="${target%%/*}"
      [[ "$folder" == "gmbd" ]] && continue
      if [[ " ${allowed[$module]} " != *" $folder "* ]]; then
        echo "layering: ${file#"$root"/} includes $target ($module/ may include: ${allowed[$module]})"
        status=1
      elif [[ "$module" == io && "$folder" == core ]]; then
        stem="${target#core/}"
        stem="${stem%.hpp}"
        if [[ " $io_core " != *" $stem "* ]]; then
          echo "layering: ${file#"$root"/} includes $target (io/ may include from core/ only: $io_core)"
          status=1
        fi
      fi
    done < <(grep -E '^#include "[a-z_]+/' "$file" || true)
  done
done
[[ $status -eq 0 ]] && echo "layering: every include goes to the module itself or a module below it"
exit $status
