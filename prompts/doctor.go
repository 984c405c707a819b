package prompts

// The texts of dev doctor's probes. They are short so that a probe costs a
// slow server little; the protocol probe uses the worker's format section,
// so a model that answers it is likely to answer the worker's prompt too.

// DoctorPing is the one user message of the streaming probe.
const DoctorPing = "Say OK."

// DoctorTurns is the conversation of the role probe, in the shape dev sends
// every request: a system message, then user and assistant turns
// alternating, ending with the user.
func DoctorTurns() (system, user, assistant, again string) {
	return "You are a test. Answer in one word.", DoctorPing, "OK.", "Say OK again."
}

// DoctorProtocol is the system prompt and the request of the protocol probe:
// the reply format, with DONE as the only tool. The request is sent as a
// user's request is (history.Request).
func DoctorProtocol() (system, request string) {
	done := Tool{Name: "DONE", Description: "Ends the task. Input: a one-line summary.", Example: "OK"}
	return render("doctor.md", []Tool{done}), "Reply with the template: tool DONE, input OK."
}
