// Package corefile answers "what does CoreDNS make of this Corefile text?" with CoreDNS's own
// Caddyfile lexer and parser (github.com/coredns/caddy/caddyfile, the version CoreDNS v1.13.1
// links), so coredns-gen never judges a Corefile with a model of them.
//
// Protocol: one JSON request per stdin line, one JSON answer per stdout line, in order.
//
//	{"texts": [{"text": "...", "name": "Corefile", "inside": false}, ...]}
//	-> {"results": [{"tokens": [["forward", 3], ...], "error": null,
//	                 "blocks": [{"keys": ["."], "tokens": {"forward": [["forward", 3], ...]}}]}, ...]}
//
// tokens are the lexer's tokens (text, line) in order; error is the parser's own message for a
// text it refuses, blocks its server blocks (keys, and each directive's tokens as CoreDNS hands
// them to the plugin's setup). inside=true reads the text as CoreDNS reads an imported override:
// spliced into a server block (here `coredns-gen-inside {` … `}`); lines stay the text's own.
// Imports of files resolve in an empty directory (a relative import finds nothing); the process
// runs with the environment its caller gave it, which `{$VAR}` placeholders read.
//
// The same process answers what forward makes of its TOs, so a lint run asks it with no second
// process: {"texts": [], "upstreams": ["tls://1.1.1.1", ...]} -> {"results": [], "upstreams":
// [{"verdict": "ok"}, ...]}, each by CoreDNS's own HostPortOrFile (tools/helper/upstream, whose
// removed working directory this process runs in). And what each plugin's own setup makes of its
// options: {"texts": [], "setups": [{"plugin": "cache", "text": "cache 30 {\n bogus\n}", "keys": ["."]}]}
// -> {"results": [], "setups": [{"verdict": "refused", "error": "plugin/cache: ..."}]} (tools/helper/setup).
package corefile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/coredns/caddy/caddyfile"

	"github.com/coredns-gen/coredns-gen/tools/helper/setup"
	"github.com/coredns-gen/coredns-gen/tools/helper/upstream"
)

// Inside is the key of the server block an `inside` text is spliced into.
const Inside = "coredns-gen-inside"

type text struct {
	Text   string `json:"text"`
	Name   string `json:"name"`
	Inside bool   `json:"inside"`
}

type request struct {
	Texts     []text           `json:"texts"`
	Upstreams *[]string        `json:"upstreams"`
	Setups    *[]setup.Request `json:"setups"`
}

type token [2]any // [text, line]

type block struct {
	Keys   []string           `json:"keys"`
	Tokens map[string][]token `json:"tokens"`
}

type result struct {
	Tokens []token `json:"tokens"`
	Error  *string `json:"error"`
	Blocks []block `json:"blocks"`
}

type answer struct {
	Results   []result           `json:"results"`
	Upstreams *[]upstream.Result `json:"upstreams,omitempty"`
	Setups    *[]setup.Result    `json:"setups,omitempty"`
}

var errLine = regexp.MustCompile(`^(.*?):(\d+) - `)

// Parse reads one text with CoreDNS's lexer and parser; dir is an empty directory for imports.
func Parse(t text, dir string) result {
	name := t.Name
	if name == "" {
		name = "Corefile"
	}
	name = filepath.Base(name)
	body, shift := t.Text, 0
	if t.Inside {
		// An imported file is lexed on its own, so a byte order mark at its start is dropped.
		body, shift = Inside+" {\n"+strings.TrimPrefix(t.Text, "\ufeff")+"\n}\n", 1
	}
	res := result{Tokens: []token{}, Blocks: []block{}}
	d := caddyfile.NewDispenser(name, strings.NewReader(t.Text))
	for d.Next() {
		res.Tokens = append(res.Tokens, token{d.Val(), d.Line()})
	}
	path := filepath.Join(dir, name)
	blocks, err := caddyfile.Parse(path, strings.NewReader(body), nil)
	if err != nil {
		msg := err.Error()
		if m := errLine.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[2])
			file := m[1]
			if file == path {
				file = name
			}
			msg = fmt.Sprintf("%s:%d - %s", file, n-shift, msg[len(m[0]):])
		}
		msg = strings.ReplaceAll(msg, dir+string(filepath.Separator), "")
		res.Error = &msg
		return res
	}
	for _, b := range blocks {
		out := block{Keys: b.Keys, Tokens: map[string][]token{}}
		if out.Keys == nil {
			out.Keys = []string{}
		}
		for dir, toks := range b.Tokens {
			list := make([]token, len(toks))
			for i, tok := range toks {
				list[i] = token{tok.Text, tok.Line - shift}
			}
			out.Tokens[dir] = list
		}
		res.Blocks = append(res.Blocks, out)
	}
	return res
}

// Main serves requests until stdin closes.
func Main(args []string) {
	if len(args) == 1 && args[0] == "-version" {
		fmt.Printf("corefile 3 (github.com/coredns/caddy v1.1.4-0.20250930002214-15135a999495; upstreams and setups: %s %s)\n",
			upstream.Module, upstream.Release())
		return
	}
	log.SetOutput(io.Discard) // the parser logs "No files matching import glob pattern": not an answer
	dir, err := os.MkdirTemp("", "coredns-gen-corefile-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	defer os.RemoveAll(dir)
	if err := upstream.Sandbox(); err != nil {
		fmt.Fprintln(os.Stderr, "coredns-gen-helper corefile: no empty working directory:", err)
		os.Exit(3)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var req request
			if jerr := json.Unmarshal(line, &req); jerr != nil {
				fmt.Fprintln(os.Stderr, "coredns-gen-helper corefile: bad request:", jerr)
				os.Exit(2)
			}
			ans := answer{Results: make([]result, len(req.Texts))}
			for i, t := range req.Texts {
				ans.Results[i] = Parse(t, dir)
			}
			if req.Upstreams != nil {
				judged := make([]upstream.Result, len(*req.Upstreams))
				for i, to := range *req.Upstreams {
					judged[i] = upstream.Judge(to)
				}
				ans.Upstreams = &judged
			}
			if req.Setups != nil {
				judged := make([]setup.Result, len(*req.Setups))
				for i, r := range *req.Setups {
					judged[i] = setup.Judge(r)
				}
				ans.Setups = &judged
			}
			if eerr := enc.Encode(ans); eerr != nil {
				fmt.Fprintln(os.Stderr, eerr)
				os.Exit(3)
			}
			if ferr := out.Flush(); ferr != nil {
				os.Exit(3)
			}
		}
		if err != nil {
			return
		}
	}
}
