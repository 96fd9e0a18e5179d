#!/usr/bin/env bash
# Regenerates testbenches/apps/*/NAME.ptx with the flags and ptxas check of scripts/gen-ptx.
set -euo pipefail
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
ptxas=${PTXAS:-$(dirname "$nvcc")/ptxas}
root=$(cd "$(dirname "$0")" && pwd)
for source in "$root"/*/*.cu; do
  dir=$(dirname "$source")
  name=$(basename "$source" .cu)
  (cd "$dir" && "$nvcc" -ptx -arch=sm_75 -O3 -lineinfo -fmad=false -o "$name.ptx" "$name.cu")
  sed -i "s|\"$dir/|\"|" "$dir/$name.ptx"
  "$ptxas" -arch=sm_75 -o /dev/null "$dir/$name.ptx"
  echo "gen-ptx: $dir/$name.ptx"
done
