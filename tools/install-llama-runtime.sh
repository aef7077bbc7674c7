#!/usr/bin/env bash
# Install llama-cpp-python (the embedded model's runtime) into the Python given as $1, compiled
# for any x86-64 CPU with AVX2 (x86-64-v3) or any arm64, never with -march=native, and with
# ggml's own thread pool instead of OpenMP (as fast when idle, and no OMP_WAIT_POLICY trap).
#
# Why: pip compiles llama-cpp-python from source with GGML_NATIVE, i.e. for the CPU it happens
# to build on; that binary segfaulted in llama_decode on an AVX-512/AMX Xeon of our pool and can
# raise SIGILL on any CPU older than the build machine. benchmarks/README.md "Runtime build" has
# the measurement behind the flags below.
#
# pip's wheel cache is keyed by the sdist, not by CMAKE_ARGS: a machine that once built a native
# wheel would silently get it back. So the wheel is built here with --no-cache-dir into a
# wheelhouse whose folder name is a hash of (version, flags), and installed from that file with
# --no-index. The folder keeps build-flags.txt, which `interviewsim doctor` reports.
#
# Usage: tools/install-llama-runtime.sh PYTHON
# Environment: LLAMA_CPP_VERSION, LLAMA_CMAKE_ARGS (override the build), INTERVIEWSIM_WHEELHOUSE
# (default ~/.cache/interviewsim/wheels; any machine with the same flags may share it).
set -euo pipefail

python="${1:?usage: $0 PYTHON}"
version="${LLAMA_CPP_VERSION:-0.3.36}"
flags="${LLAMA_CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX=ON -DGGML_OPENMP=OFF}"
root="${INTERVIEWSIM_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/interviewsim/wheels}"
key="$(printf '%s\n%s\n%s\n' "$version" "$flags" "$(uname -sm)" | sha256sum | cut -c1-16)"
house="$root/llama-cpp-python-$version-$key"

# By file path, so pip records it in the distribution's direct_url.json (doctor reads it).
install_from_house() {
  local wheel
  wheel="$(ls "$house"/llama_cpp_python-"$version"-*.whl 2>/dev/null | head -1)"
  [ -n "$wheel" ] && "$python" -m pip install -q --no-index --no-deps --force-reinstall "$wheel"
}

if ! install_from_house; then
  echo "Building llama-cpp-python $version with: $flags (about 5 minutes on 2 cores)" >&2
  mkdir -p "$house"
  build="$(mktemp -d)"
  trap 'rm -rf "$build"' EXIT
  CMAKE_ARGS="$flags" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
    "$python" -m pip wheel -q --no-deps --no-cache-dir --no-binary llama-cpp-python \
    -w "$build" "llama-cpp-python==$version"
  printf 'llama-cpp-python %s\nCMAKE_ARGS=%s\n' "$version" "$flags" > "$house/build-flags.txt"
  mv "$build"/llama_cpp_python-*.whl "$house/"
  install_from_house
fi
echo "llama-cpp-python $version installed from $house" >&2
