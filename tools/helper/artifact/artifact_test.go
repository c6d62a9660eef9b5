package artifact

import (
	"reflect"
	"testing"
)

// source-controller's own rules decide (fluxcd/pkg/sourceignore): with no pattern the default
// exclusions apply (CI files, images, archives) and the VCS ones always do.
func TestKeptWithoutPatternsAppliesTheDefaults(t *testing.T) {
	res := kept(request{ID: "1", Explain: true, Files: []string{
		"clusters/prod/coredns.yaml", ".github/workflows/ci.yaml", "docs/logo.png", ".git/config", "overlays/k3s/edge/kustomization.yaml",
	}})
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	want := []string{"clusters/prod/coredns.yaml", "overlays/k3s/edge/kustomization.yaml"}
	if !reflect.DeepEqual(res.Kept, want) {
		t.Fatalf("kept %v, want %v", res.Kept, want)
	}
	if r := res.Excluded[".github/workflows/ci.yaml"]; r.File != "defaults" || r.Pattern != ".github/" {
		t.Errorf(".github/workflows/ci.yaml left out by %+v, want the defaults' .github/", r)
	}
	if r := res.Excluded[".git/config"]; r.File != "vcs" {
		t.Errorf(".git/config left out by %+v, want the VCS patterns", r)
	}
}

// A .sourceignore (and spec.ignore) replaces the defaults: the last pattern that matches
// decides, and the answer names the file and line it is written on.
func TestKeptNamesTheSourceignoreLineAndSpecIgnore(t *testing.T) {
	spec := "# from the GitRepository\n/overlays/talos/\n"
	res := kept(request{ID: "2", Explain: true, SpecIgnore: &spec,
		IgnoreFiles: map[string]string{"overlays/.sourceignore": "# notes\n*.md\n!README.md\n"},
		Files: []string{".github/workflows/ci.yaml", "overlays/notes.md", "overlays/README.md",
			"overlays/talos/coredns.yaml", "overlays/k3s/hpa.yaml", "overlays/.sourceignore"}})
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	want := []string{".github/workflows/ci.yaml", "overlays/README.md", "overlays/k3s/hpa.yaml", "overlays/.sourceignore"}
	if !reflect.DeepEqual(res.Kept, want) {
		t.Fatalf("kept %v, want %v", res.Kept, want)
	}
	if got := res.Excluded["overlays/notes.md"]; got != (rule{File: "overlays/.sourceignore", Line: 2, Pattern: "*.md"}) {
		t.Errorf("overlays/notes.md left out by %+v", got)
	}
	if got := res.Excluded["overlays/talos/coredns.yaml"]; got != (rule{File: "spec.ignore", Line: 2, Pattern: "/overlays/talos/"}) {
		t.Errorf("overlays/talos/coredns.yaml left out by %+v", got)
	}
}

// `flux push artifact` filters the folder first (VCS and image patterns by default, no
// .sourceignore read), then source-controller's defaults apply to what was pushed.
func TestKeptForAPushedFolder(t *testing.T) {
	res := kept(request{ID: "3", Push: &push{AddIgnorePaths: []string{"*.txt"}},
		Files: []string{"kustomization.yaml", "notes.txt", "logo.png", ".git/HEAD", "cm.yaml"}})
	if res.Error != "" || !res.Pushed {
		t.Fatalf("%+v", res)
	}
	if want := []string{"kustomization.yaml", "cm.yaml"}; !reflect.DeepEqual(res.Kept, want) {
		t.Fatalf("kept %v, want %v", res.Kept, want)
	}
}
