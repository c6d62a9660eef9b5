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
// file is the pod's, judged only by `coredns-gen lint --load`.
var Judged = map[string]bool{
	"acl": true, "any": true, "autopath": true, "bufsize": true, "cache": true, "cancel": true,
	"chaos": true, "debug": true, "dns64": true, "errors": true, "forward": true, "grpc": true,
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

// Judge runs the plugin's setup on the request's tokens.
func Judge(r Request) (res Result) {
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
	defer shutDown(c)
	if err := action(c); err != nil {
		return Result{Verdict: "refused", Error: err.Error()}
	}
	return Result{Verdict: "ok"}
}

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
	if plugin != "forward" && plugin != "grpc" && plugin != "autopath" {
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
