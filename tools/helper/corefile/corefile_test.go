package corefile

import (
	"reflect"
	"strings"
	"testing"
)

// CoreDNS's own parser (github.com/coredns/caddy/caddyfile): tokens with their lines, server
// blocks with each directive's tokens as the plugin's setup gets them.
func TestParseReadsServerBlocks(t *testing.T) {
	res := Parse(text{Text: ".:53 {\n    forward . 10.0.0.1 {\n        policy sequential\n    }\n    cache 30\n}\n"}, t.TempDir())
	if res.Error != nil {
		t.Fatal(*res.Error)
	}
	if len(res.Tokens) != 12 || !reflect.DeepEqual(res.Tokens[0], token{".:53", 1}) {
		t.Fatalf("tokens %v", res.Tokens)
	}
	if len(res.Blocks) != 1 || !reflect.DeepEqual(res.Blocks[0].Keys, []string{".:53"}) {
		t.Fatalf("blocks %+v", res.Blocks)
	}
	cache := res.Blocks[0].Tokens["cache"]
	if !reflect.DeepEqual(cache, []token{{"cache", 5}, {"30", 5}}) {
		t.Errorf("cache tokens %v", cache)
	}
	if got := len(res.Blocks[0].Tokens["forward"]); got != 7 {
		t.Errorf("forward has %d tokens, want 7 (its block's braces included)", got)
	}
}

// The parser's own error, its line the text's own and its file name without the scratch folder.
func TestParseKeepsTheParsersErrorWithTheTextsLine(t *testing.T) {
	dir := t.TempDir()
	res := Parse(text{Text: ".:53 {\n    log\n    import\n}\n", Name: "/repo/overlays/Corefile"}, dir)
	want := "Corefile:3 - Error during parsing: Wrong argument count or unexpected line ending after 'import'"
	if res.Error == nil || *res.Error != want || strings.Contains(*res.Error, dir) {
		t.Fatalf("error %v", res.Error)
	}
	if len(res.Blocks) != 0 {
		t.Errorf("blocks of a refused text: %+v", res.Blocks)
	}
}

// An override is read spliced into a server block, as CoreDNS imports it; lines stay its own.
func TestParseInsideReadsAnOverrideAsImported(t *testing.T) {
	res := Parse(text{Text: "forward . 10.0.0.1\nlog\n", Name: "up.override", Inside: true}, t.TempDir())
	if res.Error != nil {
		t.Fatal(*res.Error)
	}
	if len(res.Blocks) != 1 || res.Blocks[0].Keys[0] != Inside {
		t.Fatalf("blocks %+v", res.Blocks)
	}
	if got := res.Blocks[0].Tokens["log"]; !reflect.DeepEqual(got, []token{{"log", 2}}) {
		t.Errorf("log tokens %v", got)
	}
	bad := Parse(text{Text: "log\nimport\n", Name: "up.override", Inside: true}, t.TempDir())
	if bad.Error == nil || !strings.HasPrefix(*bad.Error, "up.override:2 - ") {
		t.Errorf("error %v", bad.Error)
	}
}
