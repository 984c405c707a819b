package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/shape"
	"github.com/devagent/dev/step"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/usage"
)

// Exit codes (SPEC §6): how a dev process ends. A run's code is decided
// here, where the run's outcome is understood; main maps its own errors.
const (
	ExitOK          = 0
	ExitFailure     = 1 // server or runtime failure
	ExitUsage       = 2 // usage or configuration error
	ExitAudit       = 3 // the audit failed maxAuditFailures times in a row
	ExitMaxLoops    = 4
	ExitFormat      = 5 // unparseable replies, or the model kept repeating itself
	ExitInterrupted = 130
)

// Result is how a run ended.
type Result struct {
	loop.Outcome
	Code int // the exit code
}

// Run works on request in the session until the run ends; ctx interrupts
// it. It emits the failure, if any, phrased with what to do about it, and
// the result, always last.
func (a *App) Run(ctx context.Context, request string) Result {
	a.runFrom, a.runStarted = len(a.sess.Requests), a.opts.Now()
	a.sess.StatusReason = ""
	o := a.loop.Run(ctx, a.sess, a.attach(request))
	if cost := usage.SessionCost(a.sess, Prices(a.cfg.Prices)); cost != nil {
		a.sess.Cost = cost
		if err := a.store.Save(a.sess); err != nil {
			a.warn("saving the session's cost: " + err.Error())
		}
	}
	if a.opts.Automated {
		a.stopBackground() // before the result, which is the last event
	}
	res := Result{Outcome: o, Code: exitCode(o)}
	if msg := a.explain(o); msg != "" {
		a.sink.Emit(event.Failure{Message: msg})
		// Kept for --resume, which says how the last run ended.
		a.sess.StatusReason = msg
		if err := a.store.Save(a.sess); err != nil {
			a.warn("saving the session: " + err.Error())
		}
	}
	a.sink.Emit(event.Finished{
		Status:       string(a.sess.Status),
		ExitCode:     res.Code,
		Summary:      strings.TrimSpace(o.Summary),
		SessionID:    a.sess.ID,
		Loops:        o.Loops,
		Tokens:       a.sess.TotalTokens,
		FormatErrors: o.FormatErrors,
		Audits:       o.Audits,
		EarlyStops:   o.EarlyStops,
		Cost:         a.sess.Cost,
		Audit:        o.Audit,
		Usage:        a.usage(o),
	})
	return res
}

// exitCode maps how a run ended to the exit code of SPEC §6.
func exitCode(o loop.Outcome) int {
	switch o.Stop {
	case loop.Done:
		return ExitOK
	case loop.MaxLoops:
		return ExitMaxLoops
	case loop.FormatFailed, loop.Looping:
		return ExitFormat
	case loop.Interrupted:
		return ExitInterrupted
	case loop.AuditFailed:
		return ExitAudit
	default:
		return ExitFailure
	}
}

// explain phrases why a run failed and how to fix it.
func (a *App) explain(o loop.Outcome) string {
	cfgPath := config.Path(a.opts.ConfigDir)
	switch o.Stop {
	case loop.MaxLoops:
		return fmt.Sprintf("stopped after %s without DONE (maxLoops in %s)", textfmt.Count(o.Loops, "step"), cfgPath)
	case loop.FormatFailed:
		if errors.Is(o.Err, audit.ErrFormat) {
			return "the auditor kept answering in a format dev cannot parse; set auditModel in " + cfgPath + " to a stronger model, or use --no-audit"
		}
		return explainFormat(o, a.shaped(), a.cfg.MaxTokens != nil, cfgPath)
	case loop.AuditFailed:
		return fmt.Sprintf("the audit failed %d times in a row (maxAuditFailures in %s); the last feedback is in the session: dev sessions show %s",
			o.Audits, cfgPath, a.sess.ID)
	case loop.Looping:
		return "the model kept repeating the same step; stopped"
	case loop.Failed:
		msg := explainError(o.Err, a.cfg, cfgPath)
		var apiErr *llm.Error
		if errors.As(o.Err, &apiErr) {
			ctx, cancel := context.WithTimeout(context.Background(), llm.DiscoverTimeout)
			defer cancel()
			if v1 := a.withV1(ctx, apiErr); v1 != "" {
				msg += fmt.Sprintf(". The server answers at %s: apiUrl lacks /v1. Fix: set apiUrl to %s in %s (or DEV_API_URL).", v1, v1, cfgPath)
			}
		}
		return msg
	}
	return ""
}

// shaped reports whether the run tried to have the server shape the
// replies: a form was sent, or would be after a miss, or the server
// ignored or refused one.
func (a *App) shaped() bool {
	k := *a.known
	if k.GrammarIgnored || k.JSONIgnored || k.Rejected {
		return true
	}
	k.Missed = true
	return shape.Form(shape.Constrain(a.cfg.Constrain), k) != llm.ShapeNone
}

// explainFormat says why the model's replies could not be used and what
// would help, in order: the server shaping them (constrain), a larger reply
// cap when they ran to it (maxTokens), a stronger model.
func explainFormat(o loop.Outcome, constrained, maxTokensSet bool, cfgPath string) string {
	msg := fmt.Sprintf("the model kept answering in a format dev cannot parse (%d format errors", o.FormatErrors)
	if o.CutReplies > 0 {
		msg += fmt.Sprintf(", %d of them cut off at the output limit of %s tokens", o.CutReplies, textfmt.Thousands(int64(o.CutLimit)))
	}
	msg += ")"
	var fixes []string
	if !constrained {
		fixes = append(fixes, "have the server shape the replies: constrain on in "+cfgPath+
			" (llama.cpp, vLLM and SGLang apply the grammar, Ollama and LM Studio the JSON form; auto does so for them), or json for a server that takes a JSON schema")
	}
	if o.CutReplies > 0 {
		how := "raise maxTokens in " + cfgPath
		if !maxTokensSet {
			how = "set maxTokens in " + cfgPath + " above the default cap (a quarter of the context window)"
		}
		fixes = append(fixes, how)
	}
	fixes = append(fixes, "try a stronger model or a lower temperature")
	return msg + ". Fix: " + strings.Join(fixes, "; or ")
}

func explainError(err error, cfg config.Config, cfgPath string) string {
	var apiErr *llm.Error
	if !errors.As(err, &apiErr) {
		return err.Error()
	}
	prefix := ""
	if errors.Is(err, llm.ErrRetriesExhausted) {
		prefix = "gave up after repeated failures: "
	}
	switch apiErr.Kind {
	case llm.KindUnreachable:
		return prefix + unreachable(cfg.APIURL, apiErr.Message, cfgPath)
	case llm.KindAuth:
		return fmt.Sprintf("the server at %s refused the request (HTTP %d: %s). Set apiKey in %s or DEV_API_KEY.",
			cfg.APIURL, apiErr.Status, apiErr.Message, cfgPath)
	case llm.KindModelNotFound:
		offer := "the server did not list its models"
		if len(apiErr.Models) > 0 {
			offer = "it offers: " + strings.Join(apiErr.Models, ", ")
		}
		if errors.Is(err, step.ErrCompression) && cfg.CompressModel != "" {
			return fmt.Sprintf("the server at %s has no model %q to compress the conversation with; %s. Set compressModel in %s (empty uses model).",
				cfg.APIURL, cfg.CompressModel, offer, cfgPath)
		}
		return fmt.Sprintf("the server at %s has no model %q; %s. Set model in %s, DEV_MODEL or --model.",
			cfg.APIURL, cfg.Model, offer, cfgPath)
	case llm.KindOverflow:
		return explainOverflow(apiErr, cfg, cfgPath)
	}
	return prefix + err.Error()
}

// unreachable says that the model server at url cannot be reached (why),
// and how to fix it: start the server, or start one as the README does,
// or point apiUrl elsewhere; dev doctor checks the setup. The same words
// before the first prompt and after a failed request, in -p as in a
// conversation.
func unreachable(url, why, cfgPath string) string {
	return fmt.Sprintf("cannot reach the model server at %s (%s). Fix: start it (no server yet? the README's quick start runs one "+
		"with scripts/llama-server.sh, from dev's checkout), or set apiUrl in %s or DEV_API_URL; dev doctor checks the setup.", url, why, cfgPath)
}

// explainOverflow says what to configure when the conversation does not fit
// the server's context even compressed, or when maxTokens is the cause.
func explainOverflow(e *llm.Error, cfg config.Config, cfgPath string) string {
	if e.MaxTokensCause {
		return fmt.Sprintf("the server's context window (%d tokens) cannot hold the prompt (%d tokens) plus maxTokens; compressing would not help. Lower or remove maxTokens in %s.",
			e.ContextLimit, e.PromptTokens, cfgPath)
	}
	facts := e.Message
	if e.PromptTokens > 0 && e.ContextLimit > 0 {
		facts = fmt.Sprintf("%d tokens for a window of %d", e.PromptTokens, e.ContextLimit)
	}
	return fmt.Sprintf("the conversation does not fit the server's context window even compressed to a summary (%s). "+
		"Give the server a larger context (llama.cpp: -c; Ollama: OLLAMA_CONTEXT_LENGTH or num_ctx; vLLM: --max-model-len; LM Studio: the model's context length), "+
		"then set maxContextTokens in %s to match it.", facts, cfgPath)
}
