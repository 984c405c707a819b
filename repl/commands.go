package repl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/slashcmd"
	"github.com/devagent/dev/textdist"
	"github.com/devagent/dev/ui"
)

// Command is a slash command of interactive mode.
type Command struct {
	Name    string   // with its slash: "/model"
	Aliases []string // other names: "/clear" for "/new"
	Args    string   // how /help writes its argument: "[NAME]"
	Help    string   // one line
	// Run does the command with what follows its name (trimmed). A
	// request it returns is sent as a message, as if typed: commands
	// defined in files expand to one.
	Run func(arg string) (request string, err error)
}

// errExit: /exit.
var errExit = errors.New("exit")

// sessionsShown is how many sessions /sessions and /resume list.
const sessionsShown = 10

// What the slash commands ask of the app beyond App, each group the
// little it needs. An app that lacks one has none of its commands.
type (
	// sessionSwitcher: /new, /sessions, /resume.
	sessionSwitcher interface {
		NewSession() error
		Resume(id string) error
		DirSessions() ([]sessions.Summary, error)
	}
	// modelSwitcher: /model.
	modelSwitcher interface {
		Model() string
		SetModel(model string)
	}
	// compactor: /compact.
	compactor interface {
		Compact(ctx context.Context) (bool, error)
	}
	// auditSwitcher: /audit.
	auditSwitcher interface {
		AuditPolicy() string
		SetAudit(policy string) error
	}
	// resumer: the command that resumes the session, said on leaving.
	resumer interface {
		ResumeCommand() string
	}
	// fileCommander: the slash commands defined by files (reserved: the
	// names they may not take).
	fileCommander interface {
		Commands(reserved []string) ([]slashcmd.Command, []string)
	}
)

// dev's app provides for every command: a build fails before one goes
// missing from the prompt.
var _ interface {
	App
	sessionSwitcher
	modelSwitcher
	compactor
	auditSwitcher
	fileCommander
	resumer
	timeliner
	profileSwitcher
	approvalSwitcher
	initWriter
} = (*app.App)(nil)

// Builtins are the slash commands a conversation with dev's app offers,
// in /help's order, commands from files aside: what the manual must name
// (the manual's test reads them). Their Run is not for calling.
func Builtins() []Command { return commandsFor(&REPL{}, (*app.App)(nil)) }

// commandsFor are the slash commands of a conversation with a, in the
// order /help lists them: each group that a provides for.
func commandsFor(r *REPL, a App) []Command {
	cmds := []Command{
		{Name: "/help", Help: "this list", Run: r.help},
		{Name: "/exit", Aliases: []string{"/quit"}, Help: "leave (or Ctrl+D, or Ctrl+C twice)",
			Run: func(string) (string, error) { return "", errExit }},
		{Name: "/tasks", Help: "the task list", Run: r.tasks},
	}
	if s, ok := a.(sessionSwitcher); ok {
		cmds = append(cmds,
			Command{Name: "/new", Aliases: []string{"/clear"}, Help: "a new session in this directory",
				Run: func(string) (string, error) { return "", s.NewSession() }},
			Command{Name: "/sessions", Help: "the sessions of this directory, the current one marked *",
				Run: func(string) (string, error) { return "", r.sessions(s) }},
			Command{Name: "/resume", Args: "[ID]", Help: "switch to another session of this directory: pick it from a list, or name it (a 6-character prefix of its id will do)",
				Run: func(arg string) (string, error) { return "", r.resume(s, arg) }})
	}
	if m, ok := a.(modelSwitcher); ok {
		cmds = append(cmds, Command{Name: "/model", Args: "[NAME]", Help: "show the model, or switch to NAME for the next requests",
			Run: func(arg string) (string, error) { r.model(m, arg); return "", nil }})
	}
	if c, ok := a.(compactor); ok {
		cmds = append(cmds, Command{Name: "/compact", Help: "compress the conversation now, to free the context",
			Run: func(string) (string, error) { return "", r.compact(c) }})
	}
	if ap, ok := a.(approvalSwitcher); ok {
		cmds = append(cmds, Command{Name: "/approval", Args: "[MODE]", Help: "show the approval mode, or switch to MODE (auto, edits, ask, plan) for the next requests; Shift+Tab cycles",
			Run: func(arg string) (string, error) { return "", r.approvalCommand(ap, arg) }})
	}
	if au, ok := a.(auditSwitcher); ok {
		cmds = append(cmds, Command{Name: "/audit", Args: "[on|off|changes]", Help: "audit every DONE (on), none (off), or only after changes (changes, the default)",
			Run: func(arg string) (string, error) { return "", r.audit(au, arg) }})
	}
	cmds = append(cmds, Command{Name: "/last", Help: "the last tool result in full (through $PAGER when set)", Run: r.last})
	if t, ok := a.(timeliner); ok {
		cmds = append(cmds, timelineCommands(r, t)...)
	}
	if i, ok := a.(initWriter); ok {
		cmds = append(cmds, Command{Name: "/init", Help: "write or improve AGENTS.md from what the model reads here (asks before writing)",
			Run: func(string) (string, error) { r.initCommand(i); return "", nil }})
	}
	if p, ok := a.(profileSwitcher); ok {
		cmds = append(cmds, Command{Name: "/profile", Args: "[NAME]", Help: "show the model profile, or switch to NAME for the next requests",
			Run: func(arg string) (string, error) { return "", r.profile(p, arg) }})
	}
	return cmds
}

// command runs a slash command line; an unknown one is named with the
// commands it was likely meant to be.
func (r *REPL) command(line string) (request string, err error) {
	name, arg, _ := strings.Cut(line, " ")
	if c, ok := r.lookup(name); ok {
		return c.Run(strings.TrimSpace(arg))
	}
	if strings.Contains(name, "/") && strings.LastIndex(name, "/") > 0 {
		// "/usr/bin/x is broken" is a message, not a command.
		return line, nil
	}
	msg := "unknown command " + name
	if close := textdist.Closest(r.names(), name, 3); len(close) > 0 {
		msg += "; did you mean " + strings.Join(close, ", ") + "?"
	}
	return "", errors.New(msg + " (/help lists them)")
}

func (r *REPL) lookup(name string) (Command, bool) {
	for _, c := range r.commands {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return c, true
		}
	}
	return Command{}, false
}

// names are every command's names, aliases included.
func (r *REPL) names() []string {
	var n []string
	for _, c := range r.commands {
		n = append(n, c.Name)
		n = append(n, c.Aliases...)
	}
	return n
}

// say writes a message on stderr, fitted to the terminal's width.
func (r *REPL) say(format string, args ...any) {
	fmt.Fprintln(r.streams.Err, ui.Wrap(fmt.Sprintf(format, args...), r.width()))
}

// width is the columns messages fit in: the terminal's now, less the last
// column (some terminals wrap there); 0, no limit, when stderr is not a
// terminal.
func (r *REPL) width() int {
	if !r.streams.ErrTTY {
		return 0
	}
	return r.streams.TermWidth() - 1
}

// helpColumn is the widest usage /help writes beside its help; a wider one
// has its help on the next line.
const helpColumn = 20

func (r *REPL) help(string) (string, error) {
	var b strings.Builder
	b.WriteString("Type a request and press Enter; dev works on it until it is done. " +
		"Pasted text stays one message; Alt+Enter (or \\ at the end of a line) starts a new line. " +
		"Tab completes commands and @paths; Shift+Tab switches the approval mode; " +
		"up and down walk through earlier requests, Ctrl+R searches them. " +
		"Text typed while dev works waits at the next prompt.\n")
	column := 0
	for _, c := range r.commands {
		if w := len(usage(c)); w <= helpColumn {
			column = max(column, w)
		}
	}
	for _, c := range r.commands {
		help := c.Help
		if len(c.Aliases) > 0 {
			help += " (also " + strings.Join(c.Aliases, ", ") + ")"
		}
		if u := usage(c); len(u) > column {
			fmt.Fprintf(&b, "  %s\n  %*s  %s\n", u, column, "", help)
		} else {
			fmt.Fprintf(&b, "  %-*s  %s\n", column, u, help)
		}
	}
	b.WriteString("Ctrl+C during a request interrupts it and returns here; the session is saved.")
	r.say("%s", b.String())
	return "", nil
}

// usage is how /help writes a command: its name and its argument.
func usage(c Command) string { return strings.TrimSpace(c.Name + " " + c.Args) }

func (r *REPL) tasks(string) (string, error) {
	tasks := r.app.Session().TaskList
	if len(tasks) == 0 {
		r.say("no tasks yet")
		return "", nil
	}
	r.opts.Screen.Tasks(tasks)
	return "", nil
}

// sessions lists the newest sessions of the directory, the current marked.
func (r *REPL) sessions(s sessionSwitcher) error {
	list, err := s.DirSessions()
	if err != nil {
		return err
	}
	current := r.app.Session()
	if !slices.ContainsFunc(list, func(s sessions.Summary) bool { return s.ID == current.ID }) {
		list = append([]sessions.Summary{current.Summary()}, list...)
	}
	list = list[:min(len(list), sessionsShown)]
	return ui.SessionTable(r.streams.Err, list, ui.SessionList{OneDir: true, Current: current.ID, Now: r.opts.Now()}, r.streams.ErrFit())
}

// resume switches to the session named, or without a name to the one
// picked from the directory's others.
func (r *REPL) resume(s sessionSwitcher, arg string) error {
	if arg != "" {
		return s.Resume(arg)
	}
	list, err := s.DirSessions()
	if err != nil {
		return err
	}
	current := r.app.Session().ID
	list = slices.DeleteFunc(list, func(s sessions.Summary) bool { return s.ID == current })
	if len(list) == 0 {
		r.say("no other session of this directory to resume (/new starts one)")
		return nil
	}
	id, err := r.PickSession(list)
	if err != nil || id == "" { // said why
		return nil
	}
	return s.Resume(id)
}

func (r *REPL) model(m modelSwitcher, arg string) {
	if arg == "" {
		r.say("model: %s (/model NAME switches for the next requests)", m.Model())
		return
	}
	m.SetModel(arg)
	r.say("model: %s for the next requests", m.Model())
}

func (r *REPL) audit(a auditSwitcher, arg string) error {
	policy := arg
	switch arg {
	case "":
		r.say("audit: %s (/audit on, off or changes)", a.AuditPolicy())
		return nil
	case "on":
		policy = config.AuditAlways
	}
	if err := a.SetAudit(policy); err != nil {
		return fmt.Errorf("/audit takes on, off or changes, not %q", arg)
	}
	r.say("audit: %s", a.AuditPolicy())
	return nil
}

func (r *REPL) compact(c compactor) error {
	var compacted bool
	var err error
	r.work(func(ctx context.Context) { compacted, err = c.Compact(ctx) })
	switch {
	case err != nil:
		return err
	case !compacted:
		r.say("nothing to compress yet")
	}
	return nil
}

// last shows the last tool result in full: through $PAGER when it is set,
// else in a box.
func (r *REPL) last(string) (string, error) {
	res, ok := r.opts.Screen.Last()
	if !ok {
		r.say("no tool result yet")
		return "", nil
	}
	pager := strings.TrimSpace(r.opts.Env("PAGER"))
	if pager == "" || !r.streams.OutTTY {
		r.opts.Screen.Box(res.Title, res.Output)
		return "", nil
	}
	cmd := exec.Command("sh", "-c", pager)
	if runtime.GOOS == "windows" {
		cmd = exec.Command("cmd", "/C", pager)
	}
	cmd.Stdin = strings.NewReader(res.Title + "\n\n" + res.Output + "\n")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("$PAGER (%s): %w", pager, err)
	}
	return "", nil
}
