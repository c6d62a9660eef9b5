package build

// Which variables a Flux Kustomization's postBuild substitutes in its build, read by Flux's own
// parser. The guard asks this of a Kustomization whose `substituteFrom` sources it cannot read
// (a SOPS-encrypted Secret, one the repository does not hold): if no object it builds uses a
// variable those sources may set, judging it without them is exact; otherwise it is built again
// with placeholders for them (gen/guard/flux/unread.py).
//
// `coredns-gen-helper vars` reads the build's requests (flux.go's request), one per line, and
// answers {id, vars, error} per line: the names every `${...}` of every object names, as
// github.com/fluxcd/pkg/envsubst (what kustomize-controller's SubstituteVariables runs on each
// object's YAML) calls its mapping for them, skipping the objects Flux skips (labelled or
// annotated `kustomize.toolkit.fluxcd.io/substitute: disabled`).

import (
	"fmt"
	"github.com/coredns-gen/coredns-gen/tools/helper/lines"
	"os"
	"sort"

	"github.com/fluxcd/pkg/envsubst"
	generator "github.com/fluxcd/pkg/kustomize"
)

// substituteKey is the key Flux reads on an object to skip its substitution
// (fluxcd/pkg/kustomize kustomize_varsub.go, substituteAnnotationKey).
const substituteKey = "kustomize.toolkit.fluxcd.io/substitute"

type varsResult struct {
	ID    string   `json:"id"`
	Vars  []string `json:"vars"`
	Error string   `json:"error,omitempty"`
}

// VarsMain serves `coredns-gen-helper vars`.
func VarsMain(args []string) {
	lines.Serve(os.Stdin, os.Stdout, referenced)
}

// referenced builds req as kustomize-controller does up to postBuild and names the variables
// its substitution would look up.
func referenced(req request) (out varsResult) {
	out.ID = req.ID
	out.Vars = []string{}
	defer func() {
		if r := recover(); r != nil {
			out.Vars, out.Error = nil, fmt.Sprintf("kustomize panicked: %v", r)
		}
	}()
	var res result
	m, _, ok := kustomized(req, &res)
	if !ok {
		out.Vars, out.Error = nil, res.Error
		return out
	}
	names := map[string]bool{}
	for _, r := range m.Resources() {
		if r.GetLabels()[substituteKey] == generator.DisabledValue || r.GetAnnotations()[substituteKey] == generator.DisabledValue {
			continue
		}
		data, err := r.AsYAML()
		if err != nil {
			out.Vars, out.Error = nil, err.Error()
			return out
		}
		if _, err := envsubst.Eval(string(data), func(name string) (string, bool) {
			names[name] = true
			return "", true
		}); err != nil {
			out.Vars, out.Error = nil, fmt.Sprintf("variable substitution failed for '%s/%s': %v", r.GetGvk(), r.GetName(), err)
			return out
		}
	}
	for name := range names {
		out.Vars = append(out.Vars, name)
	}
	sort.Strings(out.Vars)
	return out
}
