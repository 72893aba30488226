#!/usr/bin/env bash
# The ray-march figures of docs/PERFORMANCE.md ("Ray marching and traced shadows"), in one run so the ratios compare
# like with like: the tour's views (voxen tour --headless) drawn by the raster path and by the ray march, each with
# and without traced shadows, the march with and without its beam pre-pass: p50 and p95 frame ms per segment and the
# ratio to the raster path without shadows; then the march's steps per primary ray (mean, p99) with and without the
# beam on the golden scenes (voxen shot --json).
# Usage: scripts/raymarch-figures.sh [VOXEN] (default build/voxen). Environment: FRAMES (measured frames per
# segment, default 30), SEGMENTS (default spawn,walk,fly_low,cave), SIZE (default 320x180).
set -euo pipefail
VOXEN=${1:-build/voxen}
FRAMES=${FRAMES:-30}
SEGMENTS=${SEGMENTS:-spawn,walk,fly_low,cave}
SIZE=${SIZE:-320x180}
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
names=(raster raster+shadows march march-nobeam march+shadows march+shadows-nobeam)
flags=("--render-path mdi" "--render-path mdi --shadows traced" "--render-path raymarch" "--render-path raymarch --no-beam"
       "--render-path raymarch --shadows traced" "--render-path raymarch --shadows traced --no-beam")
for i in "${!names[@]}"; do
  # shellcheck disable=SC2086
  "$VOXEN" tour --headless --size "$SIZE" --frames "$FRAMES" --segments "$SEGMENTS" ${flags[$i]} \
    --json "$out/${names[$i]}.json" > "$out/${names[$i]}.log" 2>&1
done
python3 - "$out" "${names[@]}" <<'PY'
import json, sys
out, names = sys.argv[1], sys.argv[2:]
runs = {n: json.load(open(f"{out}/{n}.json")) for n in names}
first = runs[names[0]]
print(f"GL: {first['gl_renderer']}, {first['size']}, render distance {first['render_distance']}")
print("| segment | " + " | ".join(f"{n} p50 ms (x raster)" for n in names) + " |")
print("|---|" + "---|" * len(names))
for k, seg in enumerate(first["segments"]):
    base = seg["frame_ms"]["p50"]
    cells = []
    for n in names:
        s = runs[n]["segments"][k]
        cells.append(f"{s['frame_ms']['p50']:.1f} ({s['frame_ms']['p50'] / base:.2f}x)")
    print(f"| {seg['name']} | " + " | ".join(cells) + " |")
PY
echo
echo "| scene | steps a ray, mean (p99), beam | without the beam |"
echo "|---|---|---|"
grep -v '^#' "$here/tests/golden/scenes.txt" | while IFS=$'\t' read -r name args; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  with=$("$VOXEN" shot $args --render-path raymarch --json --out "$out/$name.png")
  # shellcheck disable=SC2086
  without=$("$VOXEN" shot $args --render-path raymarch --no-beam --json --out "$out/$name.png")
  python3 - "$name" "$with" "$without" <<'PY'
import json, sys
name, a, b = sys.argv[1], json.loads(sys.argv[2])["march"], json.loads(sys.argv[3])["march"]
print(f"| {name} | {a['steps_mean']:.1f} ({a['steps_p99']}) | {b['steps_mean']:.1f} ({b['steps_p99']}) |")
PY
done
