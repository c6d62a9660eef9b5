// Package markercheck holds the guard's model of Flux's prune and skip markers (gen/guard/model.py)
// against the real code: kustomize-controller's api constants, from which the controller builds its
// selectors, and fluxcd/pkg/ssa's AnyInMetadata, which matches an object's metadata against them.
// Both sides read tests/data/flux-markers/cases.json; tests/guard/test_flux_markers.py holds the
// Python model to the same table.
package markercheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	ssautils "github.com/fluxcd/pkg/ssa/utils"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

type table struct {
	Selectors map[string]map[string]string `json:"selectors"`
	Cases     []struct {
		Name        string            `json:"name"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
		Matches     []string          `json:"matches"`
	} `json:"cases"`
}

func read(t *testing.T) table {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "tests", "data", "flux-markers", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out table
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// controllerSelectors are kustomize-controller v1.10.1's, written as its
// internal/controller/kustomization_controller.go writes them (apply options and deleteObjects).
func controllerSelectors() map[string]map[string]string {
	group := kustomizev1.GroupVersion.Group
	return map[string]map[string]string{
		"orphaning": {
			fmt.Sprintf("%s/prune", group):     kustomizev1.DisabledValue,
			fmt.Sprintf("%s/reconcile", group): kustomizev1.DisabledValue,
			fmt.Sprintf("%s/ssa", group):       kustomizev1.IgnoreValue,
		},
		"apply_excluded": {
			fmt.Sprintf("%s/reconcile", group): kustomizev1.DisabledValue,
			fmt.Sprintf("%s/ssa", group):       kustomizev1.IgnoreValue,
		},
		"apply_if_not_present": {
			fmt.Sprintf("%s/ssa", group): kustomizev1.IfNotPresentValue,
		},
	}
}

func TestTheTablesSelectorsAreTheControllers(t *testing.T) {
	if got, want := read(t).Selectors, controllerSelectors(); !reflect.DeepEqual(got, want) {
		t.Fatalf("tests/data/flux-markers/cases.json selectors = %v, kustomize-controller's = %v", got, want)
	}
}

func TestEachCaseMatchesAsSsaMatchesIt(t *testing.T) {
	tab := read(t)
	if len(tab.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range tab.Cases {
		obj := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMap"}}
		obj.SetName("coredns")
		obj.SetNamespace("kube-system")
		if c.Labels != nil {
			obj.SetLabels(c.Labels)
		}
		if c.Annotations != nil {
			obj.SetAnnotations(c.Annotations)
		}
		var got []string
		for name, selector := range tab.Selectors {
			if ssautils.AnyInMetadata(obj, selector) {
				got = append(got, name)
			}
		}
		want := append([]string{}, c.Matches...)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: ssa matches %v, the table says %v", c.Name, got, want)
		}
	}
}
