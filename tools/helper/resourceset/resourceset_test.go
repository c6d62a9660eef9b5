package resourceset

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// operator is the Flux Operator CLI these tests render with: $COREDNS_GEN_FLUX_OPERATOR (.ci/run
// sets it to the one the guard runs); a desk without it skips, CI (CI=true) fails.
func operator(t *testing.T) string {
	t.Helper()
	cli := os.Getenv(BinaryEnv)
	if cli == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI renders with the real Flux Operator CLI (tools/flux-operator)", BinaryEnv)
		}
		t.Skipf("%s is not set (the Flux Operator CLI built from tools/flux-operator)", BinaryEnv)
	}
	return cli
}

const resourceSet = `{"apiVersion": "fluxcd.controlplane.io/v1", "kind": "ResourceSet",
 "metadata": {"name": "dns", "namespace": "flux-system"},
 "spec": {"inputs": [{"zone": "corp.example"}, {"zone": "lab.example"}],
  "resources": [{"apiVersion": "v1", "kind": "ConfigMap",
   "metadata": {"name": "<< inputs.zone | slugify >>", "namespace": "kube-system"},
   "data": {"zone": "<< inputs.zone >>"}}]}}`

// The Flux Operator's own builder: one object per input, its templates filled in.
func TestRenderGeneratesOneObjectPerInput(t *testing.T) {
	res := render(operator(t), request{ID: "1", ResourceSet: json.RawMessage(resourceSet)})
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	if len(res.Objects) != 2 {
		t.Fatalf("objects %v", res.Objects)
	}
	names := []string{}
	for _, obj := range res.Objects {
		names = append(names, obj["metadata"].(map[string]any)["name"].(string))
	}
	if got := strings.Join(names, " "); got != "corp-example lab-example" {
		t.Errorf("names %q", got)
	}
}

// A template the builder refuses is its own error, not objects.
func TestRenderReportsTheBuildersError(t *testing.T) {
	broken := strings.Replace(resourceSet, "<< inputs.zone >>", "<< inputs.zone ", 1)
	res := render(operator(t), request{ID: "2", ResourceSet: json.RawMessage(broken)})
	if res.Error == "" || len(res.Objects) != 0 {
		t.Fatalf("a broken template rendered: %+v", res)
	}
}
