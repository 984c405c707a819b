package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/devagent/dev/compress"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/shape"
	"github.com/devagent/dev/step"
)

// What interactive mode changes between requests: the model, the audit
// policy, the session worked in, and the history's size. Each is called
// on the caller's goroutine, between runs.

// ErrOtherDirectory: /resume named a session of another directory.
var ErrOtherDirectory = errors.New("the session belongs to another directory")

// Model is the model requests go to.
func (a *App) Model() string { return a.cfg.Model }

// SetModel sends the next requests to model; it warns when the server
// listed its models at start and model is not among them.
func (a *App) SetModel(model string) {
	a.cfg.Model = model
	a.sess.Model = model
	a.wire()
	a.checkModel(model)
}

// AuditPolicy is the audit policy in force: config.AuditChanges,
// AuditAlways or AuditOff.
func (a *App) AuditPolicy() string { return a.cfg.Audit }

// SetAudit changes the audit policy for the next requests.
func (a *App) SetAudit(policy string) error {
	if !slices.Contains(config.AuditPolicies, policy) {
		return fmt.Errorf("unknown audit policy %q: use one of %v", policy, config.AuditPolicies)
	}
	a.cfg.Audit = policy
	a.wire()
	return nil
}

// DirSessions are the sessions of the working directory, newest first, as
// lists show them.
func (a *App) DirSessions() ([]sessions.Summary, error) {
	return DirSessions(a.store, a.sess.WorkingDirectory)
}

// DirSessions are the sessions of the directory dir that can be read,
// newest first, as lists show them: what /sessions, /resume and dev
// --resume --pick list. Their summaries are read, not their histories.
func DirSessions(store *sessions.Store, dir string) ([]sessions.Summary, error) {
	all, err := store.Summaries()
	if err != nil {
		return nil, err
	}
	var out []sessions.Summary
	for _, l := range all {
		if l.Err == nil && l.WorkingDirectory == dir {
			out = append(out, l.Summary)
		}
	}
	return out, nil
}

// Resume moves to another session of the working directory, named by its
// id or a unique prefix of it: locked, remembered for --resume, and shown
// where it stood (the session event).
func (a *App) Resume(typed string) error {
	id, err := a.store.Resolve(typed)
	if err != nil {
		return err
	}
	if id == a.sess.ID {
		return fmt.Errorf("session %s is the one open", id)
	}
	sess, err := a.store.Load(id)
	if err != nil {
		return err
	}
	if sess.WorkingDirectory != a.sess.WorkingDirectory {
		return fmt.Errorf("%w: %s works in %s; dev --session %s -C %s opens it there", ErrOtherDirectory, id, sess.WorkingDirectory, id, sess.WorkingDirectory)
	}
	sess.Model = a.cfg.Model
	return a.switchTo(sess, true)
}

// Compact compresses the session's history now (/compact), as the worker
// does when the context fills up. It reports false when there is nothing
// to compress.
func (a *App) Compact(ctx context.Context) (bool, error) {
	conv := &step.Conversation{
		Agent:   event.Worker,
		Model:   a.loop.Model,
		Params:  a.loop.Params,
		System:  a.loop.SystemPrompt,
		Sink:    a.sink,
		Room:    a.loop.Room,
		State:   a.sess,
		Current: lastRequest(a.sess.History),
		Save:    func() error { return a.store.Save(a.sess) },
		Now:     a.opts.Now,
	}
	msgs := append([]llm.Message{{Role: llm.RoleSystem, Content: conv.System}}, a.sess.History...)
	return conv.Compress(ctx, compress.Tokens(compress.Chars(msgs)), event.ReasonRequested)
}

func lastRequest(history []llm.Message) string {
	return lastExchange(history).request
}

// Profile is the active model profile ("" for none) and the names of all.
func (a *App) Profile() (name string, names []string) {
	return a.cfg.Profile, slices.Sorted(maps.Keys(a.cfg.Profiles))
}

// SetProfile switches the next requests to the model profile name (SPEC
// §14 /profile NAME): the settings are read again with it, as --profile
// would, and the client, the context window and every part of the run
// follow them. The session records the profile.
func (a *App) SetProfile(name string) error {
	if a.opts.Reload == nil {
		return errors.New("profiles cannot be switched here")
	}
	cfg, err := a.opts.Reload(name)
	if err != nil {
		return err
	}
	if cfg.Audit != a.cfg.Audit { // the session's choice (/audit) stays
		cfg.Audit = a.cfg.Audit
	}
	a.cfg = cfg
	a.client = a.newClient()
	a.window = step.NewWindow(cfg.MaxContextTokens)
	info := a.client.Discover(context.Background(), cfg.Model)
	a.known = &shape.Known{Server: info}
	a.learnWindow(info)
	a.sess.Model, a.sess.Profile = cfg.Model, cfg.Profile
	a.wire()
	return nil
}
