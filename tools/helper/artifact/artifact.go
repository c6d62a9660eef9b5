// Package artifact says which files of a revision are in the artifact source-controller makes of
// it for a GitRepository, by calling the code source-controller calls: the ignore rules of
// github.com/fluxcd/pkg/sourceignore (every .sourceignore file, LoadIgnorePatterns, then
// spec.ignore), matched as the archive's filter matches them (github.com/fluxcd/pkg/artifact
// storage.SourceIgnoreFilter: the default exclusions apply only when no pattern is given, the VCS
// ones always). That package is not linked: its digest dependency is not served at the version
// it needs here, so the filter's three sourceignore calls are made below in its order.
//
// An OCI artifact pushed from a folder (`flux push artifact --path=DIR`) is filtered twice: first
// by the flux CLI, which archives DIR with fluxcd/pkg/oci's build (its --ignore-paths, default
// `excludeOCI`: sourceignore.ExcludeVCS and ExcludeExt, plus --add-ignore-paths, read by
// sourceignore.ReadPatterns and matched by sourceignore.NewMatcher on each file's path; no
// .sourceignore file is read; fluxcd/flux2 cmd/flux/push_artifact.go and build_artifact.go), then
// by source-controller, which extracts it and archives it with the filter above
// (ocirepository_controller.go: LoadIgnorePatterns, spec.ignore, SourceIgnoreFilter). fluxcd/pkg/oci
// is not linked (it brings the container registry client); its filter's two calls are made below.
//
// `coredns-gen-helper artifact` reads one JSON request per line: the revision's regular files
// (symlinks are never archived: storage.Archive and fluxcd/pkg/tar keep regular files only), the
// text of each .sourceignore among them, spec.ignore, and for a pushed folder the push's ignore
// flags (its files are then paths inside the folder); it answers with the files the artifact holds.
// Only the .sourceignore files are written, into a scratch folder laid out like the revision
// (their folders only), because LoadIgnorePatterns reads them from disk.
package artifact

import (
	"github.com/coredns-gen/coredns-gen/tools/helper/lines"
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
	SpecIgnore  *string           `json:"spec_ignore"`  // GitRepository (OCIRepository) spec.ignore, when set
	Explain     bool              `json:"explain"`      // also say which rule leaves each file out
	Push        *push             `json:"push"`         // the files are a folder pushed by `flux push artifact`
}

// push holds the ignore flags of one `flux push artifact` command.
type push struct {
	IgnorePaths    *[]string `json:"ignore_paths"`     // --ignore-paths as given; null: the CLI's default
	AddIgnorePaths []string  `json:"add_ignore_paths"` // --add-ignore-paths
}

// rule is where one ignore pattern is written: a .sourceignore (slash path) or "spec.ignore", and
// its line (0 for the patterns source-controller adds itself: "defaults" or "vcs").
type rule struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Pattern string `json:"pattern"`
}

type result struct {
	ID     string   `json:"id"`
	Kept   []string `json:"kept"`
	Pushed bool     `json:"pushed,omitempty"` // the push's filter was applied (an older helper ignores "push")
	// with explain: for each file left out, the pattern that decides it (the last one that
	// matches, as gitignore's matcher decides); absent when the patterns could not be traced
	Excluded map[string]rule `json:"excluded,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// Main serves `coredns-gen-helper artifact`.
func Main(args []string) {
	lines.Serve(os.Stdin, os.Stdout, kept)
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
	files := req.Files
	if req.Push != nil {
		files, res.Pushed = pushed(files, *req.Push, dir), true
	}
	// the .sourceignore files in their folders: LoadIgnorePatterns walks the folders in name order
	// and reads each one's file, so a folder with none below it adds nothing and is left out
	survived := map[string]bool{}
	for _, file := range files {
		survived[file] = true
	}
	for path, text := range req.IgnoreFiles {
		if req.Push != nil && !survived[path] {
			continue // not pushed: source-controller never sees it
		}
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
	var origins []gitignore.Pattern
	var where []rule
	if req.Explain {
		origins, where = traced(dir, ignoreDomain, req.SpecIgnore, len(ps))
		res.Excluded = map[string]rule{}
	}
	for _, file := range files {
		// storage.Archive's walk asks the filter of every regular file, by its path split at "/"
		path := strings.Split(filepath.Join(dir, filepath.FromSlash(file)), string(filepath.Separator))
		if !matcher.Match(path, false) {
			res.Kept = append(res.Kept, file)
		} else if origins != nil {
			// gitignore's matcher: the last pattern that matches decides
			for i := len(origins) - 1; i >= 0; i-- {
				if m := origins[i].Match(path, false); m != gitignore.NoMatch {
					if m == gitignore.Exclude {
						res.Excluded[file] = where[i]
					}
					break
				}
			}
		}
	}
	return res
}

// traced is the pattern list the matcher above uses, each with where it is written: the same
// calls (sourceignore.ReadPatterns, one line at a time, in LoadIgnorePatterns's order: a folder's
// own file, then its sub-folders by name), then spec.ignore, then what sourceIgnoreMatcher adds.
// It is used only when it has as many patterns as the real list (else nil: not traced).
func traced(dir string, domain []string, specIgnore *string, count int) ([]gitignore.Pattern, []rule) {
	var ps []gitignore.Pattern
	var where []rule
	read := func(text string, dom []string, file string) {
		for n, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
			for _, p := range sourceignore.ReadPatterns(strings.NewReader(line), dom) {
				ps = append(ps, p)
				where = append(where, rule{File: file, Line: n + 1, Pattern: line})
			}
		}
	}
	var walk func(folder string, dom []string, rel string) error
	walk = func(folder string, dom []string, rel string) error {
		if text, err := os.ReadFile(filepath.Join(folder, sourceignore.IgnoreFile)); err == nil {
			read(string(text), dom, strings.TrimPrefix(rel+"/"+sourceignore.IgnoreFile, "/"))
		}
		entries, err := os.ReadDir(folder)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.IsDir() && e.Name() != ".git" {
				sub := append(append([]string{}, dom...), e.Name())
				if err := walk(filepath.Join(folder, e.Name()), sub, strings.TrimPrefix(rel+"/"+e.Name(), "/")); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if walk(dir, domain, "") != nil {
		return nil, nil
	}
	if specIgnore != nil {
		read(*specIgnore, domain, "spec.ignore")
	}
	if len(ps) != count {
		return nil, nil
	}
	// what sourceIgnoreMatcher puts before them: the VCS patterns, and the defaults when no
	// pattern is given at all
	prefix := []string{"vcs"}
	if len(ps) == 0 {
		prefix = append(prefix, "defaults")
	}
	var first []gitignore.Pattern
	var firstWhere []rule
	for _, kind := range prefix {
		text := sourceignore.ExcludeVCS
		made := sourceignore.VCSPatterns(domain)
		if kind == "defaults" {
			text = strings.Join([]string{sourceignore.ExcludeExt, sourceignore.ExcludeCI, sourceignore.ExcludeExtra}, ",")
			made = sourceignore.DefaultPatterns(domain)
		}
		for i, p := range made {
			first = append(first, p)
			firstWhere = append(firstWhere, rule{File: kind, Pattern: strings.Split(text, ",")[i]})
		}
	}
	ps = append(first, ps...)
	where = append(firstWhere, where...)
	return ps, where
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

// pushed is what `flux push artifact` archives of a folder's files: fluxcd/pkg/oci's build
// filter (v0.68.0 build.go), with the CLI's ignore paths (fluxcd/flux2 cmd/flux build_artifact.go
// composeIgnorePaths: --ignore-paths, default excludeOCI, then --add-ignore-paths).
func pushed(files []string, p push, dir string) []string {
	ignorePaths := append(strings.Split(sourceignore.ExcludeVCS, ","), strings.Split(sourceignore.ExcludeExt, ",")...)
	if p.IgnorePaths != nil {
		ignorePaths = *p.IgnorePaths
	}
	all := append(append([]string{}, ignorePaths...), p.AddIgnorePaths...)
	domain := strings.Split(filepath.Clean(dir), string(filepath.Separator))
	matcher := sourceignore.NewMatcher(sourceignore.ReadPatterns(strings.NewReader(strings.Join(all, "\n")), domain))
	out := []string{}
	for _, file := range files {
		// fluxcd/pkg/tar's walk asks the filter of every regular file, by its absolute path split
		if !matcher.Match(strings.Split(filepath.Join(dir, filepath.FromSlash(file)), string(filepath.Separator)), false) {
			out = append(out, file)
		}
	}
	return out
}
