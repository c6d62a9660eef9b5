// Package setup answers "does CoreDNS's plugin accept these options?" by running the plugin's own
// setup function (github.com/coredns/coredns at the version go.mod pins) on the directive's
// tokens, as CoreDNS's own setup tests do (caddy.NewTestController), so lint judges a plugin's
// options with CoreDNS's code, never a table of them.
//
// Only plugins whose setup reads nothing but its tokens are linked (Judged): no file, network
// interface, cloud credential or cluster API decides their verdict, so the answer here is the
// answer in the pod. Any other plugin is "unjudged". Hooks a setup registers (listeners, health
// checks, reload) belong to a test instance that never starts, so nothing listens or dials; what a
// setup starts at once (hosts' reload ticker, which reads its file every 5 s) is stopped by the
// instance's shutdown hooks, run after each judgment: a long lint run reads no file on a timer.
package setup

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/coredns/caddy"
	"github.com/coredns/caddy/caddyfile"

	_ "github.com/coredns/coredns/plugin/acl"
	_ "github.com/coredns/coredns/plugin/any"
	_ "github.com/coredns/coredns/plugin/autopath"
	_ "github.com/coredns/coredns/plugin/bufsize"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/cancel"
	_ "github.com/coredns/coredns/plugin/chaos"
	_ "github.com/coredns/coredns/plugin/debug"
	_ "github.com/coredns/coredns/plugin/dns64"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/etcd"
	_ "github.com/coredns/coredns/plugin/file"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/grpc"
	_ "github.com/coredns/coredns/plugin/header"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/hosts"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/local"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/metadata"
	_ "github.com/coredns/coredns/plugin/metrics"
	_ "github.com/coredns/coredns/plugin/minimal"
	_ "github.com/coredns/coredns/plugin/nsid"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
	_ "github.com/coredns/coredns/plugin/rewrite"
	_ "github.com/coredns/coredns/plugin/secondary"
	_ "github.com/coredns/coredns/plugin/template"
	_ "github.com/coredns/coredns/plugin/timeouts"
	_ "github.com/coredns/coredns/plugin/transfer"
	_ "github.com/coredns/coredns/plugin/view"
	_ "github.com/coredns/coredns/plugin/whoami"

	"github.com/coredns-gen/coredns-gen/tools/helper/upstream"
)

// Judged are the directives whose setup this package runs (the imports above register them).
// Each reads only its tokens: `hosts` stats its file but only warns when it is missing, `forward`
// and `grpc` read files only for a `tls` option with arguments (the caller leaves those out) and
// for a TO that names a resolv.conf-style file, `autopath` for its RESOLV-CONF: those names are
// handed to the setup as a stand-in file of this process's own (standIns), never opened here: the
// file is the pod's, judged only by `coredns-gen lint --load`. `file` opens its zone file: it is
// handed a stand-in that does not exist (file's setup then reads its options alone, as in a pod
// whose file is missing). `etcd` builds a client of its endpoints: they are handed a stand-in unix
// socket that does not exist (one is added where none is written: the default dials
// localhost:2379) and its credentials are blanked (a client with credentials authenticates at
// once); a `tls` option with arguments (files) is left out by the caller. `secondary` reads only
// tokens (its transfers start with the server).
var Judged = map[string]bool{
	"acl": true, "any": true, "autopath": true, "bufsize": true, "cache": true, "cancel": true,
	"chaos": true, "debug": true, "dns64": true, "errors": true, "etcd": true, "file": true,
	"forward": true, "grpc": true, "secondary": true,
	"header": true, "health": true, "hosts": true, "loadbalance": true, "local": true, "log": true,
	"loop": true, "metadata": true, "prometheus": true, "minimal": true, "nsid": true, "ready": true,
	"reload": true, "rewrite": true, "template": true, "timeouts": true, "transfer": true,
	"view": true, "whoami": true,
}

// Request is one server block's directive: every occurrence of the plugin in that block, as
// text (CoreDNS hands a plugin's setup all its occurrences in a block at once), and the keys.
type Request struct {
	Plugin string   `json:"plugin"`
	Text   string   `json:"text"`
	Keys   []string `json:"keys"`
}

// Result: ok (setup returned nil), refused (error is setup's own message) or unjudged.
type Result struct {
	Verdict string `json:"verdict"`
	Error   string `json:"error,omitempty"`
}

// Judge runs the plugin's setup on the request's tokens; with no plugin, CoreDNS's own reading of
// the server block's keys (judgeKeys).
func Judge(r Request) (res Result) {
	if r.Plugin == "" {
		return judgeKeys(r.Keys)
	}
	if !Judged[r.Plugin] {
		return Result{Verdict: "unjudged"}
	}
	action, err := caddy.DirectiveAction("dns", r.Plugin)
	if err != nil {
		return Result{Verdict: "unjudged", Error: err.Error()}
	}
	tokens, err := standIns(r.Plugin, caddyfile.NewDispenser("Corefile", strings.NewReader(r.Text)))
	if err != nil {
		return Result{Verdict: "unjudged", Error: err.Error()}
	}
	c := caddy.NewTestController("dns", "")
	c.Dispenser = caddyfile.NewDispenserTokens("Corefile", tokens)
	c.ServerBlockKeys = r.Keys
	defer func() {
		if p := recover(); p != nil {
			res = Result{Verdict: "unjudged", Error: fmt.Sprint("setup panicked: ", p)}
		}
	}()
	if !startsNothing[r.Plugin] {
		defer shutDown(c)
	}
	if err := action(c); err != nil {
		return Result{Verdict: "refused", Error: err.Error()}
	}
	return Result{Verdict: "ok"}
}

// judgeKeys validates a server block's keys as CoreDNS does before any plugin runs: caddy's
// ValidateAndExecuteDirectives (justValidate) hands a block of those keys, with no directive, to
// the dns server type's InspectServerBlocks, which normalizes each zone and port and refuses what
// CoreDNS refuses at start-up (`.example.org:53`: an empty label). Nothing is set up or started.
func judgeKeys(keys []string) Result {
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = k
		if k == "" || strings.ContainsAny(k, " \t\r\n\"{}#") {
			quoted[i] = `"` + strings.ReplaceAll(k, `"`, `\"`) + `"`
		}
	}
	input := caddy.CaddyfileInput{Filepath: "Corefile", Contents: []byte(strings.Join(quoted, " ") + " {\n}\n"), ServerTypeName: "dns"}
	if err := caddy.ValidateAndExecuteDirectives(input, nil, true); err != nil {
		return Result{Verdict: "refused", Error: err.Error()}
	}
	return Result{Verdict: "ok"}
}

// startsNothing are the judged plugins whose shutdown hooks stop only what their startup hooks
// start (never run here): file's hook sends on a channel its reload goroutine, started with the
// server, would receive, so run here it blocks forever.
var startsNothing = map[string]bool{"file": true}

// shutDown runs the shutdown hooks the setup registered on the controller's test instance, as
// CoreDNS does when an instance stops. caddy keeps the instance unexported, so it is read by
// reflection; without it (another caddy) nothing runs, and a ticker a setup started stays.
func shutDown(c *caddy.Controller) {
	field := reflect.ValueOf(c).Elem().FieldByName("instance")
	if !field.IsValid() || field.Type() != reflect.TypeOf((*caddy.Instance)(nil)) {
		return
	}
	instance := reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem().Interface().(*caddy.Instance)
	if instance != nil {
		instance.ShutdownCallbacks()
	}
}

// standInText is what a stand-in resolv.conf holds: one name server, so a setup that reads it
// takes the branch a readable file takes.
const standInText = "nameserver 127.0.0.1\n"

var standIn = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "coredns-gen-setup-")
	if err != nil {
		return "", err
	}
	standInDir = dir
	path := filepath.Join(dir, "resolv.conf")
	return path, os.WriteFile(path, []byte(standInText), 0o600)
})

var standInDir string

// Close removes the stand-in's folder, if a judgment made one (the serving process calls it
// when its input ends).
func Close() {
	if standInDir != "" {
		_ = os.RemoveAll(standInDir)
	}
}

// standIns returns the directive's tokens with each file argument a setup would open (forward's
// and grpc's TOs that name a file, upstream.NamesFile; autopath's RESOLV-CONF with a `/`) replaced
// by the stand-in: `forward . /dev/stdin` would block on this process's own requests, and
// `forward . /etc/resolv.conf` would be judged by the lint machine's file, not the pod's.
func standIns(plugin string, d caddyfile.Dispenser) ([]caddyfile.Token, error) {
	var tokens []caddyfile.Token
	for d.Next() {
		tokens = append(tokens, caddyfile.Token{File: d.File(), Line: d.Line(), Text: d.Val()})
	}
	switch plugin {
	case "file", "etcd":
		return absentStandIns(plugin, tokens)
	case "forward", "grpc", "autopath":
	default:
		return tokens, nil
	}
	for start := 0; start < len(tokens); start++ {
		if tokens[start].Text != plugin || (start > 0 && tokens[start-1].Line == tokens[start].Line) {
			continue
		}
		end := start + 1
		for end < len(tokens) && tokens[end].Line == tokens[start].Line && tokens[end].Text != "{" {
			end++
		}
		args := tokens[start+1 : end]
		for i := range args {
			file := false
			switch {
			case plugin == "autopath":
				file = i == len(args)-1 && !strings.HasPrefix(args[i].Text, "@") && strings.Contains(args[i].Text, "/")
			case i > 0: // forward FROM TO...: the FROM is a zone
				file = upstream.NamesFile(args[i].Text)
			}
			if !file {
				continue
			}
			path, err := standIn()
			if err != nil {
				return nil, fmt.Errorf("no stand-in file for %s: %v", args[i].Text, err)
			}
			args[i].Text = path
		}
		start = end - 1
	}
	return tokens, nil
}

// absentStandIns hands `file` a zone file and `etcd` endpoints that do not exist, in the stand-in's
// folder (see Judged): neither setup then opens or dials anything of this machine.
func absentStandIns(plugin string, tokens []caddyfile.Token) ([]caddyfile.Token, error) {
	resolv, err := standIn()
	if err != nil {
		return nil, fmt.Errorf("no stand-in folder: %v", err)
	}
	absent := filepath.Join(filepath.Dir(resolv), "absent")
	var out []caddyfile.Token
	for i := 0; i < len(tokens); i++ {
		t := tokens[i]
		out = append(out, t)
		if t.Text != plugin || (i > 0 && tokens[i-1].Line == t.Line) {
			continue
		}
		if plugin == "file" {
			if i+1 < len(tokens) && tokens[i+1].Line == t.Line && tokens[i+1].Text != "{" {
				i++
				out = append(out, caddyfile.Token{File: tokens[i].File, Line: tokens[i].Line, Text: absent})
			}
			continue
		}
		var endpoint bool
		out, i, endpoint = etcdBlock(tokens, i, out, "unix://"+absent)
		if !endpoint {
			// no endpoint written: the default (localhost:2379) would be dialled; one is added on
			// lines of its own (the dispenser groups arguments by line)
			added := []caddyfile.Token{{File: t.File, Line: -2, Text: "endpoint"}, {File: t.File, Line: -2, Text: "unix://" + absent}}
			if len(out) > 0 && out[len(out)-1].Text == "}" {
				out = append(out[:len(out)-1], append(added, out[len(out)-1])...)
			} else {
				out = append(out, caddyfile.Token{File: t.File, Line: out[len(out)-1].Line, Text: "{"})
				out = append(out, added...)
				out = append(out, caddyfile.Token{File: t.File, Line: -1, Text: "}"})
			}
		}
	}
	return out, nil
}

// etcdBlock copies the rest of the etcd directive at tokens[at] to out, each `endpoint`'s
// arguments made `socket` and `credentials`' blanked; it returns out, the index of the
// directive's last token, and whether an endpoint was written.
func etcdBlock(tokens []caddyfile.Token, at int, out []caddyfile.Token, socket string) ([]caddyfile.Token, int, bool) {
	i, depth, endpoint, option := at+1, 0, false, ""
	for ; i < len(tokens); i++ {
		t := tokens[i]
		if depth == 0 && t.Line != tokens[at].Line {
			break
		}
		lineStart := tokens[i-1].Line != t.Line
		switch {
		case t.Text == "{":
			depth++
		case t.Text == "}":
			depth--
		case depth == 1 && lineStart:
			option = t.Text
			endpoint = endpoint || option == "endpoint"
		case depth == 1 && option == "endpoint":
			t.Text = socket
		case depth == 1 && option == "credentials":
			t.Text = ""
		}
		out = append(out, t)
		if depth == 0 && t.Text == "}" {
			return out, i, endpoint
		}
	}
	return out, i - 1, endpoint
}
