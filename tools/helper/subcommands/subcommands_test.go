package subcommands

import (
	"bytes"
	"strings"
	"testing"
)

func TestDispatchCallsTheNamedSubcommandWithTheRest(t *testing.T) {
	var got []string
	table := Table{"a": func(args []string) { got = append([]string{"a"}, args...) }, "b": func([]string) { t.Fatal("b ran") }}
	var stderr bytes.Buffer
	if code := Dispatch("prog", table, []string{"a", "-version", "x"}, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if strings.Join(got, " ") != "a -version x" {
		t.Fatalf("got %q", got)
	}
}

func TestDispatchRefusesMissingAndUnknownSubcommands(t *testing.T) {
	table := Table{"corefile": func([]string) {}, "artifact": func([]string) {}}
	var stderr bytes.Buffer
	if code := Dispatch("prog", table, nil, &stderr); code != 2 || stderr.String() != "usage: prog artifact|corefile [flags]\n" {
		t.Fatalf("exit %d: %q", code, stderr.String())
	}
	stderr.Reset()
	if code := Dispatch("prog", table, []string{"build"}, &stderr); code != 2 || !strings.Contains(stderr.String(), `unknown subcommand "build" (it serves artifact, corefile)`) {
		t.Fatalf("exit %d: %q", code, stderr.String())
	}
}
