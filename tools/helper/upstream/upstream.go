// Package upstream answers "does CoreDNS's forward accept this TO?" with CoreDNS's own
// plugin/pkg/parse.HostPortOrFile (github.com/coredns/coredns v1.13.1, the release of the
// binary CI tests against), so lint never judges an upstream with a model of it.
//
// The `corefile` subcommand answers with it (tools/helper/corefile), so a lint run asks the process
// it already has: each TO gets {"verdict": "ok"}, {"verdict": "refused", "error": "not an IP
// address or file: \"dns.example\""} or {"verdict": "file"}.
//
// ok: HostPortOrFile accepts it. refused: it refuses it (a bare word as CoreDNS does from its
// working directory, where no file has that name); error is its own message. file: it would read the TO as a resolv.conf-style file whose name has a `/`, a file on
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
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/coredns/coredns/plugin/pkg/parse"
	"github.com/coredns/coredns/plugin/pkg/transport"
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

// Result is one TO's answer.
type Result struct {
	Verdict Verdict `json:"verdict"`
	Error   string  `json:"error,omitempty"`
}

// NamesFile tells whether HostPortOrFile would read TO as a file of the machine it runs on: an
// address part with a `/` (no IP address, zone or port has one), not a unix:// socket.
func NamesFile(to string) bool {
	trans, host := parse.Transport(to)
	return trans != transport.UNIX && strings.Contains(host, "/")
}

// Judge asks HostPortOrFile about one TO. The working directory must be an empty one (Sandbox).
func Judge(to string) Result {
	_, host := parse.Transport(to)
	probe, slash := to, NamesFile(to)
	if slash {
		probe = to[:len(to)-len(host)] + strings.ReplaceAll(host, "/", "_")
	}
	_, err := parse.HostPortOrFile(probe)
	switch {
	case err == nil:
		return Result{Verdict: OK}
	case slash:
		// the only refusal of a non-empty address is the file branch's "not an IP address or file"
		return Result{Verdict: File}
	default:
		return Result{Verdict: Refused, Error: err.Error()}
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
