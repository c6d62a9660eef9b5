package build

// One Flux Kustomization built as kustomize-controller builds it, by calling the library
// kustomize-controller calls (github.com/fluxcd/pkg/kustomize, the version its go.mod names):
// the generator's kustomization for spec.path (targetNamespace, namePrefix/nameSuffix, patches,
// images, components, or every manifest when the path has no kustomization file), the build
// with Flux's options on Flux's secure file system, the controller's check that every object
// has apiVersion, kind and name, and postBuild substitution with substituteFrom values read
// through a client that holds the ConfigMaps and Secrets coredns-gen found for the cluster.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/coredns-gen/coredns-gen/tools/helper/secrets"

	generator "github.com/fluxcd/pkg/kustomize"
	securefs "github.com/fluxcd/pkg/kustomize/filesys"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"
)

type request struct {
	ID   string `json:"id"`
	Root string `json:"root"` // the artifact's root folder (nothing outside it is read)
	Dir  string `json:"dir"`  // spec.path inside it
	// The Flux Kustomization object (apiVersion, kind, metadata, spec) as written.
	Kustomization map[string]interface{} `json:"kustomization"`
	// The ConfigMaps and Secrets in the cluster that postBuild.substituteFrom may name.
	Objects []map[string]interface{} `json:"objects"`
}

type result struct {
	ID      string                   `json:"id"`
	Objects []map[string]interface{} `json:"objects"`
	Error   string                   `json:"error,omitempty"`
	Looks   []look                   `json:"looks"`
	Exact   bool                     `json:"exact"` // built by generator.Build itself (an openapi field was read)
}

// buildOne builds one request. It is called by one goroutine per worker process at a time:
// kustomize keeps global state (its OpenAPI schema), and Flux's own Build serialises builds.
func buildOne(req request) (res result) {
	res.ID = req.ID
	defer func() {
		if r := recover(); r != nil {
			res.Objects, res.Error = nil, fmt.Sprintf("kustomize panicked: %v", r)
		}
	}()
	m, ks, ok := kustomized(req, &res)
	if !ok {
		return res
	}
	if provider, _, _ := unstructured.NestedString(ks.Object, "spec", "decryption", "provider"); provider == "sops" {
		if err := decrypt(m); err != nil {
			res.Error = err.Error()
			return res
		}
	}
	if _, ok, _ := unstructured.NestedFieldNoCopy(ks.Object, "spec", "postBuild"); ok {
		if err := substitute(m, ks, req.Objects); err != nil {
			res.Error = err.Error()
			return res
		}
	}
	res.Objects = []map[string]interface{}{}
	for _, r := range m.Resources() {
		obj, err := r.Map()
		if err != nil {
			res.Objects, res.Error = nil, err.Error()
			return res
		}
		res.Objects = append(res.Objects, obj)
	}
	return res
}

// kustomized is kustomize-controller's build of req up to postBuild: Flux's generator, the build
// with Flux's options, the check of every object's identity. It sets res.Error (and returns
// false) when the build fails, and res.Looks and res.Exact either way.
func kustomized(req request, res *result) (resmap.ResMap, unstructured.Unstructured, bool) {
	ks := unstructured.Unstructured{Object: req.Kustomization}
	root, err := filepath.EvalSymlinks(req.Root)
	if err != nil {
		res.Error = err.Error()
		return nil, ks, false
	}
	dir := filepath.Join(root, strings.TrimPrefix(filepath.Clean(req.Dir), filepath.Clean(req.Root)))
	inner, err := securefs.MakeFsOnDiskSecureBuild(root)
	if err != nil {
		res.Error = err.Error()
		return nil, ks, false
	}
	rfs := newRecordingFS(inner, root)
	defer func() { res.Looks = rfs.sortedLooks() }()
	if !inner.IsDir(dir) {
		rfs.note("stat", dir)
		// kustomize-controller: the artifact has no such folder
		res.Error = fmt.Sprintf("kustomization path not found: .%s", filepath.ToSlash(dir[len(root):]))
		return nil, ks, false
	}
	manifest, kfile, action, err := generator.NewGenerator(root, ks).GenerateManifest(dir)
	// What the generator read: which kustomization file names exist, that file, the components
	// it checks; a generated one lists every manifest below the path (all of it matters).
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		rfs.note("stat", filepath.Join(dir, name))
	}
	if err != nil {
		rfs.note("tree", dir)
		res.Error = err.Error()
		return nil, ks, false
	}
	if action == generator.CreatedAction {
		rfs.note("tree", dir)
	} else {
		rfs.note("file", kfile)
	}
	if comps, _, _ := unstructured.NestedStringSlice(ks.Object, "spec", "components"); len(comps) > 0 {
		for _, c := range comps {
			rfs.note("stat", filepath.Join(dir, c))
		}
	}
	rfs.overlayPath, rfs.overlay = filepath.Clean(kfile), manifest

	m, exact, err := kustomizeBuild(rfs, dir)
	res.Exact = exact
	if err != nil {
		res.Error = "kustomize build failed: " + err.Error()
		return nil, ks, false
	}
	for _, r := range m.Resources() {
		if r.GetName() == "" || r.GetKind() == "" || r.GetApiVersion() == "" {
			res.Error = fmt.Sprintf("failed to decode Kubernetes apiVersion, kind and name from: %v", r.String())
			return nil, ks, false
		}
	}
	return m, ks, true
}

// kustomizeBuild is generator.Build: Flux's options, with the OpenAPI schema reset around a
// build. Resetting costs ~25 ms a build (the built-in schema is parsed again), so a build is
// first run with those same options on the schema as the last build left it, which is the
// built-in schema unless a build set its own; a build that read a kustomization file with an
// `openapi` field (the only way to set one) is run again through generator.Build itself, whose
// reset before and after restores the built-in schema for the next. Every result is therefore
// what generator.Build gives (tests/guard/test_flux_build.py holds both equal, in any order).
func kustomizeBuild(rfs *recordingFS, dir string) (resmap.ResMap, bool, error) {
	m, err := fastBuild(rfs, dir)
	if !readOpenAPI(rfs) {
		return m, false, err
	}
	m, err = generator.Build(rfs, dir)
	return m, true, err
}

func fastBuild(rfs *recordingFS, dir string) (m resmap.ResMap, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered from kustomize build panic: %v", r)
		}
	}()
	opts := &krusty.Options{
		LoadRestrictions: kustypes.LoadRestrictionsNone,
		PluginConfig:     kustypes.DisabledPluginConfig(),
	}
	return krusty.MakeKustomizer(opts).Run(rfs, dir)
}

// readOpenAPI says whether any kustomization file the build read sets `openapi`.
func readOpenAPI(rfs *recordingFS) bool {
	names := map[string]bool{}
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		names[n] = true
	}
	texts := [][]byte{rfs.overlay}
	for l := range rfs.looks {
		if l.Kind == "file" && names[filepath.Base(l.Path)] {
			if data, err := rfs.inner.ReadFile(filepath.Join(rfs.root, filepath.FromSlash(l.Path))); err == nil {
				texts = append(texts, data)
			}
		}
	}
	for _, data := range texts {
		if !bytes.Contains(data, []byte("openapi")) {
			continue
		}
		var doc map[string]interface{}
		if yaml.Unmarshal(data, &doc) != nil {
			return true // unreadable here: let generator.Build decide
		}
		if _, ok := doc["openapi"]; ok {
			return true
		}
	}
	return false
}

// decryptKey is read once per process from the environment (secrets.FromEnvironment).
var decryptKey = sync.OnceValues(secrets.FromEnvironment)

// decrypt is kustomize-controller's DecryptResource on every object of a build whose
// spec.decryption.provider is sops, before postBuild (its build() order): an object with SOPS
// metadata, unless annotated `kustomize.toolkit.fluxcd.io/decrypt: disabled`, is decrypted, each
// value as its token (tools/helper/secrets). Without a key given nothing is decrypted, and the
// guard judges as it does without one (gen/guard/flux/unread.py).
func decrypt(m resmap.ResMap) error {
	keys, err := decryptKey()
	if errors.Is(err, secrets.ErrNoKey) {
		return nil
	}
	for _, r := range m.Resources() {
		if strings.EqualFold(r.GetAnnotations()[decryptKeyAnnotation], generator.DisabledValue) {
			continue
		}
		obj, mapErr := r.Map()
		if mapErr != nil || !secrets.IsEncrypted(obj) {
			continue
		}
		if err != nil {
			return fmt.Errorf("decryption failed for '%s/%s': %w", r.GetGvk(), r.GetName(), err)
		}
		out, _, err := keys.Tokenized(obj)
		if err != nil {
			return fmt.Errorf("decryption failed for '%s/%s': failed to decrypt and format '%s/%s' %s data: %w",
				r.GetGvk(), r.GetName(), r.GetNamespace(), r.GetName(), r.GetKind(), err)
		}
		data, err := json.Marshal(out)
		if err != nil {
			return err
		}
		if err := r.UnmarshalJSON(data); err != nil {
			return err
		}
		if _, err := m.Replace(r); err != nil {
			return err
		}
	}
	return nil
}

// decryptKeyAnnotation is the key kustomize-controller reads to leave an object encrypted
// (its decryptor's IsDecryptionDisabled).
const decryptKeyAnnotation = "kustomize.toolkit.fluxcd.io/decrypt"

// substitute runs Flux's postBuild on every object, as kustomize-controller does.
func substitute(m resmap.ResMap, ks unstructured.Unstructured, objects []map[string]interface{}) error {
	kube, err := clusterObjects(objects)
	if err != nil {
		return err
	}
	strategy, _, _ := unstructured.NestedString(ks.Object, "spec", "postBuild", "substituteStrategy")
	for _, r := range m.Resources() {
		out, err := generator.SubstituteVariables(context.Background(), kube, ks, r,
			generator.SubstituteWithStrict(false), generator.SubstituteWithAlways(strategy == "Always"))
		if err != nil {
			return fmt.Errorf("post build failed for '%s/%s': %w", r.GetGvk(), r.GetName(), err)
		}
		if out != nil {
			if _, err := m.Replace(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// clusterObjects is a client holding the ConfigMaps and Secrets given, as the API server keeps
// them (a Secret's stringData merged into data, which is how the controller reads it).
func clusterObjects(objects []map[string]interface{}) (client.Client, error) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	var typed []client.Object
	for _, obj := range objects {
		switch obj["kind"] {
		case "ConfigMap":
			cm := &corev1.ConfigMap{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, cm); err != nil {
				return nil, fmt.Errorf("substituteFrom ConfigMap: %w", err)
			}
			typed = append(typed, cm)
		case "Secret":
			secret := &corev1.Secret{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, secret); err != nil {
				return nil, fmt.Errorf("substituteFrom Secret: %w", err)
			}
			if len(secret.StringData) > 0 {
				if secret.Data == nil {
					secret.Data = map[string][]byte{}
				}
				for k, v := range secret.StringData {
					secret.Data[k] = []byte(v)
				}
				secret.StringData = nil
			}
			typed = append(typed, secret)
		}
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(typed...).Build(), nil
}
