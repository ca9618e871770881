#!/usr/bin/env bash
# Installs what building and testing libdag needs on Debian 12, as root.
# Packages already present are left alone, so a second run is quick.
set -euo pipefail
# libclang-rt-14-dev holds clang's sanitizer and libFuzzer runtimes, which
# clang only recommends (and recommends are not installed here).
packages=(
  build-essential clang libclang-rt-14-dev cmake ninja-build meson pkg-config
  libboost-dev libboost-graph-dev
  libgtest-dev libgmock-dev libbenchmark-dev libtbb-dev
  libgraphviz-dev nlohmann-json3-dev libsimdjson-dev libcli11-dev libfmt-dev
  python3 python3-venv python3-distributed golang-go doxygen
  abigail-tools
  # the CLI tests check the man page with groff and the completion scripts with zsh and fish
  groff-base zsh fish
)
# A Rust toolchain from rustup (on PATH already) is used as it is; Debian's
# cargo only where there is none.
command -v cargo >/dev/null 2>&1 || packages+=(cargo)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
