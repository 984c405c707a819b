package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/textdist"
)

// serverCheck is what the model list said about the server before the
// first prompt.
type serverCheck struct {
	models  []string
	err     *llm.Error // nil: the list came
	timeout bool       // the server did not answer in time
	v1      string     // the apiUrl that works, when the configured one lacks /v1
}

// checkServer lists the server's models, bounded like discovery, which it
// runs beside.
func (a *App) checkServer(ctx context.Context) serverCheck {
	ctx, cancel := context.WithTimeout(ctx, llm.DiscoverTimeout)
	defer cancel()
	ids, err := a.client.Models(ctx)
	if err == nil {
		return serverCheck{models: ids}
	}
	c := serverCheck{timeout: ctx.Err() != nil}
	if !errors.As(err, &c.err) {
		c.err = &llm.Error{Kind: llm.KindOther, Message: err.Error()}
	}
	c.v1 = a.withV1(ctx, c.err)
	return c
}

// withV1 is apiUrl with /v1 added, when the server answered 404 and that
// URL lists models: the commonest slip in apiUrl (dev doctor knows it too).
func (a *App) withV1(ctx context.Context, e *llm.Error) string {
	base := strings.TrimRight(a.cfg.APIURL, "/")
	if e == nil || e.Status != http.StatusNotFound || strings.HasSuffix(base, "/v1") {
		return ""
	}
	fixed := base + "/v1"
	client := llm.New(llm.Config{BaseURL: fixed, APIKey: a.cfg.APIKey})
	if _, err := client.Models(ctx); err != nil {
		return ""
	}
	return fixed
}

// reportServer says, before the first prompt, what will make the first
// request fail, and how to fix it. dev starts all the same, so that the
// configuration can be fixed from there (/model) or the server started.
func (a *App) reportServer(c serverCheck, info llm.ServerInfo) {
	cfgPath := config.Path(a.opts.ConfigDir)
	a.models = c.models
	switch {
	case c.v1 != "":
		a.warn(fmt.Sprintf("the server at %s answers at %s: apiUrl lacks /v1. Fix: set apiUrl to %s in %s (or DEV_API_URL).",
			a.cfg.APIURL, c.v1, c.v1, cfgPath))
	case c.timeout:
		a.warn(fmt.Sprintf("the model server at %s did not answer within %s. Fix: start it, or check apiUrl in %s (or DEV_API_URL); dev doctor checks the setup.",
			a.cfg.APIURL, llm.DiscoverTimeout, cfgPath))
	case c.err != nil && c.err.Kind == llm.KindUnreachable:
		a.warn(unreachable(a.cfg.APIURL, c.err.Message, cfgPath))
	case c.err != nil && c.err.Kind == llm.KindAuth:
		a.warn(fmt.Sprintf("the server at %s refused the API key (HTTP %d). Fix: set apiKey in %s (or DEV_API_KEY).", a.cfg.APIURL, c.err.Status, cfgPath))
	case c.err == nil && info.Kind != llm.ServerLlamaCpp:
		// llama.cpp answers any name with its one model: only a listed
		// name can be checked.
		a.checkModel(a.cfg.Model)
	}
}

// checkModel warns when the server's list, if known, lacks model.
func (a *App) checkModel(model string) {
	if len(a.models) == 0 || slices.ContainsFunc(a.models, func(id string) bool {
		return id == model || llm.SameOllamaModel(id, model)
	}) {
		return
	}
	offer := textdist.Closest(a.models, model, 5)
	if len(offer) == 0 {
		offer = a.models[:min(5, len(a.models))]
	}
	more := ""
	if n := len(a.models) - len(offer); n > 0 {
		more = fmt.Sprintf(" (and %d more)", n)
	}
	a.warn(fmt.Sprintf("the server at %s has no model %q; it offers %s%s. Fix: set model in %s, DEV_MODEL or --model, or switch with /model NAME.",
		a.cfg.APIURL, model, strings.Join(offer, ", "), more, config.Path(a.opts.ConfigDir)))
}
