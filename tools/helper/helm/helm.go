// Package helm renders HelmReleases with Helm's own library, as helm-controller does, and fetches
// charts as source-controller does.
//
// Why: helm-controller's upgrade deletes every object of the old release that the new manifest no
// longer holds. The guard can only say what an upgrade deletes if it renders the release exactly
// as the controller will: the same Helm (helm.sh/helm/v4, the version helm-controller v1.6 links),
// the same values merge (fluxcd/pkg/chartutil ChartValuesFromReferences, which helm-controller
// calls), the same HelmRelease API (its own Go types: release name and namespace), the same
// post-renderers. `coredns-gen-helper helm` reads one JSON request per line and answers one per
// line (lines/), like the other subcommands. Operations:
//
//	render   a chart (folder or .tgz) for one HelmRelease: the manifest's objects, hooks left out
//	fetch    a chart from an HTTP chart repository (index.yaml) or an OCI registry, into a folder
//	package  a chart folder into a .tgz (Helm's own packaging; the tests and `charts` use it)
//	push     a packaged chart into an OCI registry (the tests' local registry)
//	index    the index.yaml of a folder of packaged charts (a chart repository, a mirror)
//
// Nothing here is written but what fetch and package are asked to write; credentials are read from
// the environment (Helm's registry config, Docker's config) and never answered.
package helm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	helmaction "helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/getter"
	"helm.sh/helm/v4/pkg/registry"
	helmrelease "helm.sh/helm/v4/pkg/release/v1"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	repo "helm.sh/helm/v4/pkg/repo/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubeclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	v2 "github.com/fluxcd/helm-controller/api/v2"
	fluxchartutil "github.com/fluxcd/pkg/chartutil"

	"github.com/coredns-gen/coredns-gen/tools/helper/lines"
)

// Protocol is the request/answer format version, printed by -version (the guard keys its cache of
// rendered manifests by it and by the helper's build id).
const Protocol = 1

// Two values no chart or repository holds: a value the guard cannot read (a SOPS-encrypted Secret,
// one an ExternalSecret makes) is rendered once as each; where the two manifests name the same
// objects, what the upgrade deletes cannot depend on it.
const (
	placeholderA = "coredns-gen-unreadable-a7f3"
	placeholderB = "coredns-gen-unreadable-c9e1"
)

// Request is one line of input.
type Request struct {
	Op string `json:"op"` // render | fetch | package | push

	// render
	Chart       string            `json:"chart,omitempty"`        // a chart folder or .tgz
	Release     json.RawMessage   `json:"release,omitempty"`      // the HelmRelease object as built
	ReleaseName string            `json:"release_name,omitempty"` // helm-controller's ShortenName of it
	Objects     []json.RawMessage `json:"objects,omitempty"`      // ConfigMaps and Secrets its valuesFrom may read
	Unreadable  []ObjRef          `json:"unreadable,omitempty"`   // ... and those that exist but cannot be read here
	KubeVersion string            `json:"kube_version,omitempty"` // e.g. v1.34.0; Helm's default when empty

	// fetch (and push)
	URL       string `json:"url,omitempty"`     // https://… (index.yaml) or oci://…
	Name      string `json:"name,omitempty"`    // the chart's name in the repository ("" for an OCIRepository url)
	Version   string `json:"version,omitempty"` // a version or a semver constraint ("" : the newest)
	Digest    string `json:"digest,omitempty"`  // an OCI manifest digest (an OCIRepository's ref.digest)
	Tag       string `json:"tag,omitempty"`     // an OCI tag taken as it is (an OCIRepository's ref.tag)
	Upgrade   bool   `json:"upgrade,omitempty"` // render: as an upgrade (.Release.IsUpgrade), as helm-controller upgrades
	PlainHTTP bool   `json:"plain_http,omitempty"`
	Dest      string `json:"dest,omitempty"` // the folder fetch and package write into
}

// ObjRef names a ConfigMap or Secret.
type ObjRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Answer is one line of output.
type Answer struct {
	Objects   []map[string]any `json:"objects,omitempty"`    // render: the manifest's objects (hooks left out)
	Hooks     int              `json:"hooks,omitempty"`      // render: how many hooks it left out
	Chart     string           `json:"chart,omitempty"`      // render, fetch: the chart's name (Chart.yaml)
	Version   string           `json:"version,omitempty"`    // render, fetch: the chart's version
	Path      string           `json:"path,omitempty"`       // fetch, package: the .tgz written
	Digest    string           `json:"digest,omitempty"`     // fetch, package: sha256 of that file
	NotJudged string           `json:"not_judged,omitempty"` // render: what an unreadable value reaches
	Error     string           `json:"error,omitempty"`
}

// Main serves `coredns-gen-helper helm [-version]`.
func Main(args []string) {
	if len(args) == 1 && args[0] == "-version" {
		fmt.Printf("helm %d (helm.sh/helm/v4 %s)\n", Protocol, helmVersion())
		return
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil))) // Helm logs to slog: not our stdout
	lines.Serve(os.Stdin, os.Stdout, answer)
}

func answer(req Request) Answer {
	var a Answer
	var err error
	switch req.Op {
	case "render":
		a, err = render(req)
	case "fetch":
		a, err = fetch(req)
	case "package":
		a, err = packageChart(req)
	case "push":
		a, err = push(req)
	case "index":
		a, err = index(req)
	default:
		err = fmt.Errorf("unknown op %q", req.Op)
	}
	if err != nil {
		a.Error = err.Error()
	}
	return a
}

// render renders the chart for the release, and again with the other placeholder when a value it
// reads cannot be read here.
func render(req Request) (Answer, error) {
	var hr v2.HelmRelease
	if err := json.Unmarshal(req.Release, &hr); err != nil {
		return Answer{}, fmt.Errorf("the HelmRelease does not read as helm-controller's type: %w", err)
	}
	chrt, err := loader.Load(req.Chart)
	if err != nil {
		return Answer{}, fmt.Errorf("loading the chart: %w", err)
	}
	asked := apiVersionsAsked(chrt)
	first, hooks, err := renderWorlds(req, &hr, chrt, placeholderA, asked)
	if err != nil {
		return Answer{}, err
	}
	out := Answer{Objects: first, Hooks: hooks, Chart: chrt.Name(), Version: chrt.Metadata.Version}
	if len(req.Unreadable) == 0 {
		return out, nil
	}
	second, _, err := renderWorlds(req, &hr, chrt, placeholderB, asked)
	if err != nil {
		return Answer{}, err
	}
	if reach := identityReached(first, second); reach != "" {
		out.NotJudged = reach
	}
	return out, nil
}

// The APIs a template asks the cluster about by name (`.Capabilities.APIVersions.Has "x/v1"`).
var apiVersionHas = regexp.MustCompile("APIVersions\\.Has\\s+(?:\"([^\"]+)\"|`([^`]+)`)")

// apiVersionsAsked is every API the chart's templates (its subcharts' too) ask for by name that
// Helm's default capabilities do not serve: the cluster helm-controller renders for may serve any
// of them (a CRD installed by another release), so an object made only where it does is rendered too.
func apiVersionsAsked(c *chart.Chart) common.VersionSet {
	seen := map[string]bool{}
	var walk func(*chart.Chart)
	walk = func(c *chart.Chart) {
		for _, t := range c.Templates {
			for _, m := range apiVersionHas.FindAllSubmatch(t.Data, -1) {
				if v := string(m[1]) + string(m[2]); !common.DefaultCapabilities.APIVersions.Has(v) {
					seen[v] = true
				}
			}
		}
		for _, d := range c.Dependencies() {
			walk(d)
		}
	}
	walk(c)
	out := make(common.VersionSet, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// renderWorlds renders the chart with Helm's default capabilities and, when its templates ask for
// APIs those lack, again with them served: the manifest is every object of either (what the
// cluster holds is one of them, and which one the guard cannot see), so an object an upgrade
// deletes in either is named.
func renderWorlds(req Request, hr *v2.HelmRelease, chrt *chart.Chart, placeholder string,
	asked common.VersionSet) ([]map[string]any, int, error) {
	objects, hooks, err := renderWith(req, hr, chrt, placeholder, nil)
	if err != nil || len(asked) == 0 {
		return objects, hooks, err
	}
	served, _, err := renderWith(req, hr, chrt, placeholder, asked)
	if err != nil {
		return nil, 0, err
	}
	seen := map[string]bool{}
	for _, o := range objects {
		seen[identity(o)] = true
	}
	for _, o := range served {
		if !seen[identity(o)] {
			seen[identity(o)] = true
			objects = append(objects, o)
		}
	}
	return objects, hooks, nil
}

func renderWith(req Request, hr *v2.HelmRelease, chrt *chart.Chart, placeholder string,
	apiVersions common.VersionSet) ([]map[string]any, int, error) {
	values, err := mergedValues(req, hr, placeholder)
	if err != nil {
		return nil, 0, err
	}
	install := helmaction.NewInstall(helmaction.NewConfiguration())
	install.DryRunStrategy = helmaction.DryRunClient
	install.ReleaseName = req.ReleaseName
	if install.ReleaseName == "" {
		install.ReleaseName = hr.GetReleaseName()
	}
	install.Namespace = hr.GetReleaseNamespace()
	install.DisableHooks = hr.GetInstall().DisableHooks
	// A chart's values.schema.json may $ref schemas over the network (app-template's do): the
	// guard never reaches out while it renders, and validation only decides whether the upgrade
	// fails (deleting nothing), never what the manifest holds, so skipping it can only make the
	// guard refuse an upgrade helm-controller would not run, never pass one that deletes.
	install.SkipSchemaValidation = true
	install.Devel = true
	install.SkipCRDs = true
	install.Replace = true
	install.IsUpgrade = req.Upgrade
	if req.KubeVersion != "" {
		kv, err := common.ParseKubeVersion(req.KubeVersion)
		if err != nil {
			return nil, 0, fmt.Errorf("kube version %q: %w", req.KubeVersion, err)
		}
		install.KubeVersion = kv
	}
	install.APIVersions = apiVersions
	install.PostRenderer = postRenderers(hr)
	rel, err := install.RunWithContext(context.Background(), chrt, values.AsMap())
	if err != nil {
		return nil, 0, fmt.Errorf("rendering the chart: %w", err)
	}
	typed, ok := rel.(*helmrelease.Release)
	if !ok {
		return nil, 0, errors.New("only charts of API v2 are rendered")
	}
	objects, err := manifestObjects(typed.Manifest)
	return objects, len(typed.Hooks), err
}

// mergedValues merges the release's values as helm-controller does: each valuesFrom reference in
// order (fluxcd/pkg/chartutil, reading the given ConfigMaps and Secrets), then spec.values.
func mergedValues(req Request, hr *v2.HelmRelease, placeholder string) (common.Values, error) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	unreadable := map[ObjRef]bool{}
	for _, ref := range req.Unreadable {
		unreadable[ref] = true
	}
	builder := fake.NewClientBuilder().WithScheme(scheme)
	for _, raw := range req.Objects {
		obj, err := valuesObject(raw)
		if err != nil {
			return nil, err
		}
		builder = builder.WithObjects(obj)
	}
	// an object that exists but cannot be read here: each key a reference names holds the
	// placeholder, so a targetPath value is rendered as a string no chart holds; a whole values
	// document from it cannot be (refused below)
	keys := map[ObjRef]map[string]string{}
	for _, ref := range hr.Spec.ValuesFrom {
		id := ObjRef{Kind: ref.Kind, Namespace: hr.Namespace, Name: ref.Name}
		if !unreadable[id] {
			continue
		}
		if ref.TargetPath == "" {
			return nil, &unreadableDocument{ref: id, key: ref.GetValuesKey()}
		}
		if keys[id] == nil {
			keys[id] = map[string]string{}
		}
		keys[id][ref.GetValuesKey()] = placeholder
	}
	ids := make([]ObjRef, 0, len(keys))
	for id := range keys {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].Kind+ids[i].Name < ids[j].Kind+ids[j].Name })
	for _, id := range ids {
		meta := metav1.ObjectMeta{Namespace: id.Namespace, Name: id.Name}
		if id.Kind == "Secret" {
			data := map[string][]byte{}
			for k, v := range keys[id] {
				data[k] = []byte(v)
			}
			builder = builder.WithObjects(&corev1.Secret{ObjectMeta: meta, Data: data})
		} else {
			builder = builder.WithObjects(&corev1.ConfigMap{ObjectMeta: meta, Data: keys[id]})
		}
	}
	return fluxchartutil.ChartValuesFromReferences(context.Background(), logr.Discard(), builder.Build(),
		hr.Namespace, hr.GetValues(), hr.Spec.ValuesFrom...)
}

type unreadableDocument struct {
	ref ObjRef
	key string
}

func (e *unreadableDocument) Error() string {
	return fmt.Sprintf("not judged: its values document %s %s/%s key %s cannot be read here", e.ref.Kind,
		e.ref.Namespace, e.ref.Name, e.key)
}

// valuesObject reads a ConfigMap or Secret as the API server would store it (a Secret's
// stringData folded into data).
func valuesObject(raw json.RawMessage) (kubeclient.Object, error) {
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, err
	}
	switch head.Kind {
	case "ConfigMap":
		var cm corev1.ConfigMap
		if err := json.Unmarshal(raw, &cm); err != nil {
			return nil, fmt.Errorf("a ConfigMap valuesFrom reads: %w", err)
		}
		return &cm, nil
	case "Secret":
		var s corev1.Secret
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("a Secret valuesFrom reads: %w", err)
		}
		if s.Data == nil {
			s.Data = map[string][]byte{}
		}
		for k, v := range s.StringData {
			s.Data[k] = []byte(v)
		}
		s.StringData = nil
		return &s, nil
	}
	return nil, fmt.Errorf("valuesFrom reads ConfigMaps and Secrets, not %q", head.Kind)
}

// identityReached names what differs between the manifests rendered with the two placeholders:
// "" when both name the same objects (what the upgrade deletes cannot depend on the value).
func identityReached(a, b []map[string]any) string {
	ids := func(objs []map[string]any) []string {
		out := make([]string, 0, len(objs))
		for _, o := range objs {
			out = append(out, identity(o))
		}
		sort.Strings(out)
		return out
	}
	x, y := ids(a), ids(b)
	if strings.Join(x, "\n") == strings.Join(y, "\n") {
		for i := range a {
			if keep(a[i]) != keep(b[i]) {
				return "the helm.sh/resource-policy of " + identity(a[i])
			}
		}
		return ""
	}
	for _, id := range x {
		if !contains(y, id) {
			return "the identity of " + strings.ReplaceAll(id, placeholderA, "<unreadable>")
		}
	}
	return "the set of objects rendered"
}

func contains(list []string, s string) bool {
	i := sort.SearchStrings(list, s)
	return i < len(list) && list[i] == s
}

func identity(o map[string]any) string {
	meta, _ := o["metadata"].(map[string]any)
	return fmt.Sprintf("%v %v %v/%v", o["apiVersion"], o["kind"], meta["namespace"], meta["name"])
}

func keep(o map[string]any) string {
	meta, _ := o["metadata"].(map[string]any)
	ann, _ := meta["annotations"].(map[string]any)
	v, _ := ann["helm.sh/resource-policy"].(string)
	return v
}

// manifestObjects splits a release manifest into its objects, in Helm's install order.
func manifestObjects(manifest string) ([]map[string]any, error) {
	docs := releaseutil.SplitManifests(manifest)
	keys := make([]string, 0, len(docs))
	for k := range docs {
		keys = append(keys, k)
	}
	sort.Sort(releaseutil.BySplitManifestsOrder(keys))
	var out []map[string]any
	for _, k := range keys {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(docs[k]), &obj); err != nil {
			return nil, fmt.Errorf("the rendered manifest does not read as YAML: %w", err)
		}
		if obj == nil {
			continue
		}
		out = append(out, obj)
	}
	return out, nil
}

// fetch resolves a chart's version in its repository and writes the .tgz into req.Dest as
// <sha256>.tgz: an HTTP repository through its index.yaml (the version constraint resolved by
// Helm's own index), an OCI one through Helm's registry client (tags resolved the same way).
func fetch(req Request) (Answer, error) {
	if req.Dest == "" {
		return Answer{}, errors.New("fetch needs dest")
	}
	var data []byte
	var err error
	if registry.IsOCI(req.URL) {
		data, err = fetchOCI(req)
	} else {
		data, err = fetchHTTP(req)
	}
	if err != nil {
		return Answer{}, err
	}
	chrt, err := loader.LoadArchive(bytes.NewReader(data))
	if err != nil {
		return Answer{}, fmt.Errorf("the fetched chart does not load: %w", err)
	}
	path, digest, err := writeDigested(req.Dest, data)
	if err != nil {
		return Answer{}, err
	}
	return Answer{Chart: chrt.Name(), Version: chrt.Metadata.Version, Path: path, Digest: digest}, nil
}

// getFile reads a chart repository laid out in a folder (a mirror: `file://` urls).
type getFile struct{}

func (getFile) Get(url string, _ ...getter.Option) (*bytes.Buffer, error) {
	data, err := os.ReadFile(strings.TrimPrefix(url, "file://"))
	if err != nil {
		return nil, err
	}
	return bytes.NewBuffer(data), nil
}

func fetchHTTP(req Request) ([]byte, error) {
	var get getter.Getter = getFile{}
	if !strings.HasPrefix(req.URL, "file://") {
		var err error
		if get, err = getter.NewHTTPGetter(); err != nil {
			return nil, err
		}
	}
	base := strings.TrimSuffix(req.URL, "/")
	buf, err := get.Get(base + "/index.yaml")
	if err != nil {
		return nil, fmt.Errorf("reading %s/index.yaml: %w", base, err)
	}
	tmp, err := os.CreateTemp("", "coredns-gen-index-*.yaml")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return nil, err
	}
	tmp.Close()
	index, err := repo.LoadIndexFile(tmp.Name())
	if err != nil {
		return nil, fmt.Errorf("%s/index.yaml: %w", base, err)
	}
	index.SortEntries()
	cv, err := index.Get(req.Name, req.Version)
	if err != nil {
		return nil, fmt.Errorf("chart %s version %q is not in %s: %w", req.Name, req.Version, base, err)
	}
	if len(cv.URLs) == 0 {
		return nil, fmt.Errorf("chart %s %s has no URL in %s/index.yaml", req.Name, cv.Version, base)
	}
	chartURL, err := repo.ResolveReferenceURL(base, cv.URLs[0])
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(base, "file://") {
		// a mirror folder holds the archives beside its index, whatever urls the index was copied with
		chartURL = base + "/" + path.Base(cv.URLs[0])
	}
	got, err := get.Get(chartURL)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", chartURL, err)
	}
	data := got.Bytes()
	if cv.Digest != "" {
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != strings.TrimPrefix(cv.Digest, "sha256:") {
			return nil, fmt.Errorf("%s does not match the digest index.yaml gives it", chartURL)
		}
	}
	return data, nil
}

func registryClient(plain bool) (*registry.Client, error) {
	opts := []registry.ClientOption{registry.ClientOptWriter(io.Discard)}
	if file := os.Getenv("HELM_REGISTRY_CONFIG"); file != "" {
		opts = append(opts, registry.ClientOptCredentialsFile(file))
	}
	if plain {
		opts = append(opts, registry.ClientOptPlainHTTP())
	}
	return registry.NewClient(opts...)
}

func fetchOCI(req Request) ([]byte, error) {
	client, err := registryClient(req.PlainHTTP)
	if err != nil {
		return nil, err
	}
	ref := strings.TrimPrefix(strings.TrimSuffix(req.URL, "/"), "oci://")
	if req.Name != "" {
		ref += "/" + req.Name
	}
	switch {
	case req.Digest != "":
		ref += "@" + req.Digest
	case req.Tag != "":
		ref += ":" + req.Tag
	default:
		tags, err := client.Tags(ref)
		if err != nil {
			return nil, fmt.Errorf("listing the tags of %s: %w", ref, err)
		}
		tag, err := registry.GetTagMatchingVersionOrConstraint(tags, req.Version)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ref, err)
		}
		ref += ":" + tag
	}
	result, err := client.Pull(ref)
	if err != nil {
		return nil, fmt.Errorf("pulling %s: %w", ref, err)
	}
	return result.Chart.Data, nil
}

func packageChart(req Request) (Answer, error) {
	chrt, err := loader.LoadDir(req.Chart)
	if err != nil {
		return Answer{}, fmt.Errorf("loading the chart folder: %w", err)
	}
	tmp, err := os.MkdirTemp(req.Dest, ".package-")
	if err != nil {
		return Answer{}, err
	}
	defer os.RemoveAll(tmp)
	saved, err := chartutil.Save(chrt, tmp)
	if err != nil {
		return Answer{}, err
	}
	final := filepath.Join(req.Dest, filepath.Base(saved))
	if err := os.Rename(saved, final); err != nil {
		return Answer{}, err
	}
	data, err := os.ReadFile(final)
	if err != nil {
		return Answer{}, err
	}
	sum := sha256.Sum256(data)
	return Answer{Chart: chrt.Name(), Version: chrt.Metadata.Version, Path: final,
		Digest: hex.EncodeToString(sum[:])}, nil
}

func push(req Request) (Answer, error) {
	data, err := os.ReadFile(req.Chart)
	if err != nil {
		return Answer{}, err
	}
	chrt, err := loader.LoadArchive(bytes.NewReader(data))
	if err != nil {
		return Answer{}, err
	}
	client, err := registryClient(req.PlainHTTP)
	if err != nil {
		return Answer{}, err
	}
	ref := fmt.Sprintf("%s/%s:%s", strings.TrimPrefix(strings.TrimSuffix(req.URL, "/"), "oci://"), chrt.Name(),
		strings.ReplaceAll(chrt.Metadata.Version, "+", "_"))
	result, err := client.Push(data, ref)
	if err != nil {
		return Answer{}, fmt.Errorf("pushing %s: %w", ref, err)
	}
	return Answer{Chart: chrt.Name(), Version: chrt.Metadata.Version, Digest: result.Manifest.Digest}, nil
}

// index writes req.Dest/index.yaml for the archives in req.Dest, as `helm repo index` does (URL the
// base their urls are written under, "" for names relative to the index).
func index(req Request) (Answer, error) {
	idx, err := repo.IndexDirectory(req.Dest, req.URL)
	if err != nil {
		return Answer{}, err
	}
	idx.SortEntries()
	target := filepath.Join(req.Dest, "index.yaml")
	if err := idx.WriteFile(target, 0o644); err != nil {
		return Answer{}, err
	}
	return Answer{Path: target}, nil
}

// writeDigested writes data as <sha256>.tgz in dir, atomically (a rename), and answers its path.
func writeDigested(dir string, data []byte) (string, string, error) {
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	final := filepath.Join(dir, digest+".tgz")
	tmp, err := os.CreateTemp(dir, ".fetch-*")
	if err != nil {
		return "", "", err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", "", err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", "", err
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		os.Remove(tmp.Name())
		return "", "", err
	}
	return final, digest, nil
}

// helmVersion names the Helm library linked in.
func helmVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range info.Deps {
		if dep.Path == "helm.sh/helm/v4" {
			if dep.Replace != nil {
				return dep.Replace.Version
			}
			return dep.Version
		}
	}
	return "unknown"
}
