// Package resourceset renders Flux Operator ResourceSets with the Flux Operator's own builder:
// the code behind `flux-operator build resourceset` (module
// github.com/controlplaneio-fluxcd/flux-operator). That builder lives in the module's internal/
// packages (internal/builder, internal/inputs), which Go lets no other module import, so the
// helper runs the Flux Operator CLI itself, built from that module at the version pinned in
// tools/flux-operator/go.mod (`coredns-gen-flux-operator`, installed beside this helper).
//
// `coredns-gen-helper resourceset` reads one JSON request per line: a ResourceSet as a build
// produced it, and the ResourceSetInputProviders of type Static its inputsFrom names (their
// inputs are in git; the CLI refuses any other type). It answers with the objects the ResourceSet
// generates, in the CLI's order, or the CLI's error. A ResourceSet whose inputs are empty
// generates nothing: the CLI says "no objects were generated", answered here as no objects.
package resourceset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/coredns-gen/coredns-gen/tools/helper/lines"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Binary is the Flux Operator CLI's name beside the helper (tools/flux-operator).
const Binary = "coredns-gen-flux-operator"

// BinaryEnv overrides where the Flux Operator CLI is.
const BinaryEnv = "COREDNS_GEN_FLUX_OPERATOR"

type request struct {
	ID          string            `json:"id"`
	ResourceSet json.RawMessage   `json:"resourceset"`
	Providers   []json.RawMessage `json:"providers"`
	Namespace   string            `json:"namespace"` // for a ResourceSet written without one
}

type result struct {
	ID      string           `json:"id"`
	Objects []map[string]any `json:"objects"`
	Error   string           `json:"error,omitempty"`
}

// Main serves `coredns-gen-helper resourceset` (`-version` prints the CLI's version line).
func Main(args []string) {
	cli, err := binary()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	if len(args) > 0 && args[0] == "-version" {
		out, err := exec.Command(cli, "version", "--client").CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s version: %v: %s\n", cli, err, out)
			os.Exit(3)
		}
		fmt.Print(string(out))
		return
	}
	lines.Serve(os.Stdin, os.Stdout, func(req request) result { return render(cli, req) })
}

// binary finds the Flux Operator CLI: $COREDNS_GEN_FLUX_OPERATOR, else beside this helper.
func binary() (string, error) {
	if found := os.Getenv(BinaryEnv); found != "" {
		return found, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(self); err == nil {
		self = resolved
	}
	found := filepath.Join(filepath.Dir(self), Binary)
	if _, err := os.Stat(found); err != nil {
		return "", fmt.Errorf("the Flux Operator CLI %s is not beside %s (build tools/flux-operator, or set %s)",
			Binary, self, BinaryEnv)
	}
	return found, nil
}

func render(cli string, req request) (res result) {
	res.ID = req.ID
	res.Objects = []map[string]any{}
	dir, err := os.MkdirTemp("", "coredns-gen-resourceset-")
	if err != nil {
		res.Error = err.Error()
		return res
	}
	defer os.RemoveAll(dir)
	// JSON is YAML: the CLI reads both files with sigs.k8s.io/yaml
	rset := filepath.Join(dir, "resourceset.yaml")
	if err := os.WriteFile(rset, req.ResourceSet, 0o644); err != nil {
		res.Error = err.Error()
		return res
	}
	argv := []string{"build", "resourceset", "--filename", rset}
	if req.Namespace != "" {
		argv = append(argv, "--namespace", req.Namespace)
	}
	if len(req.Providers) > 0 {
		var docs bytes.Buffer
		for _, p := range req.Providers {
			docs.WriteString("---\n")
			docs.Write(p)
			docs.WriteString("\n")
		}
		providers := filepath.Join(dir, "providers.yaml")
		if err := os.WriteFile(providers, docs.Bytes(), 0o644); err != nil {
			res.Error = err.Error()
			return res
		}
		argv = append(argv, "--inputs-from-provider", providers)
	}
	cmd := exec.Command(cli, argv...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(dir, "no-kubeconfig")) // never a cluster
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "no objects were generated") {
			return res // nothing to apply: its inventory empties
		}
		if msg == "" {
			msg = err.Error()
		}
		res.Error = strings.TrimPrefix(msg, "✗ ")
		return res
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(&stdout, 4096)
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			res.Error = fmt.Sprintf("reading the CLI's output: %v", err)
			return res
		}
		if len(obj) > 0 {
			res.Objects = append(res.Objects, obj)
		}
	}
	return res
}
