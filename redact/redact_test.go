package redact

import (
	"fmt"
	"strings"
	"testing"
)

// Test tokens are assembled at run time, so that no scanner mistakes this
// file for a leak.
func tok(parts ...string) string { return strings.Join(parts, "") }

var (
	githubToken = tok("ghp_", strings.Repeat("A1b2C3d4", 4), "XyZ9")
	githubPAT   = tok("github_pat_", "11ABCDEFG0", strings.Repeat("x", 70))
	gitlabToken = tok("glpat-", "abcdefghij0123456789")
	slackToken  = tok("xoxb-", "123456789012-1234567890123-", "AbCdEfGhIjKlMnOpQrStUvWx")
	openaiKey   = tok("sk-proj-", strings.Repeat("Ab3", 16))
	legacyOAI   = tok("sk-", strings.Repeat("Zy9", 16))
	anthropic   = tok("sk-ant-api03-", strings.Repeat("k_Q-", 20))
	googleKey   = tok("AIza", "SyA1234567890abcdefghijklmnopqrstuv")
	awsKeyID    = tok("AKIA", "IOSFODNN7EXAMPLE")
	jwt         = tok("eyJhbGciOiJIUzI1NiJ9", ".", "eyJzdWIiOiIxMjM0NTY3ODkwIn0", ".", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")
	pemBody     = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\nVJTUt9Us8cKjMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dV\n"
	pemBlock    = tok("-----BEGIN ", "RSA PRIVATE KEY-----\n") + pemBody + tok("-----END ", "RSA PRIVATE KEY-----")
)

func TestShapes(t *testing.T) {
	t.Parallel()
	r := New(nil, "")
	for _, tc := range []struct{ in, want string }{
		{"token: " + githubToken + "\n", "token: [REDACTED:github-token]\n"},
		{"GH=" + githubPAT, "GH=[REDACTED:github-token]"},
		{"use " + gitlabToken + " now", "use [REDACTED:gitlab-token] now"},
		{`"` + slackToken + `"`, `"[REDACTED:slack-token]"`},
		{"https://" + tok("hooks.slack.com/services/", "T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX"), "https://[REDACTED:slack-webhook]"},
		{"OPENAI_API_KEY=" + openaiKey, "OPENAI_API_KEY=[REDACTED:openai-key]"},
		{"key " + legacyOAI, "key [REDACTED:openai-key]"},
		{"x-api-key: " + anthropic, "x-api-key: [REDACTED:anthropic-key]"},
		{"key=" + googleKey + ";", "key=[REDACTED:google-api-key];"},
		{"aws_access_key_id = " + awsKeyID, "aws_access_key_id = [REDACTED:aws-access-key-id]"},
		{"Authorization: Bearer " + jwt, "Authorization: Bearer [REDACTED:jwt]"},
		{"before\n" + pemBlock + "\nafter", "before\n[REDACTED:private-key]\nafter"},
		{`{"private_key": "` + strings.ReplaceAll(pemBlock, "\n", `\n`) + `\n", "x": 1}`, `{"private_key": "[REDACTED:private-key]\n", "x": 1}`},
		{"head\n" + tok("-----BEGIN ", "OPENSSH PRIVATE KEY-----\n") + pemBody + "[… 3 KB cut …]", "head\n[REDACTED:private-key]"},
		{"[… cut …]\n" + pemBody + tok("-----END ", "PRIVATE KEY-----") + "\ntail", "[… cut …]\n[REDACTED:private-key]\ntail"},
		{tok("-----BEGIN ", "PGP PRIVATE KEY BLOCK-----\n") + pemBody + tok("-----END ", "PGP PRIVATE KEY BLOCK-----"), "[REDACTED:private-key]"},
		{"two " + githubToken + " and " + githubToken, "two [REDACTED:github-token] and [REDACTED:github-token]"},

		// Look-alikes stay.
		{"task-" + strings.Repeat("x", 30), "task-" + strings.Repeat("x", 30)},
		{"sk-short", "sk-short"},
		{"desk-" + strings.Repeat("a", 25), "desk-" + strings.Repeat("a", 25)},
		{"AKIA too short", "AKIA too short"},
		{awsKeyID + "MORE", awsKeyID + "MORE"},
		{"ghp_short", "ghp_short"},
		{"eyJhbGciOiJIUzI1NiJ9 alone", "eyJhbGciOiJIUzI1NiJ9 alone"},
		{"-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----"},
		{"the PRIVATE KEY----- word", "the PRIVATE KEY----- word"},
		{"", ""},
	} {
		if got := r.Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestEnvironmentAndAPIKey(t *testing.T) {
	t.Parallel()
	env := []string{
		"GITHUB_TOKEN=plain-token-value-1",
		"db_password=hunter2hunter2",
		"MY_SECRET= spaced-secret \n",
		"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"SHORT_KEY=abc1234",           // 7 characters: too short
		"PATH=/usr/bin:/bin",          // not a secret name
		"HOME=/home/someone-long-one", // not a secret name
		"SERVICE_CREDENTIALS=cred-0123456789",
		"PASSWD=passwd-value-x",
		"INNER_KEY=token-value-1", // inside GITHUB_TOKEN's value: the longer value wins there
		"BROKEN",
	}
	r := New(env, "the-api-key")
	in := "t=plain-token-value-1 p=hunter2hunter2 s=spaced-secret a=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY " +
		"c=cred-0123456789 w=passwd-value-x k=the-api-key i=token-value-1 short=abc1234 path=/usr/bin:/bin"
	want := "t=[REDACTED:$GITHUB_TOKEN] p=[REDACTED:$db_password] s=[REDACTED:$MY_SECRET] a=[REDACTED:$AWS_SECRET_ACCESS_KEY] " +
		"c=[REDACTED:$SERVICE_CREDENTIALS] w=[REDACTED:$PASSWD] k=[REDACTED:apiKey] i=[REDACTED:$INNER_KEY] short=abc1234 path=/usr/bin:/bin"
	if got := r.Redact(in); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	wantNames := "AWS_SECRET_ACCESS_KEY GITHUB_TOKEN INNER_KEY MY_SECRET PASSWD SERVICE_CREDENTIALS db_password"
	if got := strings.Join(r.Names(), " "); got != wantNames {
		t.Errorf("Names = %q", got)
	}
	// A short API key (local servers accept any: x, none) is no secret,
	// and masking it would garble every word holding its letters.
	for _, key := range []string{"x", "k1", "none", "sk-no-k"} {
		in := "wrote hello.txt: none of sk-no-key k1 x"
		if got := New(nil, key).Redact(in); got != in {
			t.Errorf("apiKey %q masked text: %q", key, got)
		}
	}
	if got := New(nil, "sk-no-key").Redact("key sk-no-key"); got != "key [REDACTED:apiKey]" {
		t.Errorf("an apiKey of 8 characters or more is masked: %q", got)
	}
	var off *Redactor
	if got := off.Redact("x " + githubToken); got != "x "+githubToken || off.Names() != nil {
		t.Errorf("a nil Redactor changed the text: %q", got)
	}
}

func TestIsSecretName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"API_KEY": true, "apikey": true, "GH_TOKEN": true, "CLIENT_SECRET": true, "DB_PASSWORD": true,
		"PASSWD": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "PATH": false, "HOME": false, "EDITOR": false,
	} {
		if got := IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v", name, got)
		}
	}
}

// output is n bytes of command output with secrets and look-alikes in it.
func output(n int, adversarial bool) string {
	line := "ok  \tgithub.com/x/y\t0.012s  desk-top task-runner AKIA? eyJ sk- PRIVATE KEY\n"
	if adversarial {
		// Every position starts a hint that fails at the end.
		line = strings.Repeat("sk-"+strings.Repeat("a", 19)+" ", 3) + "ghp_" + strings.Repeat("b", 35) + " AKIA" + strings.Repeat("C", 15) + " eyJ" + strings.Repeat("d", 40) + " -----END PRIVATE KEY----- \n"
	}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(line)
		if b.Len()%(64<<10) < len(line) {
			b.WriteString("token " + githubToken + "\n")
		}
	}
	return b.String()
}

func BenchmarkRedact(b *testing.B) {
	env := []string{"GITHUB_TOKEN=plain-token-value-1", "DB_PASSWORD=hunter2hunter2", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
	r := New(env, "the-api-key")
	for _, size := range []int{1 << 20, 10 << 20} {
		for _, adv := range []bool{false, true} {
			s := output(size, adv)
			b.Run(fmt.Sprintf("%dMB/adversarial=%v", size>>20, adv), func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					r.Redact(s)
				}
			})
		}
	}
}
