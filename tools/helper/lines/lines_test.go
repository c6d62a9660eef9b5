package lines

import (
	"strings"
	"testing"
)

type req struct {
	N int `json:"n"`
}

type res struct {
	Double int `json:"double"`
}

// Every request line gets its answer line, in order, and the last line needs no newline.
func TestServeAnswersEachLineInOrder(t *testing.T) {
	var out strings.Builder
	Serve(strings.NewReader("{\"n\":1}\n{\"n\":21}\n{\"n\":-3}"), &out, func(r req) res { return res{r.N * 2} })
	if want := "{\"double\":2}\n{\"double\":42}\n{\"double\":-6}\n"; out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
}

// Each answer is written out before the next request is read: the Python side streams.
func TestServeFlushesEachAnswer(t *testing.T) {
	var out strings.Builder
	seen := []string{}
	Serve(strings.NewReader("{\"n\":1}\n{\"n\":2}\n"), &out, func(r req) res {
		seen = append(seen, out.String())
		return res{r.N}
	})
	if len(seen) != 2 || seen[0] != "" || seen[1] != "{\"double\":1}\n" {
		t.Fatalf("output seen by each request: %q", seen)
	}
}
