package upstream

import (
	"os"
	"strings"
	"testing"

	"github.com/coredns/coredns/plugin/pkg/parse"
)

// TestMain runs every test in the removed working directory the subcommand uses.
func TestMain(m *testing.M) {
	if err := Sandbox(); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

func TestVerdicts(t *testing.T) {
	for to, want := range map[string]Verdict{
		"1.1.1.1": OK, "tls://1.1.1.1": OK, "dns://10.0.0.1:53": OK, "[2606:4700::1111]:53": OK,
		"2606:4700::1111": OK, "fe80::1%eth0": OK, "tls://[fe80::1%eth0]:853": OK, "unix:///run/dns.sock": OK,
		"tls://dns.example": Refused, "<my-dns-server>": Refused, "tls://[2606:4700::1111]": Refused,
		"resolv.conf": Refused, ".": Refused, "..": Refused, "": Refused, "tls://": Refused,
		"/etc/resolv.conf": File, "dns://./resolv.conf": File, "../../etc/resolv.conf": File,
		"1.2.3.4:/53": OK, // the port is not checked here: the IP decides
	} {
		if got := Judge(to); got.Verdict != want {
			t.Errorf("Judge(%q) = %+v, want %s", to, got, want)
		}
	}
}

// TestSlashIsNoAddressByte holds the one claim Judge makes beyond calling HostPortOrFile: a `/`
// in the address part takes the same branch as the `_` it is asked with. Only names that stay
// inside the removed working directory are asked as they are (no leading `/`, no `..`).
func TestSlashIsNoAddressByte(t *testing.T) {
	alphabet := []string{"1", "0", "f", "e", ".", ":", "[", "]", "%", "/", "_", "z"}
	prefixes := []string{"", "dns://", "tls://", "quic://", "grpc://", "https://"}
	checked := 0
	var walk func(s string, depth int)
	walk = func(s string, depth int) {
		if strings.Contains(s, "/") && !strings.HasPrefix(s, "/") && !strings.Contains(s, "..") {
			for _, p := range prefixes {
				_, errSlash := parse.HostPortOrFile(p + s)
				_, errProbe := parse.HostPortOrFile(p + strings.ReplaceAll(s, "/", "_"))
				if (errSlash == nil) != (errProbe == nil) {
					t.Errorf("%q: %v, but with `_` for `/`: %v", p+s, errSlash, errProbe)
				}
				checked++
			}
		}
		if depth == 0 {
			return
		}
		for _, c := range alphabet {
			walk(s+c, depth-1)
		}
	}
	walk("", 4)
	for _, s := range []string{"1.2.3.4:a/b", "[::1]:5/3", "fe80::1%a/b", "[fe80::1%a/b]:53", "1.2.3.4/32", "::1/128", "a/1.2.3.4"} {
		for _, p := range prefixes {
			_, errSlash := parse.HostPortOrFile(p + s)
			_, errProbe := parse.HostPortOrFile(p + strings.ReplaceAll(s, "/", "_"))
			if (errSlash == nil) != (errProbe == nil) {
				t.Errorf("%q: %v, but with `_` for `/`: %v", p+s, errSlash, errProbe)
			}
		}
	}
	if checked < 10000 {
		t.Fatalf("only %d strings checked", checked)
	}
}
