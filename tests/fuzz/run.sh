#!/usr/bin/env bash
# Runs one libFuzzer target (tests/fuzz/README.md):
#   tests/fuzz/run.sh BUILD_DIR TARGET SECONDS [extra libFuzzer options…]
# e.g. tests/fuzz/run.sh _build-fuzz fuzz-urdf 600
# The corpus lives in BUILD_DIR/fuzz-corpus/TARGET, seeded from tests/data; crashes, leaks,
# timeouts and out-of-memory inputs go to BUILD_DIR/fuzz-artifacts/TARGET/. One job,
# niced: the machine is shared.
set -euo pipefail
cd "$(dirname "$0")/../.."

build=$1 target=$2 seconds=$3
shift 3
data=tests/data
corpus=$build/fuzz-corpus/$target
artifacts=$build/fuzz-artifacts/$target
mkdir -p "$corpus" "$artifacts"

seed () { for f in "$@"; do [ -f "$f" ] && cp -n "$f" "$corpus/" || true; done; }
case $target in
  fuzz-skeleton-json|fuzz-json)
    seed $data/*.json $data/cnoid/kinema/*.json ;;
  fuzz-targets-json)
    seed $data/cnoid/kinema/targets.json $data/bench-*.json
    # A tool point on the effector (effector_offset, position_only), repeated as it must be.
    printf '%s\n' '[' \
      '  { "frame": 0, "pos": [0, 1.5, 3], "euler": [0, 0, 0], "effector": "wrist",' \
      '    "effector_offset": [0, 0, 0.1], "position_only": true },' \
      '  { "frame": 10, "pos": [0.5, 1.5, 2.5], "effector_offset": [0, 0, 0.1] }' \
      ']' > "$corpus/seed-tool-point.json" ;;
  fuzz-animation-json)
    seed animation.json $data/*.json ;;
  fuzz-cnoid|fuzz-yaml)
    seed $data/cnoid/kinema/*.cnoid $data/cnoid/sub/*.cnoid $data/cnoid/share/project/*.cnoid
    [ "$target" = fuzz-yaml ] && seed $data/choreonoid/*.body ;;
  fuzz-body)
    seed $data/choreonoid/*.body $data/body-styles/*.body $data/include-chain/*.body ;;
  fuzz-body-motion)
    seed $data/body-motion/*.seq ;;
  fuzz-scenebuilder)
    seed $data/scenebuilder/*.xml ;;
  fuzz-pose-seq)
    seed $data/cnoid/share/project/motion/SR1/*.pseq ;;
  fuzz-sb-expr)
    # First byte: entry point (0 real, 1 bool, 2 vector, 3 rotation), the rest the text.
    printf '\000sqrt2*sin(30deg)+(10mm)^2/-3' > "$corpus/seed-real"
    printf '\040250g' > "$corpus/seed-mass"
    printf '\001true' > "$corpus/seed-bool"
    printf '\042-2.5rad 2.5rad' > "$corpus/seed-vec"
    printf '\0031 2 3' > "$corpus/seed-vec3"
    printf '\003-90@x' > "$corpus/seed-rot"
    printf '\0231 0 0 0 1 0 0 0 1' > "$corpus/seed-mat" ;;
  fuzz-urdf)
    seed $data/kinema_arm/urdf/*.urdf $data/*.urdf $data/urdf-conformance/*.urdf \
      $data/review/*.urdf ;;
  fuzz-mesh)
    seed $data/meshes/* $data/kinema_arm/meshes/* ;;
  *) echo "unknown target $target" >&2; exit 2 ;;
esac

# -jobs=1 runs the fuzzer in a child whose log (fuzz-0.log) goes to the current folder:
# run from the artifacts folder, with absolute paths.
binary=$(realpath "$build/tests/fuzz/$target")
corpus=$(realpath "$corpus")
artifacts=$(realpath "$artifacts")
cd "$artifacts"
exec nice -n 10 "$binary" "$corpus" \
  -max_total_time="$seconds" -jobs=1 -workers=1 \
  -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=65536 \
  -artifact_prefix="$artifacts/" -print_final_stats=1 "$@"
