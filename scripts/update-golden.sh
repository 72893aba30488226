#!/usr/bin/env bash
# Re-renders golden images (tests/golden/NAME.png) and records why.
# Usage: scripts/update-golden.sh NAME|--all --reason "why the picture changed" [--voxen build/voxen]
# Each scene is rendered twice and must match itself byte for byte (a golden must be deterministic). The PNG, the
# GL_RENDERER that drew it (NAME.renderer: the golden test compares strictly on that renderer and in look mode on
# any other) and a dated line with the reason in tests/golden/CHANGELOG.md are written.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=tests/golden
voxen=${VOXEN:-build/voxen}
name="" reason=""
while [ $# -gt 0 ]; do
  case "$1" in
    --reason) reason=${2:-}; shift 2 ;;
    --voxen) voxen=${2:-}; shift 2 ;;
    --all) name="--all"; shift ;;
    -*) echo "update-golden: unknown option $1" >&2; exit 2 ;;
    *) name=$1; shift ;;
  esac
done
if [ -z "$name" ]; then echo "update-golden: which golden? NAME or --all (see $dir/scenes.txt)" >&2; exit 2; fi
if [ -z "$reason" ]; then echo "update-golden: --reason \"...\" is required: say why the picture changes" >&2; exit 2; fi
if [ ! -x "$voxen" ]; then echo "update-golden: $voxen not found: build first (make build) or pass --voxen" >&2; exit 2; fi

names=()
while IFS=$'\t' read -r n args; do
  [[ -z "$n" || "$n" == \#* ]] && continue
  if [ "$name" = "--all" ] || [ "$name" = "$n" ]; then names+=("$n"); fi
done < "$dir/scenes.txt"
if [ ${#names[@]} -eq 0 ]; then echo "update-golden: no scene named '$name' in $dir/scenes.txt" >&2; exit 2; fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in "${names[@]}"; do
  args=$(awk -F'\t' -v n="$n" '$1 == n { print $2 }' "$dir/scenes.txt")
  # shellcheck disable=SC2086
  "$voxen" shot $args --out "$tmp/a.png" --json > "$tmp/a.json"
  # shellcheck disable=SC2086
  "$voxen" shot $args --out "$tmp/b.png" > /dev/null
  if ! cmp -s "$tmp/a.png" "$tmp/b.png"; then
    echo "update-golden: $n: two renders differ; a golden must be deterministic" >&2
    exit 1
  fi
  renderer=$(sed -n 's/.*"gl_renderer":"\([^"]*\)".*/\1/p' "$tmp/a.json")
  cp "$tmp/a.png" "$dir/$n.png"
  printf '%s\n' "$renderer" > "$dir/$n.renderer"
  printf -- '- %s `%s`: %s (%s)\n' "$(date -u +%Y-%m-%d)" "$n" "$reason" "$renderer" >> "$dir/CHANGELOG.md"
  echo "update-golden: wrote $dir/$n.png ($renderer)"
done
