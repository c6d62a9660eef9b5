// Package artifact says which files of a revision are in the artifact source-controller makes of
// it for a GitRepository, by calling the code source-controller calls: the ignore rules of
// github.com/fluxcd/pkg/sourceignore (every .sourceignore file, LoadIgnorePatterns, then
// spec.ignore), matched as the archive's filter matches them (github.com/fluxcd/pkg/artifact
// storage.SourceIgnoreFilter: the default exclusions apply only when no pattern is given, the VCS
// ones always). That package is not linked: its digest dependency is not served at the version
// it needs here, so the filter's three sourceignore calls are made below in its order.
//
// `coredns-gen-helper artifact` reads one JSON request per line: the revision's regular files
// (symlinks are never archived: storage.Archive keeps regular files only), the text of each
// .sourceignore among them, and spec.ignore; it answers with the files the artifact holds.
// Only the .sourceignore files are written, into a scratch folder laid out like the revision
// (their folders only), because LoadIgnorePatterns reads them from disk.
package artifact

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fluxcd/pkg/sourceignore"
	"github.com/fluxcd/pkg/sourceignore/gitignore"
)

type request struct {
	ID          string            `json:"id"`
	Files       []string          `json:"files"`        // the revision's regular files, slash-separated
	IgnoreFiles map[string]string `json:"ignore_files"` // path of each .sourceignore -> its text
	SpecIgnore  *string           `json:"spec_ignore"`  // GitRepository spec.ignore, when set
}

type result struct {
	ID    string   `json:"id"`
	Kept  []string `json:"kept"`
	Error string   `json:"error,omitempty"`
}

// Main serves `coredns-gen-helper artifact`.
func Main(args []string) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<30)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintf(os.Stderr, "bad request line: %v\n", err)
			os.Exit(2)
		}
		res := kept(req)
		if err := enc.Encode(res); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		if err := out.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

func kept(req request) (res result) {
	res.ID = req.ID
	res.Kept = []string{}
	dir, err := os.MkdirTemp("", "coredns-gen-artifact-")
	if err != nil {
		res.Error = err.Error()
		return res
	}
	defer os.RemoveAll(dir)
	// the .sourceignore files in their folders: LoadIgnorePatterns walks the folders in name order
	// and reads each one's file, so a folder with none below it adds nothing and is left out
	for path, text := range req.IgnoreFiles {
		target := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			res.Error = err.Error()
			return res
		}
		if err := os.WriteFile(target, []byte(text), 0o644); err != nil {
			res.Error = err.Error()
			return res
		}
	}
	// as source-controller's GitRepository reconciler does (reconcileArtifact)
	ignoreDomain := strings.Split(dir, string(filepath.Separator))
	ps, err := sourceignore.LoadIgnorePatterns(dir, ignoreDomain)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	if req.SpecIgnore != nil {
		ps = append(ps, sourceignore.ReadPatterns(strings.NewReader(*req.SpecIgnore), ignoreDomain)...)
	}
	matcher := sourceIgnoreMatcher(ps, ignoreDomain)
	for _, file := range req.Files {
		// storage.Archive's walk asks the filter of every regular file, by its path split at "/"
		if !matcher.Match(strings.Split(filepath.Join(dir, filepath.FromSlash(file)), string(filepath.Separator)), false) {
			res.Kept = append(res.Kept, file)
		}
	}
	return res
}

// sourceIgnoreMatcher is fluxcd/pkg/artifact storage.SourceIgnoreFilter's matcher (v0.18.0,
// storage/archive.go): the defaults when no pattern is given, else the VCS patterns then these.
func sourceIgnoreMatcher(ps []gitignore.Pattern, domain []string) gitignore.Matcher {
	matcher := sourceignore.NewDefaultMatcher(ps, domain)
	if len(ps) > 0 {
		ps = append(sourceignore.VCSPatterns(domain), ps...)
		matcher = sourceignore.NewMatcher(ps)
	}
	return matcher
}
