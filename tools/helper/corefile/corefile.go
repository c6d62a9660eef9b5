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
// Imports of files resolve in an empty directory (a relative import finds nothing); an import
// whose pattern leads out of it (`import /dev/stdin`, `import ../../etc/x`) is asked under that
// directory instead (confine), so it finds nothing too and no file of this machine is opened. The
// process runs with the environment its caller gave it, which `{$VAR}` placeholders read.
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
	"unicode"

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
	body, moved, cerr := confine(body, path, dir)
	if cerr != nil {
		msg := cerr.Error()
		res.Error = &msg
		return res
	}
	blocks, err := caddyfile.Parse(path, strings.NewReader(body), nil)
	if err != nil {
		msg := err.Error()
		for asked, written := range moved {
			msg = strings.ReplaceAll(msg, asked, written)
		}
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
	defer setup.Close()
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

// outside is the folder under the import directory that confined patterns are asked in: it never
// exists, so a confined pattern matches nothing (a glob) or is not found (a file), as CoreDNS's
// parser says of a relative import here.
const outside = "coredns-gen-outside"

// confine returns body with every file import whose pattern (after `{$VAR}` expansion, as the
// parser expands it) leads out of dir rewritten to the same pattern under dir/outside, and the
// rewritten patterns -> the patterns as written (for messages). A body that needs no rewrite is
// returned as it is; one that does is written back from its own tokens, each on its line, so the
// parser sees the same tokens at the same lines. A token that cannot be written back so is an error.
func confine(body, file, dir string) (string, map[string]string, error) {
	d := caddyfile.NewDispenser(file, strings.NewReader(body))
	var tokens []caddyfile.Token
	for d.Next() {
		tokens = append(tokens, caddyfile.Token{File: d.File(), Line: d.Line(), Text: d.Val()})
	}
	moved := map[string]string{}
	snippets := map[string]bool{}
	for i, tok := range tokens {
		if strings.HasPrefix(tok.Text, "(") && strings.HasSuffix(tok.Text, ")") {
			snippets[strings.TrimSuffix(tok.Text[1:], ")")] = true // (defined before a later import)
		}
		directive := i == 0 || tokens[i-1].Line != tok.Line || tokens[i-1].Text == "{"
		if tok.Text != "import" || !directive || i+1 >= len(tokens) || tokens[i+1].Line != tok.Line {
			continue
		}
		pattern := expandEnv(tokens[i+1].Text)
		if pattern == "" || snippets[pattern] {
			continue
		}
		glob := pattern
		if !filepath.IsAbs(glob) {
			glob = filepath.Join(dir, glob)
		}
		glob = filepath.Clean(glob)
		if strings.HasPrefix(glob, dir+string(filepath.Separator)) {
			continue
		}
		asked := filepath.Join(dir, outside, glob)
		moved[asked] = tokens[i+1].Text
		tokens[i+1].Text = asked
	}
	if len(moved) == 0 {
		return body, moved, nil
	}
	var out strings.Builder
	line := 1
	for _, tok := range tokens {
		for line < tok.Line {
			out.WriteByte('\n')
			line++
		}
		out.WriteByte(' ')
		written, ok := writeToken(tok.Text)
		if !ok {
			return "", nil, fmt.Errorf("%s:%d - token %q cannot be read here beside an import of a file outside "+
				"the Corefile's folder", filepath.Base(file), tok.Line, tok.Text)
		}
		out.WriteString(written)
		line += strings.Count(tok.Text, "\n")
	}
	out.WriteByte('\n')
	return out.String(), moved, nil
}

// writeToken spells a token so that caddyfile's lexer reads it back as text: bare when it holds
// nothing the lexer splits or drops at, else quoted (the lexer unescapes only `\"`); false when
// no spelling reads back (a `\` before a `"` or at the end of a token that needs quotes).
func writeToken(text string) (string, bool) {
	bare := text != "" && !strings.HasPrefix(text, "\"") && !strings.ContainsRune(text, '#') &&
		strings.IndexFunc(text, unicode.IsSpace) < 0
	if bare {
		return text, true
	}
	if strings.HasSuffix(text, "\\") || strings.Contains(text, "\\\"") {
		return "", false
	}
	return "\"" + strings.ReplaceAll(text, "\"", "\\\"") + "\"", true
}

// expandEnv is caddyfile's replaceEnvVars (parse.go, unexported): `{%VAR%}` then `{$VAR}`, each
// replaced by the variable's value, what the parser does to an import pattern before globbing.
func expandEnv(s string) string {
	for _, ref := range [][2]string{{"{%", "%}"}, {"{$", "}"}} {
		index := strings.Index(s, ref[0])
		for index != -1 {
			end := strings.Index(s[index:], ref[1])
			if end == -1 {
				break
			}
			end += index
			if end <= index+len(ref[0]) {
				break
			}
			whole := s[index : end+len(ref[1])]
			s = strings.ReplaceAll(s, whole, os.Getenv(whole[len(ref[0]):len(whole)-len(ref[1])]))
			index = strings.Index(s, ref[0])
		}
	}
	return s
}
