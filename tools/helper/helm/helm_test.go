package helm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chart writes a small chart: a ConfigMap per entry of .Values.configMaps and a Service whose name
// takes .Values.suffix.
func demoChart(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: demo\nversion: 1.0.0\n",
		"values.yaml": "configMaps:\n  config: {a: '1'}\nsuffix: ''\nhost: example.org\n",
		"templates/cm.yaml": "{{- range $name, $data := .Values.configMaps }}\n---\napiVersion: v1\nkind: ConfigMap\n" +
			"metadata:\n  name: {{ $.Release.Name }}-{{ $name }}\ndata: {{ toYaml $data | nindent 2 }}\n{{- end }}\n",
		"templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}{{ .Values.suffix }}\n" +
			"  labels: {host: {{ .Values.host | quote }}}\nspec: {ports: [{port: 80}]}\n",
		"templates/hook.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: hook\n  annotations: {helm.sh/hook: pre-install}\n" +
			"spec: {containers: [{name: x, image: x}]}\n",
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func release(t *testing.T, spec string) json.RawMessage {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		t.Fatal(err)
	}
	s["interval"] = "1h"
	s["chart"] = map[string]any{"spec": map[string]any{"chart": "demo"}}
	raw, err := json.Marshal(map[string]any{"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": "web", "namespace": "apps"}, "spec": s})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func names(a Answer) []string {
	var out []string
	for _, o := range a.Objects {
		out = append(out, identity(o))
	}
	return out
}

func TestRenderLeavesHooksOutAndNamesTheRelease(t *testing.T) {
	a := answer(Request{Op: "render", Chart: demoChart(t), Release: release(t, `{}`)})
	if a.Error != "" {
		t.Fatal(a.Error)
	}
	got := strings.Join(names(a), ";")
	want := "v1 ConfigMap <nil>/web-config;v1 Service <nil>/web"
	if got != want || a.Hooks != 1 || a.Chart != "demo" {
		t.Fatalf("got %s (hooks %d, chart %s), want %s", got, a.Hooks, a.Chart, want)
	}
}

func TestValuesFromAConfigMapWithATargetPathAreMergedBeforeValues(t *testing.T) {
	cm := json.RawMessage(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"vals","namespace":"apps"},"data":{"s":"-blue"}}`)
	a := answer(Request{Op: "render", Chart: demoChart(t), Objects: []json.RawMessage{cm},
		Release: release(t, `{"valuesFrom":[{"kind":"ConfigMap","name":"vals","valuesKey":"s","targetPath":"suffix"}]}`)})
	if a.Error != "" {
		t.Fatal(a.Error)
	}
	if !strings.Contains(strings.Join(names(a), ";"), "Service <nil>/web-blue") {
		t.Fatalf("valuesFrom not merged: %v", names(a))
	}
}

func TestAPostRendererPatchDeletesAnObject(t *testing.T) {
	patch := `{"postRenderers":[{"kustomize":{"patches":[{"target":{"kind":"ConfigMap"},` +
		`"patch":"$patch: delete\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: any\n"}]}}]}`
	a := answer(Request{Op: "render", Chart: demoChart(t), Release: release(t, patch)})
	if a.Error != "" {
		t.Fatal(a.Error)
	}
	if got := strings.Join(names(a), ";"); got != "v1 Service <nil>/web" {
		t.Fatalf("got %s", got)
	}
}

func TestCommonMetadataCanKeepEveryObject(t *testing.T) {
	a := answer(Request{Op: "render", Chart: demoChart(t),
		Release: release(t, `{"commonMetadata":{"annotations":{"helm.sh/resource-policy":"keep"}}}`)})
	if a.Error != "" {
		t.Fatal(a.Error)
	}
	for _, o := range a.Objects {
		if keep(o) != "keep" {
			t.Fatalf("%s is not kept", identity(o))
		}
	}
}

func TestAnUnreadableValueIsJudgedUnlessItReachesAName(t *testing.T) {
	unreadable := []ObjRef{{Kind: "Secret", Namespace: "apps", Name: "s"}}
	label := answer(Request{Op: "render", Chart: demoChart(t), Unreadable: unreadable,
		Release: release(t, `{"valuesFrom":[{"kind":"Secret","name":"s","valuesKey":"h","targetPath":"host"}]}`)})
	if label.Error != "" || label.NotJudged != "" {
		t.Fatalf("a value feeding a label decided the verdict: %+v", label)
	}
	name := answer(Request{Op: "render", Chart: demoChart(t), Unreadable: unreadable,
		Release: release(t, `{"valuesFrom":[{"kind":"Secret","name":"s","valuesKey":"x","targetPath":"suffix"}]}`)})
	if name.Error != "" || !strings.Contains(name.NotJudged, "the identity of") {
		t.Fatalf("a value feeding a name was judged: %+v", name)
	}
	whole := answer(Request{Op: "render", Chart: demoChart(t), Unreadable: unreadable,
		Release: release(t, `{"valuesFrom":[{"kind":"Secret","name":"s"}]}`)})
	if !strings.HasPrefix(whole.Error, "not judged:") {
		t.Fatalf("a whole unreadable values document was rendered: %+v", whole)
	}
}

func TestPackageIndexAndFetchFromAFolder(t *testing.T) {
	repo := t.TempDir()
	packaged := answer(Request{Op: "package", Chart: demoChart(t), Dest: repo})
	if packaged.Error != "" {
		t.Fatal(packaged.Error)
	}
	if a := answer(Request{Op: "index", Dest: repo}); a.Error != "" {
		t.Fatal(a.Error)
	}
	dest := t.TempDir()
	got := answer(Request{Op: "fetch", URL: "file://" + repo, Name: "demo", Version: "1.x", Dest: dest})
	if got.Error != "" || got.Version != "1.0.0" || got.Digest != packaged.Digest {
		t.Fatalf("fetch: %+v (packaged %s)", got, packaged.Digest)
	}
	if missing := answer(Request{Op: "fetch", URL: "file://" + repo, Name: "demo", Version: "2.x", Dest: dest}); missing.Error == "" {
		t.Fatal("a version the index does not hold was fetched")
	}
}
