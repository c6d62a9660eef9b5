package setup

import (
	"runtime"
	"strings"
	"testing"
	"time"
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
		{"file", "file db.example {\n reload 30s\n}", "ok", ""},
		{"file", "file db.example {\n transfer to 10.0.0.1\n}", "refused", "unknown property 'transfer'"},
		{"etcd", "etcd {\n errors\n}", "refused", "unknown property 'errors'"},
		{"secondary", "secondary {\n transfer from ns1.example.org\n}", "refused", "must specify an IP address"},
	} {
		got := Judge(Request{Plugin: c.plugin, Text: c.text, Keys: []string{"."}})
		if got.Verdict != c.verdict || !strings.Contains(got.Error, c.error) {
			t.Errorf("%s %q: got %+v, want %s with %q", c.plugin, c.text, got, c.verdict, c.error)
		}
	}
}

// A judged hosts directive leaves no reload ticker behind (it would read the file every 5 s for
// as long as a lint run's helper lives).
func TestJudgeLeavesNoGoroutine(t *testing.T) {
	Judge(Request{Plugin: "hosts", Text: "hosts /nonexistent/hosts", Keys: []string{"."}})
	time.Sleep(50 * time.Millisecond)
	before := runtime.NumGoroutine()
	for i := 0; i < 20; i++ {
		if got := Judge(Request{Plugin: "hosts", Text: "hosts /nonexistent/hosts", Keys: []string{"."}}); got.Verdict != "ok" {
			t.Fatalf("hosts: %+v", got)
		}
	}
	time.Sleep(50 * time.Millisecond)
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("20 hosts judgments left %d goroutines running", after-before)
	}
}

func TestJudgeKeys(t *testing.T) {
	for _, c := range []struct {
		keys    []string
		verdict string
	}{
		{[]string{".example.org:53"}, "refused"},
		{[]string{"example..org"}, "refused"},
		{[]string{"example.org:53", "dns://example.net"}, "ok"},
		{[]string{".:53"}, "ok"},
	} {
		if got := Judge(Request{Keys: c.keys}); got.Verdict != c.verdict {
			t.Errorf("keys %q: got %+v, want %s", c.keys, got, c.verdict)
		}
	}
}
