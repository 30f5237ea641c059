#!/usr/bin/env bash
# Compiles llama-cpp-python (llama.cpp inside) into a wheel for the Ollama stand-in, with the base
# interpreter. .ci/setup starts it once the virtualenv is installed (beside the install it took three
# times as long as alone).
# Skips the build when the wheel of this version and these flags is there. About 4 minutes on 2
# idle cores; needs g++ (installed from Debian when missing) and cmake (from PyPI, as a build requirement).
set -euo pipefail
cd "$(dirname "$0")/../.."
. .ci/steps/llama-cpp.env
if compgen -G "$LLAMA_WHEEL_DIR/*.whl" >/dev/null; then
    echo "llama-cpp-python wheel already built: $(ls "$LLAMA_WHEEL_DIR")"
    exit 0
fi
if ! command -v g++ >/dev/null; then  # llama.cpp is C++: a machine with gcc alone lacks g++
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends g++ >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# --no-binary for this one package only: `:all:` also made pip build the sdist's build requirements
# (scikit-build-core and what it needs) from source to read its metadata, which took 6 minutes and
# more of the set-up; with their wheels the download takes 19 s (measured with an empty HOME).
python3 -m pip download --quiet --no-deps --no-binary llama-cpp-python --no-cache-dir -d "$work" \
    "llama-cpp-python==${LLAMA_CPP_VERSION}"
tar -xzf "$work"/llama_cpp_python-*.tar.gz -C "$work"
source_dir=$(echo "$work"/llama_cpp_python-*/)
# llama-cpp-python forces llama.cpp's `common` library on (chat templates, argument parsing, JSON
# schemas for its command-line tools): a fifth of the build that the Python package never loads
# (it binds libllama and libggml). Its FORCE is dropped so that -DLLAMA_BUILD_COMMON=OFF holds;
# the check stops the step if a new version words the line otherwise.
forced='set(LLAMA_BUILD_COMMON ON CACHE BOOL "Build llama.cpp common library" FORCE)'
grep -qF "$forced" "$source_dir/CMakeLists.txt" || { echo "llama-wheel: the LLAMA_BUILD_COMMON line changed upstream" >&2; exit 1; }
sed -i "s|$forced|set(LLAMA_BUILD_COMMON OFF CACHE BOOL \"Build llama.cpp common library\")|" "$source_dir/CMakeLists.txt"
rm -rf "$LLAMA_WHEEL_DIR.partial"
CMAKE_ARGS="$LLAMA_CMAKE_ARGS" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    python3 -m pip wheel --quiet --no-deps --no-cache-dir --wheel-dir "$LLAMA_WHEEL_DIR.partial" "$source_dir"
mv "$LLAMA_WHEEL_DIR.partial" "$LLAMA_WHEEL_DIR"
echo "built $(ls "$LLAMA_WHEEL_DIR")"
