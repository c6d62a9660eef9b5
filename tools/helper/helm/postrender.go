package helm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"helm.sh/helm/v4/pkg/postrenderer"
	"sigs.k8s.io/kustomize/api/krusty"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/resid"

	v2 "github.com/fluxcd/helm-controller/api/v2"
)

// postRenderers is what helm-controller runs after Helm renders (its internal/postrender
// BuildPostRenderers, read for this): each spec.postRenderers[].kustomize in order (patches and
// images, by kustomize's own build), then spec.commonMetadata's labels and annotations on every
// object, then the labels naming the HelmRelease. A patch may delete an object
// (`$patch: delete`), and commonMetadata may annotate every object `helm.sh/resource-policy: keep`:
// both change what an upgrade deletes, so both run here.
func postRenderers(hr *v2.HelmRelease) postrenderer.PostRenderer {
	var chain []postrenderer.PostRenderer
	for _, r := range hr.Spec.PostRenderers {
		if r.Kustomize != nil {
			chain = append(chain, &kustomizeRenderer{spec: r.Kustomize})
		}
	}
	labels := map[string]string{}
	annotations := map[string]string{}
	if cm := hr.Spec.CommonMetadata; cm != nil {
		for k, v := range cm.Labels {
			labels[k] = v
		}
		for k, v := range cm.Annotations {
			annotations[k] = v
		}
	}
	// the origin labels win over commonMetadata's (helm-controller adds them last)
	labels[v2.GroupVersion.Group+"/name"] = hr.Name
	labels[v2.GroupVersion.Group+"/namespace"] = hr.Namespace
	chain = append(chain, &metadataRenderer{labels: labels, annotations: annotations})
	return chainRenderer(chain)
}

type chainRenderer []postrenderer.PostRenderer

func (c chainRenderer) Run(in *bytes.Buffer) (*bytes.Buffer, error) {
	out := in
	for _, r := range c {
		var err error
		if out, err = r.Run(out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// kustomizeRenderer runs one post-renderer's patches and images through kustomize's own build on an
// in-memory file system, the rendered manifest its only resource.
type kustomizeRenderer struct {
	spec *v2.Kustomize
}

// kustomize keeps global state while it builds (the helper's build package builds one at a time
// per process for the same reason)
var kustomizeMu sync.Mutex

func (k *kustomizeRenderer) Run(in *bytes.Buffer) (*bytes.Buffer, error) {
	fs := filesys.MakeFsInMemory()
	cfg := kustypes.Kustomization{
		TypeMeta:  kustypes.TypeMeta{APIVersion: kustypes.KustomizationVersion, Kind: kustypes.KustomizationKind},
		Resources: []string{"helm-output.yaml"},
	}
	for _, img := range k.spec.Images {
		cfg.Images = append(cfg.Images, kustypes.Image{Name: img.Name, NewName: img.NewName, NewTag: img.NewTag,
			Digest: img.Digest})
	}
	for _, p := range k.spec.Patches {
		patch := kustypes.Patch{Patch: p.Patch}
		if t := p.Target; t != nil {
			patch.Target = &kustypes.Selector{
				ResId:              resIDOf(t.Group, t.Version, t.Kind, t.Name, t.Namespace),
				LabelSelector:      t.LabelSelector,
				AnnotationSelector: t.AnnotationSelector,
			}
		}
		cfg.Patches = append(cfg.Patches, patch)
	}
	doc, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	if err := fs.WriteFile("helm-output.yaml", in.Bytes()); err != nil {
		return nil, err
	}
	if err := fs.WriteFile("kustomization.yaml", doc); err != nil {
		return nil, err
	}
	kustomizeMu.Lock()
	defer kustomizeMu.Unlock()
	opts := &krusty.Options{LoadRestrictions: kustypes.LoadRestrictionsNone, PluginConfig: kustypes.DisabledPluginConfig()}
	resources, err := krusty.MakeKustomizer(opts).Run(fs, ".")
	if err != nil {
		return nil, fmt.Errorf("postRenderers kustomize: %w", err)
	}
	out, err := resources.AsYaml()
	if err != nil {
		return nil, err
	}
	return bytes.NewBuffer(out), nil
}

// metadataRenderer sets labels and annotations on every object of the manifest.
type metadataRenderer struct {
	labels, annotations map[string]string
}

func (m *metadataRenderer) Run(in *bytes.Buffer) (*bytes.Buffer, error) {
	nodes, err := kio.FromBytes(in.Bytes())
	if err != nil {
		return nil, fmt.Errorf("the rendered manifest does not read as YAML: %w", err)
	}
	for _, node := range nodes {
		if len(m.labels) > 0 {
			labels := node.GetLabels()
			for k, v := range m.labels {
				labels[k] = v
			}
			if err := node.SetLabels(labels); err != nil {
				return nil, err
			}
		}
		if len(m.annotations) > 0 {
			annotations := node.GetAnnotations()
			for k, v := range m.annotations {
				annotations[k] = v
			}
			if err := node.SetAnnotations(annotations); err != nil {
				return nil, err
			}
		}
	}
	out, err := kio.StringAll(nodes)
	if err != nil {
		return nil, err
	}
	return bytes.NewBufferString(out), nil
}

func resIDOf(group, version, kind, name, namespace string) resid.ResId {
	return resid.ResId{Gvk: resid.Gvk{Group: group, Version: version, Kind: kind}, Name: name, Namespace: namespace}
}
