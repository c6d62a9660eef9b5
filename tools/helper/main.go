// coredns-gen-helper: the real systems' own code, called for coredns-gen's Python side.
//
// Why a helper: the guard must build Flux Kustomizations exactly as kustomize-controller does
// and lint must read Corefiles exactly as CoreDNS does; both are Go libraries, so one Go program
// links them and answers JSON lines on stdin/stdout. Subcommands:
//
//	build     Flux Kustomization builds, many per process (build/)
//	vars      which variables a Flux Kustomization's postBuild would substitute in its build (build/vars.go)
//	envsubst  strings substituted by Flux's own envsubst as postBuild runs it (build/envsubst.go)
//	helm      HelmReleases rendered with Helm's own library as helm-controller renders them, charts
//	          fetched as source-controller fetches them (helm/)
//	resourceset  Flux Operator ResourceSets rendered by the Flux Operator's own CLI (resourceset/)
//	corefile  Corefile texts read by CoreDNS's own Caddyfile lexer and parser (corefile/), and
//	          forward TOs by CoreDNS's own HostPortOrFile (upstream/)
//	artifact  which files of a revision source-controller puts in a GitRepository's artifact (artifact/)
//	sops      SOPS-encrypted Secrets decrypted as kustomize-controller decrypts them, each value
//	          handed back as a token, never as itself (secrets/)
//
// The last two are also coredns-gen-corefile (cmd/coredns-gen-corefile), the small program
// `pip install` builds for render and lint; this one links Flux's build and the Kubernetes API
// machinery, and is built when the guard first needs it (gen/helperbuild.py).
package main

import (
	"github.com/coredns-gen/coredns-gen/tools/helper/artifact"
	"github.com/coredns-gen/coredns-gen/tools/helper/build"
	"github.com/coredns-gen/coredns-gen/tools/helper/corefile"
	"github.com/coredns-gen/coredns-gen/tools/helper/helm"
	"github.com/coredns-gen/coredns-gen/tools/helper/resourceset"
	"github.com/coredns-gen/coredns-gen/tools/helper/secrets"
	"github.com/coredns-gen/coredns-gen/tools/helper/subcommands"
)

func main() {
	subcommands.Run("coredns-gen-helper", subcommands.Table{
		"build":       build.Main,
		"vars":        build.VarsMain,
		"envsubst":    build.EnvsubstMain,
		"helm":        helm.Main,
		"resourceset": resourceset.Main,
		"corefile":    corefile.Main,
		"artifact":    artifact.Main,
		"sops":        secrets.Main,
	})
}
