// coredns-gen-corefile: the part of coredns-gen-helper that render and lint's static checks ask,
// on its own so that `pip install` builds it in a minute from empty Go caches (CoreDNS's parser,
// forward's upstream parser, the stock plugins' setups, source-controller's ignore rules) and
// never waits for Flux's build and the Kubernetes API machinery the guard needs (../../main.go).
//
//	corefile  Corefile texts read by CoreDNS's own Caddyfile lexer and parser (corefile/)
//	artifact  which files of a revision source-controller puts in a GitRepository's artifact (artifact/)
package main

import (
	"github.com/coredns-gen/coredns-gen/tools/helper/artifact"
	"github.com/coredns-gen/coredns-gen/tools/helper/corefile"
	"github.com/coredns-gen/coredns-gen/tools/helper/subcommands"
)

func main() {
	subcommands.Run("coredns-gen-corefile", subcommands.Table{
		"corefile": corefile.Main,
		"artifact": artifact.Main,
	})
}
