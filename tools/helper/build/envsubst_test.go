package build

import (
	"reflect"
	"testing"
)

// Flux's own envsubst (github.com/fluxcd/pkg/envsubst), with kustomize-controller's mapping:
// every variable looked up is named, an unset one reads as empty, `$$` escapes.
func TestSubstituteAsPostBuildDoes(t *testing.T) {
	got := Substitute(envsubstItem{Text: "zone: ${ZONE}\nttl: ${TTL:=30}\ncost: $$5\nraw: $PLAIN", Vars: map[string]string{"ZONE": "corp.example"}})
	if got.Error != "" {
		t.Fatal(got.Error)
	}
	if want := "zone: corp.example\nttl: 30\ncost: $5\nraw: $PLAIN"; got.Output != want {
		t.Errorf("output %q, want %q", got.Output, want)
	}
	if want := []string{"ZONE", "TTL"}; !reflect.DeepEqual(got.Names, want) {
		t.Errorf("names %v, want %v", got.Names, want)
	}
	if bad := Substitute(envsubstItem{Text: "x: ${BROKEN"}); bad.Error == "" {
		t.Errorf("an unclosed ${ was accepted: %+v", bad)
	}
}
