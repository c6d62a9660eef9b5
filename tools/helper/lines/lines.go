// Package lines serves a helper subcommand's protocol: one JSON request per line on stdin, one
// JSON answer per line on stdout, each flushed as soon as it is made (the Python side streams).
// A request that does not read is exit 2, an answer that cannot be written exit 3: the caller
// says which, and never takes a half-answered run for a whole one.
package lines

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Serve answers every request line of in on out with answer, until in ends; a line may hold 1 GiB.
func Serve[Req any, Res any](in io.Reader, out io.Writer, answer func(Req) Res) {
	ServeUpTo(in, out, 1<<30, answer)
}

// ServeUpTo is Serve with request lines of at most maxLine bytes (a longer one is exit 2).
func ServeUpTo[Req any, Res any](in io.Reader, out io.Writer, maxLine int, answer func(Req) Res) {
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 1<<20), maxLine)
	w := bufio.NewWriterSize(out, 1<<20)
	enc := json.NewEncoder(w)
	for scanner.Scan() {
		var req Req
		if err := json.Unmarshal(scanner.Bytes(), &req); err != nil {
			fmt.Fprintf(os.Stderr, "bad request line: %v\n", err)
			os.Exit(2)
		}
		if err := enc.Encode(answer(req)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		if err := w.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
	}
	if err := scanner.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
