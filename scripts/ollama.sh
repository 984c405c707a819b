#!/usr/bin/env bash
# A real Ollama, built from the Go module proxy, serving the two tiny models
# that scripts/llama-server.sh caches: for running dev against the server
# most local users run, and for the real-server tests (e2e/realserver).
# The build is cached outside the checkout and reused when present.
#
#   scripts/ollama.sh deps             install what the build needs (apt-get, as root)
#   scripts/ollama.sh install          build ollama (cached)
#   scripts/ollama.sh start [options]  start ollama serve, wait for it, create the models
#   scripts/ollama.sh stop [--port N]  stop the server that start started
#   scripts/ollama.sh env              print the paths as shell assignments
#
# start options: --port N (default 11434, Ollama's own), --ctx N (the
# context of each model, OLLAMA_CONTEXT_LENGTH; default 8192), --models LIST
# (comma-separated, of smollm2 and gemma3; default both), --threads N (the
# models' num_thread; default 1), --wait S (default 120). It prints the
# apiUrl, http://127.0.0.1:PORT/v1; the models are named as llama-server.sh
# names them (Ollama lists them as smollm2:latest, ...).
#
# Sources, all pinned: Ollama v0.17.4 from the Go module proxy (`go install
# github.com/ollama/ollama@v0.17.4`; its go.sum pins the rest), CPU only;
# the models are llama-server.sh's GGUFs (run `scripts/llama-server.sh
# install` first), and Gemma's chat template is the one Ollama's own table
# (template/index.json) gives the Gemma 3 Jinja template that llama-server.sh
# serves it with.
set -euo pipefail

OLLAMA_VERSION=v0.17.4
OLLAMA_MODULE=github.com/ollama/ollama

CACHE="${DEV_OLLAMA_CACHE:-${HOME}/.cache/dev-ollama}"
BIN="${CACHE}/bin/ollama"
GEMMA3_TEMPLATE="${CACHE}/templates/gemma3-instruct.gotmpl"
HERE="$(cd "$(dirname "$0")" && pwd)"

say() { echo "ollama.sh: $*" >&2; }
die() { say "$*"; exit 1; }

# The C and C++ headers the module's cgo code includes from the system:
# Go module zips leave out vendor/ directories, so llama.cpp's vendored
# nlohmann/json and stb_image are not in it (Debian packages them).
NLOHMANN=/usr/include/nlohmann/json.hpp
STB=/usr/include/stb/stb_image.h

# deps installs what the build needs when it is missing and we may (CI runs
# as root on a fresh machine); otherwise it says what to install.
cmd_deps() {
  local missing=()
  command -v gcc >/dev/null 2>&1 || missing+=(gcc)
  command -v g++ >/dev/null 2>&1 || missing+=(g++)
  [ -f "$NLOHMANN" ] || missing+=(nlohmann-json3-dev)
  [ -f "$STB" ] || missing+=(libstb-dev)
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing ${missing[*]} (apt-get)"
    apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    die "missing: ${missing[*]}; install them (Debian: apt-get install ${missing[*]})"
  fi
}

stamp() { echo "ollama ${OLLAMA_VERSION} $(uname -m) native"; }

built() { [ -x "$BIN" ] && [ -s "$GEMMA3_TEMPLATE" ] && [ "$(cat "${CACHE}/bin/ollama.version" 2>/dev/null)" = "$(stamp)" ]; }

# miniaudio_stub writes a stand-in for miniaudio.h, the one vendored header
# that no Debian package has. llama.cpp's multimodal helper decodes audio
# input with it; here every decoder call fails, so an audio input is refused
# ("Unable to read WAV audio file") and text and images are unaffected.
miniaudio_stub() {
  mkdir -p "$1/miniaudio"
  cat >"$1/miniaudio/miniaudio.h" <<'EOF'
/* Written by dev's scripts/ollama.sh: miniaudio's decoder API as
   llama.cpp's tools/mtmd/mtmd-helper.cpp uses it, every call failing. */
#ifndef DEV_MINIAUDIO_STUB_H
#define DEV_MINIAUDIO_STUB_H
#include <stddef.h>
typedef int ma_result;
typedef unsigned int ma_uint32;
typedef unsigned long long ma_uint64;
typedef enum { ma_format_unknown = 0, ma_format_f32 = 5 } ma_format;
#define MA_SUCCESS 0
#define MA_ERROR (-1)
typedef struct { ma_format format; ma_uint32 channels; ma_uint32 sampleRate; } ma_decoder_config;
typedef struct { int unused; } ma_decoder;
static inline ma_decoder_config ma_decoder_config_init(ma_format format, ma_uint32 channels, ma_uint32 rate) {
  ma_decoder_config c = { format, channels, rate };
  return c;
}
static inline ma_result ma_decoder_init_memory(const void *data, size_t size, const ma_decoder_config *config, ma_decoder *decoder) {
  (void)data; (void)size; (void)config; (void)decoder;
  return MA_ERROR;
}
static inline ma_result ma_decoder_get_length_in_pcm_frames(ma_decoder *decoder, ma_uint64 *frames) {
  (void)decoder; *frames = 0;
  return MA_ERROR;
}
static inline ma_result ma_decoder_read_pcm_frames(ma_decoder *decoder, void *out, ma_uint64 count, ma_uint64 *read) {
  (void)decoder; (void)out; (void)count; *read = 0;
  return MA_ERROR;
}
static inline ma_result ma_decoder_uninit(ma_decoder *decoder) { (void)decoder; return MA_SUCCESS; }
#endif
EOF
}

cmd_install() {
  if built; then
    say "ollama is built: $BIN ($(stamp))"
    return 0
  fi
  local start=$SECONDS
  cmd_deps
  command -v go >/dev/null 2>&1 || die "go is needed (https://go.dev/dl; the module asks for go 1.24.1 or later)"
  mkdir -p "${CACHE}/bin" "${CACHE}/templates"
  miniaudio_stub "${CACHE}/include"
  say "building ${OLLAMA_MODULE}@${OLLAMA_VERSION} (CPU only) from the Go module proxy"
  # A failed build leaves no stamp, so the next install builds again. CPU
  # only: the GPU backends are cmake builds of their own that go install
  # never makes. The -X flags are those of Ollama's release builds: without
  # the version, /api/version (how dev tells Ollama and its version) says
  # 0.0.0; release mode keeps gin's debug lines out of the log.
  # -march=native, as llama-server.sh's GGML_NATIVE: ggml's cgo code gets
  # no SIMD flags of its own (Ollama's releases build the CPU kernels with
  # cmake instead), and built for plain x86-64 SmolLM2 took 3 s a token.
  local tmp="${CACHE}/bin.tmp"
  rm -rf "$tmp"
  CGO_ENABLED=1 CGO_CPPFLAGS="-I${CACHE}/include" CGO_CFLAGS="-O2 -march=native" CGO_CXXFLAGS="-O2 -march=native" \
    GOBIN="$tmp" go install \
    -ldflags="-X=${OLLAMA_MODULE}/version.Version=${OLLAMA_VERSION#v} -X=${OLLAMA_MODULE}/server.mode=release" \
    "${OLLAMA_MODULE}@${OLLAMA_VERSION}" >"${CACHE}/build.log" 2>&1 ||
    { tail -30 "${CACHE}/build.log" >&2; die "build failed (log: ${CACHE}/build.log)"; }
  local src
  src="$(go env GOMODCACHE)/${OLLAMA_MODULE}@${OLLAMA_VERSION}"
  cp "${src}/template/gemma3-instruct.gotmpl" "$GEMMA3_TEMPLATE"
  mv "${tmp}/ollama" "$BIN" && rm -rf "$tmp"
  stamp >"${CACHE}/bin/ollama.version"
  say "built $BIN in $((SECONDS - start)) s"
}

# llama_env NAME prints one of llama-server.sh's env assignments' values.
llama_env() { bash "${HERE}/llama-server.sh" env | sed -n "s/^$1=//p"; }

pidfile() { echo "${CACHE}/run/ollama-$1.pid"; }
statefile() { echo "${CACHE}/run/ollama-$1.state"; } # the temporary directory

# answers PORT: whether GET /api/version answers 200.
answers() {
  python3 - "$1" <<'PY' 2>/dev/null
import sys, urllib.request
try:
    with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/api/version", timeout=2) as r:
        sys.exit(0 if r.status == 200 else 1)
except Exception:
    sys.exit(1)
PY
}

# modelfile NAME GGUF THREADS: the Modelfile that makes model NAME of GGUF.
modelfile() {
  echo "FROM $2"
  echo "PARAMETER num_thread $3"
  if [ "$1" = gemma3 ]; then
    # The PyPI GGUF is the base google/gemma-3-270m, with no chat template:
    # Ollama would pass the prompt bare. Gemma 3's template, as Ollama has
    # it, and its stop token.
    printf 'TEMPLATE """%s"""\n' "$(cat "$GEMMA3_TEMPLATE")"
    echo 'PARAMETER stop "<end_of_turn>"'
  fi
}

cmd_start() {
  # threads 1: ggml's own thread pool (Ollama's cgo build has no OpenMP,
  # which llama-server.sh keeps passive) spins while it waits for its
  # other threads; with the two cores shared (builds, tests, dev itself),
  # SmolLM2 generated 31 tokens in 8.1 s with 2 threads and 0.41 s with 1.
  local port=11434 ctx=8192 models=smollm2,gemma3 wait=120 threads=1
  while [ $# -gt 0 ]; do
    case $1 in
    --port) port=$2; shift 2 ;;
    --ctx) ctx=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --wait) wait=$2; shift 2 ;;
    *) die "start: unknown option $1" ;;
    esac
  done
  built || die "ollama is not built; run: scripts/ollama.sh install"
  local name gguf
  for name in ${models//,/ }; do
    case $name in
    smollm2) gguf=$(llama_env DEV_LLAMA_SMOLLM2) ;;
    gemma3) gguf=$(llama_env DEV_LLAMA_GEMMA3) ;;
    *) die "unknown model ${name} (smollm2 or gemma3)" ;;
    esac
    [ -s "$gguf" ] || die "model ${gguf} is missing; run: scripts/llama-server.sh install"
  done
  mkdir -p "${CACHE}/run"
  local pf log; pf=$(pidfile "$port"); log="${CACHE}/run/ollama-${port}.log"
  if [ -f "$pf" ] && kill -0 "$(cat "$pf")" 2>/dev/null; then
    die "a server started by this script already runs on port ${port} (pid $(cat "$pf")); stop it first"
  fi
  # Everything the server keeps, the models' blobs and its key included,
  # goes in a temporary directory that stop removes: HOME too, since
  # ollama serve writes ~/.ollama/id_ed25519.
  local tmp; tmp=$(mktemp -d "${TMPDIR:-/tmp}/dev-ollama.XXXXXX")
  echo "$tmp" >"$(statefile "$port")"
  mkdir -p "${tmp}/home" "${tmp}/models"
  local env=(HOME="${tmp}/home" OLLAMA_HOST="127.0.0.1:${port}" OLLAMA_MODELS="${tmp}/models"
    OLLAMA_CONTEXT_LENGTH="$ctx" OLLAMA_NUM_PARALLEL=1 OLLAMA_KEEP_ALIVE=-1 OLLAMA_NO_CLOUD=1)
  # setsid: its own process group, which holds the model runners it
  # starts, so stop ends them all and nothing else. OLLAMA_KEEP_ALIVE=-1:
  # a loaded model stays loaded (the default unloads it after 5 idle
  # minutes, and a test would wait for the reload).
  env "${env[@]}" setsid "$BIN" serve >"$log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$pf"
  local deadline=$((SECONDS + wait))
  until answers "$port"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -20 "$log" >&2; cmd_stop --port "$port" 2>/dev/null; die "ollama serve exited (log: ${log})"
    fi
    if [ $SECONDS -ge $deadline ]; then
      tail -20 "$log" >&2; cmd_stop --port "$port" 2>/dev/null
      die "ollama serve did not answer /api/version within ${wait} s (log: ${log})"
    fi
    sleep 0.2
  done
  for name in ${models//,/ }; do
    case $name in
    smollm2) gguf=$(llama_env DEV_LLAMA_SMOLLM2) ;;
    gemma3) gguf=$(llama_env DEV_LLAMA_GEMMA3) ;;
    esac
    modelfile "$name" "$gguf" "$threads" >"${tmp}/Modelfile.${name}"
    # Its progress display goes to a log of its own: the server's stays readable.
    env "${env[@]}" "$BIN" create "$name" -f "${tmp}/Modelfile.${name}" >"${tmp}/create-${name}.log" 2>&1 ||
      { tail -c 2000 "${tmp}/create-${name}.log" >&2; cmd_stop --port "$port" 2>/dev/null; die "ollama create ${name} failed"; }
  done
  say "ollama serve (pid ${pid}) on http://127.0.0.1:${port} with ${models}, context ${ctx}, ${threads} thread(s), log ${log}"
  echo "http://127.0.0.1:${port}/v1"
}

cmd_stop() {
  local port=11434
  while [ $# -gt 0 ]; do
    case $1 in
    --port) port=$2; shift 2 ;;
    *) die "stop: unknown option $1" ;;
    esac
  done
  local pf sf; pf=$(pidfile "$port"); sf=$(statefile "$port")
  if [ -f "$pf" ]; then
    local pid; pid=$(cat "$pf")
    # The process group setsid made: the server and its model runners.
    if kill -0 "$pid" 2>/dev/null; then
      kill -- "-${pid}" 2>/dev/null || true
      local i
      for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 -- "-${pid}" 2>/dev/null || true
    fi
    rm -f "$pf"
    say "stopped ollama on port ${port} (pid ${pid})"
  else
    say "no server started by this script on port ${port}"
  fi
  if [ -f "$sf" ]; then
    local tmp; tmp=$(cat "$sf")
    case $tmp in */dev-ollama.*) rm -rf "$tmp" ;; esac
    rm -f "$sf"
  fi
}

cmd_env() {
  echo "DEV_OLLAMA_BIN=${BIN}"
  echo "DEV_OLLAMA_VERSION=${OLLAMA_VERSION}"
  # Built: start can run, the binary and llama-server.sh's models are there.
  echo "DEV_OLLAMA_BUILT=$(built && [ -s "$(llama_env DEV_LLAMA_SMOLLM2)" ] && [ -s "$(llama_env DEV_LLAMA_GEMMA3)" ] && echo yes || echo no)"
}

case ${1:-} in
deps) shift; cmd_deps "$@" ;;
install) shift; cmd_install "$@" ;;
start) shift; cmd_start "$@" ;;
stop) shift; cmd_stop "$@" ;;
env) shift; cmd_env "$@" ;;
*) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
