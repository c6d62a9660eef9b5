package build

// What a build read, told by kustomize's own file system: every path kustomize (and Flux's
// generator) asked about is recorded while it builds, so coredns-gen decides which changes reach
// a Kustomization from what kustomize really opened, never from a model of its reference fields.

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// A look is one question a build asked of its artifact, relative to the artifact root:
//
//	file  the bytes of a file were read (a symlink also records its resolved target)
//	stat  whether a path is a file, a folder or missing was asked
//	list  the names in a folder were listed
//	tree  every path below a folder mattered (a walk, a glob, a generated kustomization)
//	out   a path outside the artifact was asked for (a remote base's clone): never reusable
type look struct {
	Kind string `json:"k"`
	Path string `json:"p"`
}

// recordingFS is the file system one build reads: Flux's secure on-disk file system for the
// artifact, with the kustomization file Flux's generator made laid over its path (as
// kustomize-controller writes it there before building), and every question recorded.
type recordingFS struct {
	inner       filesys.FileSystem
	root        string // the artifact root, absolute and with symlinks resolved
	overlayPath string // the generated kustomization file, "" when none
	overlay     []byte
	looks       map[look]struct{}
	dirs        map[string]string // folder -> the folder with symlinks resolved, for this build
}

func newRecordingFS(inner filesys.FileSystem, root string) *recordingFS {
	return &recordingFS{inner: inner, root: root, looks: map[look]struct{}{}, dirs: map[string]string{}}
}

// rel names an absolute path inside the artifact ("" is its root); ok is false outside it.
func (r *recordingFS) rel(path string) (string, bool) {
	clean := filepath.Clean(path)
	if clean == r.root {
		return "", true
	}
	if strings.HasPrefix(clean, r.root+string(filepath.Separator)) {
		return filepath.ToSlash(clean[len(r.root)+1:]), true
	}
	return clean, false
}

// note records a look at path and, when a symlink inside the artifact leads elsewhere in it,
// the same look at the resolved path (a changed target must reach this build too).
func (r *recordingFS) note(kind, path string) {
	if !filepath.IsAbs(path) {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
	}
	rel, inside := r.rel(path)
	if !inside {
		r.looks[look{"out", rel}] = struct{}{}
		return
	}
	r.looks[look{kind, rel}] = struct{}{}
	if resolved, err := r.resolve(path); err == nil && resolved != filepath.Clean(path) {
		if relResolved, in := r.rel(resolved); in {
			r.looks[look{kind, relResolved}] = struct{}{}
		} else {
			r.looks[look{"out", relResolved}] = struct{}{}
		}
	}
}

// resolve is filepath.EvalSymlinks(path), each folder resolved once per build: a clean path
// whose last element is no symlink resolves to its folder's resolution joined with that element.
func (r *recordingFS) resolve(path string) (string, error) {
	dir, name := filepath.Split(path)
	if path != filepath.Clean(path) || name == "" || name == "." || name == ".." {
		return filepath.EvalSymlinks(path)
	}
	dir = filepath.Clean(dir)
	resolvedDir, ok := r.dirs[dir]
	if !ok {
		var err error
		if resolvedDir, err = filepath.EvalSymlinks(dir); err != nil {
			return "", err
		}
		r.dirs[dir] = resolvedDir
	}
	info, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if info.Mode()&os.ModeSymlink != 0 {
		return filepath.EvalSymlinks(path)
	}
	return filepath.Join(resolvedDir, name), nil
}

// sortedLooks is the record, in a stable order.
func (r *recordingFS) sortedLooks() []look {
	out := make([]look, 0, len(r.looks))
	for l := range r.looks {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}

func (r *recordingFS) isOverlay(path string) bool {
	return r.overlayPath != "" && filepath.Clean(path) == r.overlayPath
}

func (r *recordingFS) Create(path string) (filesys.File, error) { return r.inner.Create(path) }
func (r *recordingFS) Mkdir(path string) error                  { return r.inner.Mkdir(path) }
func (r *recordingFS) MkdirAll(path string) error               { return r.inner.MkdirAll(path) }
func (r *recordingFS) RemoveAll(path string) error              { return r.inner.RemoveAll(path) }
func (r *recordingFS) WriteFile(path string, data []byte) error { return r.inner.WriteFile(path, data) }

func (r *recordingFS) Open(path string) (filesys.File, error) {
	if r.isOverlay(path) {
		return &memFile{Reader: bytes.NewReader(r.overlay), name: filepath.Base(path), size: int64(len(r.overlay))}, nil
	}
	r.note("file", path)
	return r.inner.Open(path)
}

func (r *recordingFS) ReadFile(path string) ([]byte, error) {
	if r.isOverlay(path) {
		return append([]byte(nil), r.overlay...), nil
	}
	r.note("file", path)
	return r.inner.ReadFile(path)
}

func (r *recordingFS) IsDir(path string) bool {
	if r.isOverlay(path) {
		return false
	}
	r.note("stat", path)
	return r.inner.IsDir(path)
}

func (r *recordingFS) Exists(path string) bool {
	if r.isOverlay(path) {
		return true
	}
	r.note("stat", path)
	return r.inner.Exists(path)
}

func (r *recordingFS) ReadDir(path string) ([]string, error) {
	r.note("list", path)
	names, err := r.inner.ReadDir(path)
	if err == nil && r.overlayPath != "" && filepath.Dir(r.overlayPath) == filepath.Clean(path) {
		base := filepath.Base(r.overlayPath)
		found := false
		for _, n := range names {
			found = found || n == base
		}
		if !found {
			names = append(names, base)
			sort.Strings(names)
		}
	}
	return names, err
}

func (r *recordingFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	if r.isOverlay(path) {
		dir, err := filesys.ConfirmDir(r.inner, filepath.Dir(r.overlayPath))
		return dir, filepath.Base(r.overlayPath), err
	}
	r.note("stat", path)
	return r.inner.CleanedAbs(path)
}

// Glob: every path below the pattern's fixed folder may decide what matches.
func (r *recordingFS) Glob(pattern string) ([]string, error) {
	r.note("tree", staticPrefix(pattern))
	return r.inner.Glob(pattern)
}

func (r *recordingFS) Walk(path string, walkFn filepath.WalkFunc) error {
	r.note("tree", path)
	return r.inner.Walk(path, walkFn)
}

// staticPrefix is the folder of a glob pattern before its first wildcard.
func staticPrefix(pattern string) string {
	i := strings.IndexAny(pattern, "*?[\\")
	if i < 0 {
		return filepath.Dir(pattern)
	}
	return filepath.Dir(pattern[:i] + "x")
}

// memFile is the generated kustomization file, opened.
type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func (f *memFile) Write([]byte) (int, error)  { return 0, os.ErrPermission }
func (f *memFile) Close() error               { return nil }
func (f *memFile) Stat() (os.FileInfo, error) { return memInfo{f.name, f.size}, nil }

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() interface{}   { return nil }
