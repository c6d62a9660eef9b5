// Package upstream answers "does CoreDNS's forward accept this TO?" with CoreDNS's own
// plugin/pkg/parse.HostPortOrFile (github.com/coredns/coredns v1.13.1, the release of the
// binary CI tests against), so lint never judges an upstream with a model of it.
//
// Protocol: one JSON request per stdin line, one JSON answer per stdout line (tools/helper/lines).
//
//	{"upstreams": ["tls://1.1.1.1", "dns.example", "/etc/resolv.conf", ...]}
//	-> {"results": [{"verdict": "ok"}, {"verdict": "refused", "error": "not an IP address or file: \"dns.example\""},
//	                {"verdict": "file"}, ...]}
//
// ok: HostPortOrFile accepts it. refused: it refuses it wherever CoreDNS runs; error is its own
// message. file: it would read the TO as a resolv.conf-style file whose name has a `/`, a file on
// the node or in the pod that only the cluster can judge.
//
// The helper never reads this machine's files to decide. HostPortOrFile opens a file only for a
// TO that is no IP address; it runs here in a working directory that was emptied and removed
// before the first request (and so was its parent), so a name without `/` finds nothing (`.` and
// `..` are removed empty directories: no nameserver either), as a bare word finds no resolv.conf
// in CoreDNS's own working directory. A TO whose address part has a `/` is asked with each `/`
// as `_`: neither byte is part of an IP address, a zone, a port separator or a bracket, so
// net.SplitHostPort, net.ParseIP and stripZone take the same branches for both (upstream_test.go
// holds this on generated strings), and the file HostPortOrFile would open is a name in the
// removed directory; when it takes that branch the answer is `file`, never a verdict.
package upstream

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/coredns/coredns/plugin/pkg/parse"
	"github.com/coredns/coredns/plugin/pkg/transport"

	"github.com/coredns-gen/coredns-gen/tools/helper/lines"
)

// Module is the CoreDNS module whose parse package this links; go.mod pins its version.
const Module = "github.com/coredns/coredns"

// Release is the version of Module this binary was built with ("" when it cannot say).
func Release() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == Module {
				return dep.Version
			}
		}
	}
	return ""
}

// Verdict is HostPortOrFile's answer for one TO.
type Verdict string

const (
	OK      Verdict = "ok"
	Refused Verdict = "refused"
	File    Verdict = "file"
)

type request struct {
	Upstreams []string `json:"upstreams"`
}

type result struct {
	Verdict Verdict `json:"verdict"`
	Error   string  `json:"error,omitempty"`
}

type answer struct {
	Results []result `json:"results"`
}

// Judge asks HostPortOrFile about one TO. The working directory must be an empty one (Sandbox).
func Judge(to string) result {
	trans, host := parse.Transport(to)
	probe, slash := to, trans != transport.UNIX && strings.Contains(host, "/")
	if slash {
		probe = to[:len(to)-len(host)] + strings.ReplaceAll(host, "/", "_")
	}
	_, err := parse.HostPortOrFile(probe)
	switch {
	case err == nil:
		return result{Verdict: OK}
	case slash:
		// the only refusal of a non-empty address is the file branch's "not an IP address or file"
		return result{Verdict: File}
	default:
		return result{Verdict: Refused, Error: err.Error()}
	}
}

// Sandbox makes the working directory an empty directory inside another, both removed, so a
// relative name HostPortOrFile opens finds nothing on this machine (`..` is the removed parent).
func Sandbox() error {
	parent, err := os.MkdirTemp("", "coredns-gen-upstream-")
	if err != nil {
		return err
	}
	dir := filepath.Join(parent, "cwd")
	if err := os.Mkdir(dir, 0o700); err != nil {
		_ = os.Remove(parent)
		return err
	}
	if err := os.Chdir(dir); err != nil {
		_ = os.Remove(dir)
		_ = os.Remove(parent)
		return err
	}
	if err := os.Remove(dir); err != nil {
		return err
	}
	return os.Remove(parent)
}

// Main serves requests until stdin closes.
func Main(args []string) {
	if len(args) == 1 && args[0] == "-version" {
		fmt.Printf("upstreams 1 (%s %s plugin/pkg/parse.HostPortOrFile)\n", Module, Release())
		return
	}
	if err := Sandbox(); err != nil {
		fmt.Fprintln(os.Stderr, "coredns-gen-helper upstreams: no empty working directory:", err)
		os.Exit(3)
	}
	lines.Serve(os.Stdin, os.Stdout, func(req request) answer {
		ans := answer{Results: make([]result, len(req.Upstreams))}
		for i, to := range req.Upstreams {
			ans.Results[i] = Judge(to)
		}
		return ans
	})
}
