#!/usr/bin/env bash
# Records docs/interactive-session.txt (88 columns) and
# docs/interactive-session-60.txt (60 columns): dev in tmux, talking to the
# scripted model of scripts/demo, in a fresh Go module. Needs tmux and go.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'tmux kill-session -t devdemo 2>/dev/null || true; kill "${demo_pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT

go build -o "$work/dev" . && go build -o "$work/demo" ./scripts/demo

# record WIDTH FILE: one session at WIDTH columns, written to FILE.
record() {
	local width=$1 out=$2
	rm -rf "$work/home" "$work/hello" "$work/url"
	"$work/demo" > "$work/url" & demo_pid=$!
	for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
	mkdir -p "$work/home" "$work/hello"
	printf '{"apiUrl": "%s", "model": "qwen3-coder"}\n' "$(cat "$work/url")" > "$work/home/config.json"
	printf 'module hello\n\ngo 1.22\n' > "$work/hello/go.mod"

	tmux new-session -d -s devdemo -x "$width" -y 300 \
	  "cd $work/hello && GOFLAGS=-count=1 DEV_AGENT_HOME=$work/home LANG=C.UTF-8 TERM=xterm-256color $work/dev"
	tmux set-option -t devdemo remain-on-exit on
	wait_for() { for _ in $(seq 300); do [ "$(tmux capture-pane -p -J -t devdemo -S - | grep -cF -- "$1")" -ge "${2:-1}" ] && return; sleep 0.1; done; echo "timed out waiting for: $1" >&2; exit 1; }
	wait_for "Type /help for help."
	sleep 0.5
	tmux send-keys -t devdemo "add a Greet(name) function with a test, and run the tests" Enter
	wait_for "✓ done"
	sleep 0.5
	tmux send-keys -t devdemo "what does Greet return for an empty name?" Enter
	wait_for "✓ done" 2
	sleep 0.5
	tmux send-keys -t devdemo "/exit" Enter
	for _ in $(seq 100); do [ "$(tmux display-message -p -t devdemo "#{pane_dead}")" = 1 ] && break; sleep 0.1; done
	# The session id, temporary paths and timings differ at every run; make them stable.
	tmux capture-pane -p -J -S - -t devdemo | sed -e "s#$work#/home/ada#g" \
	  -e 's#session [0-9a-f-]\{36\}#session 6f1c2a9e-4b7d-4e8a-9c3f-2d5e8b1a7c40#' \
	  -e 's#\b0\.[0-9][0-9][0-9]s\b#0.002s#g' -e 's#\(·.*\) [0-9]\+s$#\1 3s#' \
	  | grep -v "Pane is dead" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' > "$out"
	tmux kill-session -t devdemo
	kill "$demo_pid"; wait "$demo_pid" 2>/dev/null || true
	echo "wrote $out"
}

record 88 docs/interactive-session.txt
record 60 docs/interactive-session-60.txt
