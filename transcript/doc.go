// Package transcript reads a stored session once into what happened in
// it, for every renderer: dev sessions show and the resume view (ui), the
// session browser (web), and the app's last exchange and request count.
// None of them walks the history itself; a new kind of history entry
// touches history (its constructor and Read) and this reader, then only
// the renderers that show it.
//
// The model: a Transcript is Turns in the history's order. A Turn is a
// request (its text as typed, the files its @ mentions attached), or the
// summary a compression left (with the session's compressions and the
// audits of the DONEs it replaced), and its Steps. A Step is the model's
// reply (its template, its Calls each with its Result, the notes dev added
// to the results), with the replies dev rejected before it (from the
// request records: they never enter the history); or a reply not in the
// template, a reply the user interrupted, a command the user ran (!),
// results no reply called, a note. Rules that used to be written in each
// renderer live here once: a DONE is Accepted when no results and no
// interruption follow it; an Audit goes with the DONE whose reply it names
// (sessions.Audit.Reply); a rewind goes before the request that followed
// it; a turn's End says how it ended.
//
// One request, followed through the code (an edit, a DONE, an audit
// that passes):
//
//   - loop.Loop.Run takes the checkpoint before the request, appends
//     history.Request (message 0), and saves. step.Conversation.Accept
//     appends each accepted reply (history.Reply: message 1, WRITE_FILE),
//     the loop appends its results (history.Results: message 2). A reply
//     dev cannot use never enters the history: step.Conversation.Reject
//     keeps it in brief on its request record (sessions.Request.Rejected).
//   - The DONE (message 3) is accepted; loop's review has the auditor
//     check it and appends a sessions.Audit naming the reply it checked
//     (Reply 3, and the session's CompressionCount, the history that
//     index is in). On a FAIL the report is the DONE's result
//     (history.AuditRejection) and the work goes on.
//   - Read: history.Read tells each message's kind; the reader starts a
//     TurnRequest at message 0 (numbered 1, text and attachments from
//     mention.Split), a StepReply at 1 whose calls get the results of 2,
//     a StepReply at 3 that nothing closes, so Accepted. Then it places
//     the rejected replies (rejectedBefore), the audit (placeAudits: to
//     the step at message 3), the compressions, the rewinds, and the ends
//     (EndDone).
//   - ui.ShowSession replays each turn as the events the terminal showed
//     (the request line, ReplyParsed, ToolStarted/ToolFinished, the
//     audit's verdict, the answer); web's entriesOf builds the page's
//     boxes and lines ("✓ audit passed", "✓ done in 2 steps"); app's
//     lastExchange reads transcript.Last for the resume view (the request,
//     Turn.Answer, the history from Turn.From on).
//
// And /undo: repl's undo rewinds to the checkpoint before the last
// request (app.Timeline.LastRequest). app.Timeline.Rewind restores the
// files and the session state that checkpoint kept: the history, task
// list, audits and compressions as they were before the request, so the
// undone request's audit goes with it. It counts the requests before and
// after (Requests) and records a sessions.Rewind (its time, its target,
// Kept and Undone). The undone request's model requests stay in
// sess.Requests (they were spent); reading, rejectedBefore leaves their
// rejected replies out (live: a rewind puts back the history as it was
// when its target checkpoint was taken), placeRewinds puts the rewind
// after the request it kept (Transcript.Rewinds when it undid the last),
// and the browser says there that a request was undone. No audit is left
// to place under it: it shows under nothing.
package transcript
