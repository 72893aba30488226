#!/usr/bin/env bash
# Installs the Debian 12 packages voxen needs to build, test and run.
# Idempotent: installs only what is missing; runs `apt-get update` first only then.
# Usage: scripts/install-deps.sh            (build + test + headless render)
set -euo pipefail

pkgs=(
  build-essential cmake pkg-config git
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev libtomlplusplus-dev nlohmann-json3-dev
  libspdlog-dev libfmt-dev
  libzstd-dev librocksdb-dev zlib1g-dev liblz4-dev libxxhash-dev
  libpq-dev postgresql-15
  libasio-dev
  libepoxy-dev libglfw3-dev libglm-dev libstb-dev
  libopenal-dev
  libegl-dev libegl-mesa0 libgl1-mesa-dri libgles-dev libopengl-dev
  xvfb xauth
)

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "voxen: installing missing Debian packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
