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
	"reflect"
	"strings"
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
)

// Judged are the directives whose setup this package runs (the imports above register them).
// Each reads only its tokens: `hosts` stats its file but only warns when it is missing, `forward`
// and `grpc` read files only for a `tls` option with arguments (the caller leaves those out).
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
	c := caddy.NewTestController("dns", "")
	c.Dispenser = caddyfile.NewDispenser("Corefile", strings.NewReader(r.Text))
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
