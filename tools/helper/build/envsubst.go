package build

// Strings substituted by Flux's own parser, as kustomize-controller's postBuild runs it on each
// object's YAML (fluxcd/pkg/kustomize varSubstitution: github.com/fluxcd/pkg/envsubst Eval with a
// mapping that answers every name, an unset one as ""). gen/fluxvars.py accepts a subset of
// Flux's syntax (`${NAME}`, `${NAME:=default}`) and substitutes it itself; its tests ask this to
// hold that subset equal to Flux on generated strings.
//
// `coredns-gen-helper envsubst` reads one request per line and answers one per line:
//
//	{"items": [{"text": "a ${A:=b}", "vars": {"A": "x"}}, ...]}
//	-> {"results": [{"names": ["A"], "output": "a x"}, ...]}
//
// names are the names Flux's substitution looked up, in order; error is Flux's own for a text
// its parser refuses (then output is empty).

import (
	"os"

	"github.com/fluxcd/pkg/envsubst"

	"github.com/coredns-gen/coredns-gen/tools/helper/lines"
)

type envsubstItem struct {
	Text string            `json:"text"`
	Vars map[string]string `json:"vars"`
}

type envsubstRequest struct {
	Items []envsubstItem `json:"items"`
}

type envsubstResult struct {
	Names  []string `json:"names"`
	Output string   `json:"output"`
	Error  string   `json:"error,omitempty"`
}

type envsubstAnswer struct {
	Results []envsubstResult `json:"results"`
}

// Substitute runs Flux's envsubst on one text with kustomize-controller's non-strict mapping.
func Substitute(item envsubstItem) envsubstResult {
	out := envsubstResult{Names: []string{}}
	output, err := envsubst.Eval(item.Text, func(name string) (string, bool) {
		out.Names = append(out.Names, name)
		return item.Vars[name], true
	})
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Output = output
	return out
}

// EnvsubstMain serves `coredns-gen-helper envsubst`.
func EnvsubstMain(args []string) {
	lines.Serve(os.Stdin, os.Stdout, func(req envsubstRequest) envsubstAnswer {
		ans := envsubstAnswer{Results: make([]envsubstResult, len(req.Items))}
		for i, item := range req.Items {
			ans.Results[i] = Substitute(item)
		}
		return ans
	})
}
