#!/usr/bin/env bash
# The main job (called by `make run`): generate a default world around the origin and report speed, hash and
# the block histogram. Usage: scripts/run-main.sh build/voxen
set -euo pipefail
voxen=${1:-build/voxen}
"$voxen" gen --seed 1 --center 0,0 --radius 8
