package build

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func kustomization(spec map[string]interface{}) map[string]interface{} {
	return map[string]interface{}{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
		"metadata": map[string]interface{}{"name": "dns", "namespace": "flux-system"},
		"spec":     spec,
	}
}

const configMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns-custom
  namespace: kube-system
data:
  zone.server: |
    ${ZONE}:53 { forward . ${RESOLVER} }
`

// Flux's own build (fluxcd/pkg/kustomize): the generator, the build, then postBuild's
// substitution from spec.postBuild.substitute and a ConfigMap named in substituteFrom.
func TestBuildOneBuildsAndSubstitutesAsKustomizeControllerDoes(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"dns/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\n",
		"dns/cm.yaml":            configMap,
	})
	res := buildOne(request{ID: "1", Root: root, Dir: filepath.Join(root, "dns"),
		Kustomization: kustomization(map[string]interface{}{"path": "./dns", "postBuild": map[string]interface{}{
			"substitute":     map[string]interface{}{"ZONE": "corp.example"},
			"substituteFrom": []interface{}{map[string]interface{}{"kind": "ConfigMap", "name": "vars"}},
		}}),
		Objects: []map[string]interface{}{{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]interface{}{"name": "vars", "namespace": "flux-system"},
			"data":     map[string]interface{}{"RESOLVER": "10.0.0.53"}}},
	})
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	if len(res.Objects) != 1 {
		t.Fatalf("objects %v", res.Objects)
	}
	data := res.Objects[0]["data"].(map[string]interface{})
	if got, want := data["zone.server"], "corp.example:53 { forward . 10.0.0.53 }\n"; got != want {
		t.Errorf("zone.server %q, want %q", got, want)
	}
	if len(res.Looks) == 0 {
		t.Errorf("no looks recorded: the guard learns what a build read from them")
	}
}

// A build that reads outside its root fails as Flux's secure file system makes it fail.
func TestBuildOneRefusesAFileOutsideTheRoot(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write(t, outside, map[string]string{"cm.yaml": configMap})
	write(t, root, map[string]string{"dns/kustomization.yaml": "resources: [" + filepath.Join(outside, "cm.yaml") + "]\n"})
	res := buildOne(request{ID: "2", Root: root, Dir: filepath.Join(root, "dns"), Kustomization: kustomization(map[string]interface{}{"path": "./dns"})})
	if res.Error == "" || res.Objects != nil {
		t.Fatalf("a read outside the root was built: %+v", res)
	}
}

// vars names what postBuild's substitution would look up, skipping objects Flux skips.
func TestReferencedNamesTheVariablesFluxWouldSubstitute(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"dns/kustomization.yaml": "resources: [cm.yaml, skipped.yaml]\n",
		"dns/cm.yaml":            configMap,
		"dns/skipped.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: skipped\n  annotations:\n" +
			"    kustomize.toolkit.fluxcd.io/substitute: disabled\ndata:\n  x: ${NEVER}\n",
	})
	got := referenced(request{ID: "3", Root: root, Dir: filepath.Join(root, "dns"),
		Kustomization: kustomization(map[string]interface{}{"path": "./dns", "postBuild": map[string]interface{}{}})})
	if got.Error != "" {
		t.Fatal(got.Error)
	}
	if want := []string{"RESOLVER", "ZONE"}; !reflect.DeepEqual(got.Vars, want) {
		t.Errorf("vars %v, want %v", got.Vars, want)
	}
}
