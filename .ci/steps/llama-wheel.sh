#!/usr/bin/env bash
# Compiles llama-cpp-python (llama.cpp inside) into a wheel for the Ollama stand-in, with the base
# interpreter, so that it can run while the virtualenv installs (.ci/setup starts it first).
# Skips the build when the wheel of this version and these flags is there. About 5 minutes on 2
# cores; needs g++ (installed from Debian when missing) and cmake (from PyPI, as a build requirement).
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
rm -rf "$LLAMA_WHEEL_DIR.partial"
# --no-cache-dir: a wheel built elsewhere with other flags must never be reused.
CMAKE_ARGS="$LLAMA_CMAKE_ARGS" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    python3 -m pip wheel --quiet --no-deps --no-cache-dir --wheel-dir "$LLAMA_WHEEL_DIR.partial" \
    "llama-cpp-python==${LLAMA_CPP_VERSION}"
mv "$LLAMA_WHEEL_DIR.partial" "$LLAMA_WHEEL_DIR"
echo "built $(ls "$LLAMA_WHEEL_DIR")"
