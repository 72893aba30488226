#!/usr/bin/env bash
# The main job (called by `make run`): renders a short tour of a default world (seed 1) with the real
# `voxen shot` into out/: a plain, a mountain range, a cave lit by lava, a coast with water, a view 30 million
# blocks out, and the horizon from a peak: the far view (LOD) to 8,192 blocks, mountains 4,000 blocks away. Every
# shot draws the far view beyond its render distance (4,096 blocks unless the entry says otherwise). Headless (EGL surfaceless): no display or GPU needed; Mesa's llvmpipe draws on the CPU.
# Usage: scripts/run-main.sh build/voxen [OUT_DIR]
set -euo pipefail
voxen=${1:-build/voxen}
out=${2:-out}
mkdir -p "$out"

# name | --pos | --look | render distance | time of day | far distance (blocks). Positions are world blocks (Y `surface` = 2 blocks above
# the ground); yaw 0 looks north (-Z), 90 east; pitch + looks up.
tour=(
  "1_plain|-520,surface,-768|90,-5|12|10|4096"
  "2_mountains|440,150,120|60,-12|12|9|4096"
  "3_lava_cave|-138,-111,-214|100,-25|6|12|4096"
  "4_coast|-1735,72,-1920|15,-14|12|15|4096"
  "5_thirty_million_out|30000060,surface,30000780|250,5|12|11|4096"
  "6_horizon|440,230,120|200,-4|12|10|8192"
)

echo "voxen: rendering ${#tour[@]} shots (1280x720) into $out/"
start=$(date +%s%N)
for entry in "${tour[@]}"; do
  IFS='|' read -r name pos look rd tod far <<<"$entry"
  "$voxen" shot --seed 1 --pos "$pos" --look "$look" --size 1280x720 --render-distance "$rd" --time-of-day "$tod" \
    --far-distance "$far" --out "$out/$name.png" | sed "s/^/  [$name] /"
done
end=$(date +%s%N)
echo "voxen: tour done in $(awk -v ns="$((end - start))" 'BEGIN { printf "%.1f", ns / 1e9 }') s"
cat <<EOT

Look at the pictures in $out/. To walk around the same world on a machine with a display:
  build/voxen play --seed 1                      (WASD + mouse; see README.md, \`voxen play --help\`)
and to take your own pictures:
  build/voxen shot --seed 1 --pos X,surface,Z --look YAW,PITCH --out my.png   (\`voxen shot --help\`)
and to bring in a Minecraft Java world (1.13 or later) and walk in it:
  build/voxen import-anvil PATH/TO/MINECRAFT/WORLD --world mcworld   (it prints a \`voxen play --world mcworld --spawn X,Z\`)
EOT
