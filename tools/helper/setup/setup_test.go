package setup

import (
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	for _, c := range []struct {
		plugin, text, verdict, error string
	}{
		{"forward", "forward . quic://1.1.1.1", "refused", "'quic' is not supported as a destination protocol"},
		{"forward", "forward . tls://1.1.1.1 {\n tls_servername dns.example\n}", "ok", ""},
		{"cache", "cache 30 {\n bogus\n}", "refused", "Corefile:2 - Error during parsing"},
		{"cache", "cache 30\ncache 10", "refused", "only be used once per Server Block"},
		{"reload", "reload 1s", "refused", "greater or equal to 2s"},
		{"health", "health {\n lameduck 5s\n}", "ok", ""},
		{"kubernetes", "kubernetes cluster.local", "unjudged", ""},
		{"file", "file db.example", "unjudged", ""},
	} {
		got := Judge(Request{Plugin: c.plugin, Text: c.text, Keys: []string{"."}})
		if got.Verdict != c.verdict || !strings.Contains(got.Error, c.error) {
			t.Errorf("%s %q: got %+v, want %s with %q", c.plugin, c.text, got, c.verdict, c.error)
		}
	}
}
