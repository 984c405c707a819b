package ui

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/capture"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/tools"
	"github.com/fatih/color"
	"github.com/rivo/uniseg"
)

// Verbosity of the terminal renderer.
type Verbosity int

// Verbosity levels.
const (
	Quiet Verbosity = -1 // the status line after each request, the answer, warnings and errors
	// Normal is the calm screen (SPEC §17): a line of thoughts and a line
	// per tool, edits' diffs, a failed tool's last lines, the task list
	// when it changed.
	Normal  Verbosity = 0
	Verbose Verbosity = 1 // boxes: reasoning, thoughts, task list, whole inputs and results
)

// symbols used by the renderer, with ASCII fallbacks.
type symbols struct {
	tool, ok, fail, warn, retry, arrow, ellipsis, compress, background, dot, prompt string
}

var (
	unicodeSymbols = symbols{"▸", "✓", "✗", "!", "↻", "→", "…", "↓", "◇", "·", "›"}
	asciiSymbols   = symbols{">", "ok", "x", "!", "~", "->", "...", "v", "*", "|", ">"}
)

// Terminal renders events as progress on stderr: a line for each thing
// the model said and did (boxes in verbose mode), a live part while dev
// waits (see live.go), a status line after each request. It is safe for
// concurrent use: background processes and command output report from
// their own goroutines.
type Terminal struct {
	mu       sync.Mutex // one event or one redraw at a time; guards all below
	w        io.Writer
	level    Verbosity
	width    int        // of the terminal, read again at every event
	widthOf  func() int // the terminal's width now: it follows a resize
	heightOf func() int // the terminal's height now
	now      func() time.Time
	sym      symbols
	frame    frame
	tty      bool // stderr is a terminal: a live part is shown
	escapes  bool // escape codes may be written (colour, cursor moves)
	dim      *color.Color
	bold     *color.Color
	toolC    *color.Color
	red      *color.Color
	green    *color.Color
	yellow   *color.Color
	cyan     *color.Color

	answer      io.Writer // where the final answer is rendered; nil: not at all
	markdown    *Markdown // how; nil: as it is
	interactive bool      // a conversation: the prompt comes back after each request

	live     liveState
	auditing bool   // the audit runs: its own steps are not boxed
	noTasks  bool   // task lists are not shown (a resumed session shows its own once)
	tasks    string // the task list last shown, to show only changes
	shown    []parser.Task
	last     LastResult
}

// LastResult is the last tool result shown, in full, for /last.
type LastResult struct {
	Title  string // the tool and its input in one line
	Output string
}

// Lines of text shown in normal mode, counted on the screen after
// wrapping: the last lines of a failed tool's output (errors are usually at
// the end), and of a compression's summary in a transcript. --verbose and
// /last show all.
const (
	resultTail  = 5
	resumeLines = 8
)

// NewTerminal returns a renderer writing to s.Err.
func NewTerminal(s *Streams, level Verbosity) *Terminal {
	t := &Terminal{w: s.Err, level: level, width: s.TermWidth(), widthOf: s.TermWidth, heightOf: s.TermHeight, now: time.Now,
		sym: asciiSymbols, frame: asciiFrame, tty: s.ErrTTY, escapes: s.Color}
	if s.Unicode {
		t.sym, t.frame = unicodeSymbols, unicodeFrame
	}
	mk := func(attrs ...color.Attribute) *color.Color { return colour(s.Color, attrs...) }
	t.dim, t.bold = mk(color.Faint), mk(color.Bold)
	t.toolC = mk(color.Bold, color.FgYellow)
	t.red, t.green, t.yellow, t.cyan = mk(color.FgRed), mk(color.FgGreen), mk(color.FgYellow), mk(color.FgCyan)
	return t
}

// ShowAnswer makes the renderer show each accepted DONE's summary, once,
// on w (interactive mode: stdout), rendered as markdown when md is set.
// Without it the summary is the caller's to print (dev -p prints it raw).
func (t *Terminal) ShowAnswer(w io.Writer, md *Markdown) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.answer, t.markdown = w, md
}

// Interactive tells the renderer that the prompt comes back after each
// request (an interruption needs no --resume).
func (t *Terminal) Interactive() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.interactive = true
}

// Last is the last tool result, in full; ok is false before any.
func (t *Terminal) Last() (LastResult, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last, t.last.Title != ""
}

// Tasks shows the task list in full (/tasks).
func (t *Terminal) Tasks(tasks []parser.Task) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.width = t.widthOf()
	t.taskBox(tasks)
}

// Box shows text in a titled box, in full (/last without a pager).
func (t *Terminal) Box(title, text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.width = t.widthOf()
	t.box(title, t.cyan, text, nil)
}

// Emit renders one event.
func (t *Terminal) Emit(e event.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.width = t.widthOf()
	if t.auditStep(e) {
		return
	}
	switch e := e.(type) {
	case event.SessionStarted:
		if t.level >= Normal {
			verb := "new session"
			if e.Resumed {
				verb = "resumed session"
			}
			t.sessionHead(verb, e.ID, e.Model, e.Dir)
			t.resumed(e)
		}
	case event.ContextWindow:
		t.contextWindow(e)
	case event.FileAttached:
		if t.level >= Normal {
			what := textfmt.Plural(e.Lines, "line")
			if e.Binary {
				what = "binary: named, not attached"
			}
			t.line(t.dim.Sprintf("dev: attached %s (%s)", e.Path, what))
		}
	case event.RequestStarted:
		t.startLive(waitingModel)
	case event.ServerAlive:
		if t.live.on && t.live.what == waitingModel {
			t.live.aliveAt = time.Now()
		}
	case event.Streaming:
		t.streaming(e)
	case event.ReplyInterrupted:
		t.interruptedReply(e)
	case event.ReplyReceived:
		if e.Agent == event.Worker && !e.Compression && !e.Estimated {
			t.live.tokens, t.live.estimated = e.CompletionTokens, false
		}
	case event.ReplyParsed:
		t.stopLive()
		t.reply(e.Response)
	case event.ToolStarted:
		t.toolStarted(e)
	case event.CommandOutput:
		if t.live.on && t.live.what == runningCommand {
			t.live.output.write(e.Output)
		}
	case event.ToolFinished:
		t.stopLive()
		t.toolResult(e.Input, e.Result)
		t.fileChanges(e.Result.Tool, e.Files)
	case event.FormatProblem:
		t.stopLive()
		if t.level >= Normal {
			t.formatProblem(e)
		}
	case event.Retrying:
		t.stopLive()
		if t.level >= Normal {
			t.line(t.yellow.Sprintf("%s %s; retrying in %s (%d/%d)", t.sym.retry, textfmt.FirstLine(e.Message), e.Wait.Round(time.Second), e.Attempt, e.Max))
		}
		t.startLive(t.waiting()) // the request goes out again after the wait
	case event.Compressing:
		t.stopLive()
		if t.level >= Verbose {
			t.line(t.dim.Sprint(compressingText(e)))
		}
		t.startLive(compressing)
	case event.Compressed:
		t.stopLive()
		if t.level >= Normal {
			t.compressed(e)
		}
		if t.auditing {
			t.startLive(auditing) // the audit goes on
		}
	case event.AuditStarted:
		t.auditing = true
		t.live.auditTool = ""
		t.startLive(auditing)
	case event.AuditFinished:
		t.stopLive()
		t.auditing = false
		if t.level >= Normal {
			t.audit(e)
		}
	case event.Warning:
		t.message(t.yellow, t.sym.warn+" ", e.Message)
	case event.Notice:
		if t.level >= Normal {
			t.message(nil, "dev: ", e.Message)
		}
	case event.Failure:
		t.stopLive()
		t.message(t.red, t.sym.fail+" ", e.Message)
	case event.Finished:
		t.stopLive()
		t.finished(e)
	case event.BackgroundStarted:
		if t.level >= Normal {
			head := fmt.Sprintf("%s %s runs in the background: ", t.sym.background, e.ID)
			t.line(t.cyan.Sprint(head) + t.clip(textfmt.FirstLine(e.Command), utf8.RuneCountInString(head)))
		}
	case event.BackgroundExited:
		// Even in quiet mode: an exit comes while nothing else is shown.
		t.backgroundExited(e)
	}
}

// sessionHead is the first lines of a session: what it is to the user
// (verb: a new session, a resumed one, one stored), its id, model and
// directory. Called with mu held.
func (t *Terminal) sessionHead(verb, id, model, dir string) {
	head := fmt.Sprintf("dev: %s %s", verb, id)
	for _, l := range statusLines(head, []string{t.sym.arrow + " model " + model, "in " + dir}, t.width-1, " ") {
		t.line(t.dim.Sprint(l))
	}
}

// message shows a warning, a failure or a notice: its mark, then its text;
// on a terminal fitted to its width between words, each line under the
// first one's text. c colours it (nil: plain).
func (t *Terminal) message(c *color.Color, mark, text string) {
	paint := func(s string) string {
		if c == nil {
			return s
		}
		return c.Sprint(s)
	}
	if !t.tty {
		t.line(paint(mark + text))
		return
	}
	indent := textWidth(mark)
	for i, l := range wrap(text, max(t.width-1-indent, minHanging)) {
		if i == 0 {
			t.line(paint(mark + l))
		} else {
			t.line(paint(strings.Repeat(" ", indent) + l))
		}
	}
}

// interruptedReply leaves on the screen the Thoughts a reply had streamed
// when the user interrupted it, whole (a screen at most: their last
// lines), dim as the live part showed them: what the user was reading.
func (t *Terminal) interruptedReply(e event.ReplyInterrupted) {
	t.stopLive()
	text := thoughtsSoFar(e.Content)
	if e.Agent != event.Worker || t.level < Normal || text == "" {
		return
	}
	lines := wrap(text, max(8, t.width-3))
	if room := max(t.heightOf()-resumeChrome, liveThoughtLines); len(lines) > room {
		earlier := len(lines) - room + 1
		lines = append([]string{t.sym.ellipsis + " " + textfmt.Count(earlier, "earlier line")}, lines[earlier:]...)
	}
	for _, l := range lines {
		t.line(t.dim.Sprint("  " + l))
	}
}

// formatProblem says why a reply could not be used, counting the retries
// without ever passing their limit, and shows what the model wrote: the
// reply's first and last lines, dim.
func (t *Terminal) formatProblem(e event.FormatProblem) {
	count := fmt.Sprintf("(%d/%d)", e.Attempt, e.Max)
	switch {
	case e.Final:
		count = fmt.Sprintf("(%d/%d, giving up)", e.Attempt, e.Max)
	case e.Max == 0: // a transcript: the count is not kept
		count = ""
	}
	who := "reply"
	if e.Agent == event.Auditor {
		who = "the auditor's reply"
	}
	if e.Cut {
		limit := "maxTokens"
		if !e.Configured {
			limit = "the default maxTokens"
		}
		t.line(t.yellow.Sprint(t.clip(strings.TrimSpace(fmt.Sprintf("%s %s cut off at %s (%s tokens) %s",
			t.sym.warn, who, limit, textfmt.Thousands(int64(e.Limit)), count)), 0)))
	} else {
		head := strings.ReplaceAll(fmt.Sprintf("%s %s not in the expected format %s: ", t.sym.warn, who, count), " :", ":")
		t.line(t.yellow.Sprint(head) + t.clip(textfmt.FirstLine(e.Message), utf8.RuneCountInString(head)))
	}
	if t.level >= Normal {
		t.glimpse(e)
	}
	if t.level >= Verbose {
		t.block(e.Message, t.dim)
	}
}

// glimpse shows a rejected reply's first and last lines, with how many
// lines were left out between them.
func (t *Terminal) glimpse(e event.FormatProblem) {
	if len(e.Head) == 0 {
		t.line(t.dim.Sprint("  " + t.frame.vertical + " (the reply was empty)"))
		return
	}
	show := func(l string) {
		prefix := "  " + t.frame.vertical + " "
		t.line(t.dim.Sprint(prefix + t.clip(sanitize(l), utf8.RuneCountInString(prefix))))
	}
	for _, l := range e.Head {
		show(l)
	}
	if len(e.Tail) > 0 {
		t.line(t.dim.Sprintf("  %s %s", t.frame.vertical, t.sym.ellipsis+" "+textfmt.Plural(e.Lines, "line")+" in all "+t.sym.ellipsis))
		for _, l := range e.Tail {
			show(l)
		}
	}
}

// waiting is what the live part says while a request is out: the audit's
// requests are part of the audit.
func (t *Terminal) waiting() activity {
	if t.auditing {
		return auditing
	}
	return waitingModel
}

// streaming follows the reply as it comes: its tokens and its Thoughts for
// the live part; in verbose mode without a terminal, its reasoning.
func (t *Terminal) streaming(e event.Streaming) {
	if !t.live.on && t.tty {
		return
	}
	t.live.what = thinking
	t.live.tokens, t.live.estimated = e.Tokens, e.Estimated
	if t.live.streamed.Len() < maxStreamed {
		t.live.streamed.WriteString(e.Content)
	}
	t.live.replyTail.write(e.Content)
	if t.level >= Verbose && e.Reasoning != "" {
		if !t.tty {
			io.WriteString(t.w, t.dim.Sprint(e.Reasoning))
		} else if t.live.reasoning.Len() < maxStreamed {
			t.live.reasoning.WriteString(e.Reasoning)
		}
	}
}

func (t *Terminal) backgroundExited(e event.BackgroundExited) {
	if e.Status == event.StoppedOnExit {
		t.line(fmt.Sprintf("dev: stopped background process %s on exit: %s", e.ID, e.Command))
		return
	}
	runtime := e.Runtime.Round(time.Second)
	c, what := t.dim, fmt.Sprintf("exited with code %d after %s", e.ExitCode, runtime)
	switch {
	case e.Status == "killed":
		what = fmt.Sprintf("killed after %s", runtime)
	case e.ExitCode < 0:
		c, what = t.yellow, fmt.Sprintf("ended by a signal after %s", runtime)
	case e.ExitCode > 0:
		c = t.yellow
	}
	head := fmt.Sprintf("%s %s %s: ", t.sym.background, e.ID, what)
	t.line(c.Sprint(head) + t.clip(textfmt.FirstLine(e.Command), utf8.RuneCountInString(head)))
}

// contextWindow says once which window the run works with: when the
// server's is smaller than maxContextTokens, and in verbose mode always,
// with where the figure came from.
func (t *Terminal) contextWindow(e event.ContextWindow) {
	server := e.Server
	if server == "" {
		server = "the server"
	}
	if t.level >= Verbose {
		switch {
		case e.Shape == "grammar":
			t.line(t.dim.Sprintf("dev: %s shapes the replies with the template's grammar (constrain)", server))
		case e.Shape == "json":
			t.line(t.dim.Sprintf("dev: %s shapes the replies in the template's JSON form (constrain)", server))
		case e.ShapeAfterMiss == "json":
			t.line(t.dim.Sprintf("dev: %s shapes the replies in the template's JSON form once one misses the template (constrain)", server))
		}
	}
	switch {
	case e.ServerWindow > 0 && e.ServerWindow < e.Configured:
		if t.level < Normal {
			return
		}
		s := fmt.Sprintf("dev: %s gives this model a context window of %s tokens; using it instead of maxContextTokens (%s)",
			server, textfmt.Thousands(int64(e.ServerWindow)), textfmt.Thousands(int64(e.Configured)))
		if t.level >= Verbose && e.Source != "" {
			s += " (from " + e.Source + ")"
		}
		t.line(t.dim.Sprint(s))
	case t.level >= Verbose && e.ServerWindow > 0:
		t.line(t.dim.Sprintf("dev: context window %s tokens (maxContextTokens); %s reports %s (from %s)",
			textfmt.Thousands(int64(e.Window)), server, textfmt.Thousands(int64(e.ServerWindow)), e.Source))
	case t.level >= Verbose:
		s := fmt.Sprintf("dev: context window %s tokens (maxContextTokens); %s did not report its own", textfmt.Thousands(int64(e.Window)), server)
		if e.Server != "" && e.Source != "" {
			s += " (identified by " + e.Source + ")"
		}
		t.line(t.dim.Sprint(s))
	}
}

func compressingText(e event.Compressing) string {
	switch e.Reason {
	case event.ReasonOverflow:
		return fmt.Sprintf("the server rejected a prompt of about %s tokens as too long; compressing the conversation", textfmt.Thousands(int64(e.Tokens)))
	case event.ReasonRequested:
		return fmt.Sprintf("compressing the conversation (about %s tokens), as asked", textfmt.Thousands(int64(e.Tokens)))
	}
	pct := 0
	if e.Window > 0 {
		pct = e.Tokens * 100 / e.Window
	}
	return fmt.Sprintf("the prompt reached about %s tokens, %d%% of the %s-token context window; compressing the conversation",
		textfmt.Thousands(int64(e.Tokens)), pct, textfmt.Thousands(int64(e.Window)))
}

func (t *Terminal) compressed(e event.Compressed) {
	s := fmt.Sprintf("%s compressed the conversation: %s %s %s tokens", t.sym.compress,
		textfmt.Thousands(int64(e.TokensBefore)), t.sym.arrow, textfmt.Thousands(int64(e.TokensAfter)))
	if e.Reason == event.ReasonOverflow {
		s += " (the server's context overflowed; retrying)"
	}
	if t.level >= Verbose {
		var facts []string
		if e.Window > 0 {
			facts = append(facts, "window "+textfmt.Thousands(int64(e.Window)))
		}
		if e.Cuts > 0 {
			what := "tool results or messages"
			if e.Cuts == 1 {
				what = "tool result or message"
			}
			facts = append(facts, fmt.Sprintf("%d %s shortened to fit the summary request", e.Cuts, what))
		}
		if len(facts) > 0 {
			s += "; " + strings.Join(facts, ", ")
		}
	}
	t.line(t.cyan.Sprint(s))
}

// reply shows what the model said: its thoughts (boxed in verbose mode,
// one dim line otherwise) and its task list when it changed.
func (t *Terminal) reply(r parser.Response) {
	switch {
	case t.level < Normal:
		return
	case t.level >= Verbose:
		if r.Reasoning != "" {
			t.box("Reasoning", t.dim, r.Reasoning, t.dim)
		}
		if r.Thoughts != "" {
			t.box("Thoughts", t.dim, r.Thoughts, t.dim)
		}
	case r.Thoughts != "":
		t.thoughtLine(r.Thoughts)
	}
	if r.HasTaskList && len(r.Tasks) > 0 && !t.noTasks {
		t.taskChanges(r.Tasks)
	}
}

// taskLines is the task list as text, to tell when it changed.
func taskLines(tasks []parser.Task) string {
	var b strings.Builder
	for _, task := range tasks {
		b.WriteString(string(task.Status) + " " + task.Text + "\n")
	}
	return b.String()
}

// taskChanges shows the task list when it changed: whole when tasks came
// or went, only the tasks whose status moved when that is all that
// changed (a step ticking one off does not redraw the list).
func (t *Terminal) taskChanges(tasks []parser.Task) {
	list := taskLines(tasks)
	if list == t.tasks {
		return
	}
	prev := t.shown
	t.tasks, t.shown = list, append([]parser.Task(nil), tasks...)
	whole := t.taskBox
	if t.level < Verbose {
		whole = t.compactTasks
	}
	if len(prev) != len(tasks) {
		whole(tasks)
		return
	}
	var moved []parser.Task
	for i, task := range tasks {
		if task.Text != prev[i].Text {
			whole(tasks)
			return
		}
		if task.Status != prev[i].Status {
			moved = append(moved, task)
		}
	}
	if t.level < Verbose {
		t.compactTasks(moved)
		return
	}
	for _, task := range moved {
		mark, c := t.taskMark(task)
		line := "  " + mark + " " + task.Text
		t.line(c.Sprint(t.clip(line, 0)))
	}
}

func (t *Terminal) taskMark(task parser.Task) (string, *color.Color) {
	switch task.Status {
	case parser.Complete:
		return "[x]", t.green
	case parser.InProgress:
		return "[~]", t.yellow
	}
	return "[ ]", t.dim
}

// taskBox shows the task list, each task in the colour of its status.
func (t *Terminal) taskBox(tasks []parser.Task) {
	var lines []string
	var colours []*color.Color
	for _, task := range tasks {
		mark, c := t.taskMark(task)
		if task.Status == parser.Pending {
			c = nil
		}
		for _, l := range wrap(mark+" "+task.Text, t.innerWidth()) {
			lines = append(lines, l)
			colours = append(colours, c)
		}
	}
	t.boxLines("Task List", t.cyan, lines, colours)
}

// toolStarted shows the tool and its input in verbose mode (the calm
// screen shows a tool once it ran); a command gets the live part: its
// elapsed time and last lines of output.
func (t *Terminal) toolStarted(e event.ToolStarted) {
	if t.level >= Verbose {
		t.box("Tool: "+e.Tool, t.toolC, textfmt.WithoutFences(e.Input), nil)
	}
	if e.Tool == tools.Command {
		t.live.command = textfmt.Summary(tools.CommandText(e.Input), 60)
		t.startLive(runningCommand)
	}
}

func (t *Terminal) toolResult(input string, r tools.Result) {
	if !r.Done {
		title := r.Tool
		if summary := inputSummary(input); summary != "" {
			title += " " + textfmt.Summary(summary, 80)
		}
		t.last = LastResult{Title: title, Output: r.Output}
	}
	switch {
	case t.level == Quiet, r.Done:
		// The summary is the answer, shown once at the end.
	case t.level >= Verbose:
		t.resultBox(r)
	case r.Tool == tools.UpdateTaskList && r.OK:
		// The task list shows what changed.
	case r.Tool == tools.AskUser && t.interactive:
		// The question and the answer typed are on the screen; Ctrl+C
		// instead of an answer is said by the status line.
	default:
		t.calmResult(input, r)
	}
}

// resultBox shows a result whole; under it, when the output was cut for
// the model, what the model did not see and the file that holds it all (a
// line of its own, so that the path can be copied whole).
func (t *Terminal) resultBox(r tools.Result) {
	title, c := "Result", t.green
	if !r.OK {
		title, c = "Result: failed", t.red
	}
	t.box(title, c, r.Output, nil)
	if cut, ok := capture.CutOf(r.Output); ok {
		t.line(t.yellow.Sprint("  " + t.cutText(cut)))
	}
}

// auditStep renders an event of the audit's own conversation and reports
// whether e was one. The live part names what the auditor runs; verbose
// mode also shows its thoughts, its tools and their results as they come.
func (t *Terminal) auditStep(e event.Event) bool {
	switch e := e.(type) {
	case event.RequestStarted:
		return e.Agent == event.Auditor // the audit's live part runs on
	case event.Streaming:
		return e.Agent == event.Auditor
	case event.ReplyReceived:
		return e.Agent == event.Auditor
	case event.CommandOutput:
		return e.Agent == event.Auditor
	case event.ReplyParsed:
		if e.Agent != event.Auditor {
			return false
		}
		if t.level >= Verbose && e.Response.Thoughts != "" {
			t.block(e.Response.Thoughts, t.dim)
		}
	case event.ToolStarted:
		if e.Agent != event.Auditor {
			return false
		}
		summary := e.Tool + " " + inputSummary(e.Input)
		t.live.auditTool = textfmt.Clip(summary, max(10, t.width/2))
		if t.level >= Verbose {
			t.line("  audit " + t.toolC.Sprint(t.sym.tool+" "+e.Tool) + " " + t.clip(inputSummary(e.Input), len(e.Tool)+10))
		}
	case event.ToolFinished:
		if e.Agent != event.Auditor {
			return false
		}
		if t.level >= Verbose && !e.Result.Done {
			t.block(e.Result.Output, nil)
		}
	default:
		return false
	}
	return true
}

// audit shows the verdict in one line; verbose adds the auditor's whole
// report.
func (t *Terminal) audit(r event.AuditFinished) {
	steps := textfmt.Count(r.Steps, "step")
	if r.Verdict == string(audit.Pass) {
		t.line(t.green.Sprintf("%s audit passed (%s)", t.sym.ok, steps))
	} else {
		t.line(t.red.Sprintf("%s audit failed (%s): ", t.sym.fail, steps) + t.clip(audit.FeedbackLine(r.Feedback), 30))
	}
	if t.level >= Verbose {
		t.block(r.Feedback, nil)
	}
}

// finished shows the answer, once, then one status line: how the request
// ended and what it used.
func (t *Terminal) finished(e event.Finished) {
	if e.Status == "complete" && t.answer != nil && e.Summary != "" {
		t.showAnswer(e.Summary)
	}
	var head string
	switch e.Status {
	case "complete":
		head = t.green.Sprint(t.sym.ok + " done")
		if e.Audit == event.AuditSkipped {
			head += t.dim.Sprint(" (audit skipped: nothing changed)")
		}
	case "interrupted":
		head = t.yellow.Sprint(t.sym.warn + " interrupted; the session is saved")
		if !t.interactive {
			head += t.yellow.Sprint(": dev --resume continues it")
		}
	default:
		head = t.red.Sprintf("%s failed (exit %d)", t.sym.fail, e.ExitCode)
	}
	for _, l := range statusLines(head, t.statusParts(e), t.width-1, " "+t.sym.dot+" ") {
		t.line(l)
	}
}

// showAnswer writes the final answer where ShowAnswer said.
func (t *Terminal) showAnswer(summary string) {
	t.eraseLive()
	text := strings.TrimSpace(summary) + "\n"
	if t.markdown != nil {
		md := *t.markdown
		md.Width = min(t.width-1, maxBoxWidth)
		text = md.Render(summary)
	}
	io.WriteString(t.answer, text)
}

// statusParts are the figures of the status line: model, steps, tokens in
// and out, context used, elapsed time, cost.
func (t *Terminal) statusParts(e event.Finished) []string {
	u := e.Usage
	tilde := ""
	if u.Estimated {
		tilde = "~"
	}
	parts := []string{}
	if u.Model != "" {
		parts = append(parts, u.Model)
	}
	parts = append(parts, textfmt.Count(e.Loops, "step"))
	if u.TokensIn > 0 || u.TokensOut > 0 {
		parts = append(parts, fmt.Sprintf("%s%s in, %s out", tilde, textfmt.Short(u.TokensIn), textfmt.Short(u.TokensOut)))
	}
	if u.ContextWindow > 0 && u.ContextTokens > 0 {
		pct := fmt.Sprintf("%s%d%%", tilde, u.ContextTokens*100/u.ContextWindow)
		if u.ContextTokens*100 < u.ContextWindow {
			pct = "<1%"
		}
		parts = append(parts, fmt.Sprintf("context %s of %s", pct, textfmt.Short(u.ContextWindow)))
	}
	if u.Elapsed > 0 {
		parts = append(parts, textfmt.Duration(u.Elapsed))
	}
	if u.CostKnown {
		parts = append(parts, fmt.Sprintf("$%.4f", u.Cost))
	}
	return parts
}

// statusLines joins head and parts into as few lines of at most width
// columns as they fit in, breaking between parts.
func statusLines(head string, parts []string, width int, sep string) []string {
	var lines []string
	cur := head
	for _, p := range parts {
		if uniseg.StringWidth(escapes.ReplaceAllString(cur+sep+p, "")) > width && cur != "" {
			lines = append(lines, cur)
			cur = "  " + p
			continue
		}
		cur += sep + p
	}
	return append(lines, cur)
}

// line prints s for good, under the live part: the live part is erased,
// s printed, and the live part drawn again below it.
func (t *Terminal) line(s string) {
	t.eraseLive()
	fmt.Fprintln(t.w, s)
	t.drawLive()
}

// block prints multi-line text indented, optionally coloured.
func (t *Terminal) block(text string, c *color.Color) {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return
	}
	for _, l := range strings.Split(text, "\n") {
		if c != nil {
			l = c.Sprint(l)
		}
		t.line("    " + l)
	}
}

// clip shortens s to the terminal width minus used columns.
func (t *Terminal) clip(s string, used int) string {
	max := t.width - used - 1
	if max < 10 {
		max = 10
	}
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + t.sym.ellipsis
}

// inputSummary is the first meaningful line of a tool input, skipping fences.
func inputSummary(input string) string {
	for _, l := range strings.Split(input, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "```") && !strings.HasPrefix(l, "~~~") {
			return l
		}
	}
	return ""
}

// diffLines is how much of an edit's diff normal mode shows.
const diffLines = 12

// fileChanges shows what a tool changed in the working directory: the
// diff of each edit (removed lines red, added green, capped unless
// verbose), and one line naming the files a command changed.
func (t *Terminal) fileChanges(tool string, files []event.FileChange) {
	if t.level < Normal || len(files) == 0 {
		return
	}
	var others []string
	for _, f := range files {
		switch {
		case f.Diff != "" && t.level >= Verbose:
			t.diffBox(f)
		case f.Diff != "":
			t.diffLines(f.Diff)
		case t.level < Verbose && f.Change == "added" && (tool == tools.WriteFile || tool == tools.FindAndReplace):
			// The file the tool created: its line names it.
		default:
			others = append(others, f.Change+" "+f.Path)
		}
	}
	if len(others) > 0 {
		indent := ""
		if t.level < Verbose {
			indent = "  "
		}
		t.line(t.dim.Sprint(t.clip(indent+"changed: "+strings.Join(others, ", "), 0)))
	}
}

// diffColour is the colour of a diff line of kind k.
func (t *Terminal) diffColour(k DiffKind) *color.Color {
	switch k {
	case DiffAdded:
		return t.green
	case DiffRemoved:
		return t.red
	case DiffHunk:
		return t.cyan
	case DiffHeader, DiffMore:
		return t.dim
	}
	return nil
}

// diffBox shows an edit's whole diff in a box (verbose mode).
func (t *Terminal) diffBox(f event.FileChange) {
	var lines []string
	var colours []*color.Color
	for _, l := range DiffLines(f.Diff, 0) {
		c := t.diffColour(l.Kind)
		for _, w := range wrap(l.Text, t.innerWidth()) {
			lines, colours = append(lines, w), append(colours, c)
		}
	}
	t.boxLines("Diff: "+f.Path, t.cyan, lines, colours)
}
