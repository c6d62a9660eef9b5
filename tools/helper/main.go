// coredns-gen-helper: the real systems' own code, called for coredns-gen's Python side.
//
// Why a helper: the guard must build Flux Kustomizations exactly as kustomize-controller does
// and lint must read Corefiles exactly as CoreDNS does; both are Go libraries, so one Go program
// links them and answers JSON lines on stdin/stdout. Subcommands:
//
//	build     Flux Kustomization builds, many per process (build/)
//	corefile  Corefile texts read by CoreDNS's own Caddyfile lexer and parser (corefile/), and
//	          forward TOs by CoreDNS's own HostPortOrFile (upstream/)
//	artifact  which files of a revision source-controller puts in a GitRepository's artifact (artifact/)
//	vars      which variables a Flux Kustomization's postBuild would substitute in its build (build/vars.go)
//	envsubst  strings substituted by Flux's own envsubst as postBuild runs it (build/envsubst.go)
//	helm      HelmReleases rendered with Helm's own library as helm-controller renders them, charts
//	          fetched as source-controller fetches them (helm/)
//	resourceset  Flux Operator ResourceSets rendered by the Flux Operator's own CLI (resourceset/)
package main

import (
	"fmt"
	"os"

	"github.com/coredns-gen/coredns-gen/tools/helper/artifact"
	"github.com/coredns-gen/coredns-gen/tools/helper/build"
	"github.com/coredns-gen/coredns-gen/tools/helper/corefile"
	"github.com/coredns-gen/coredns-gen/tools/helper/helm"
	"github.com/coredns-gen/coredns-gen/tools/helper/resourceset"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: coredns-gen-helper build|vars|envsubst|corefile|artifact|helm|resourceset [flags]")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "build":
		build.Main(os.Args[2:])
	case "vars":
		build.VarsMain(os.Args[2:])
	case "envsubst":
		build.EnvsubstMain(os.Args[2:])
	case "artifact":
		artifact.Main(os.Args[2:])
	case "corefile":
		corefile.Main(os.Args[2:])
	case "helm":
		helm.Main(os.Args[2:])
	case "resourceset":
		resourceset.Main(os.Args[2:])
	default:
		fmt.Fprintf(os.Stderr, "coredns-gen-helper: unknown subcommand %q\n", os.Args[1])
		os.Exit(2)
	}
}
