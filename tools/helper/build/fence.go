package build

// The repository fence: every path a build touches must lie, after its symlinks are resolved,
// inside the revision being built (the request's root), the request's own directory (the
// wrapper kustomization coredns-gen writes), or a checkout kustomize itself made for a remote
// base. kustomize-controller refuses the same paths (it builds inside the source artifact);
// coredns-gen guard refuses them before kustomize runs, and this is the second fence. A path is
// first judged lexically, so nothing outside is even looked at; only paths inside are resolved.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

type fencedFS struct {
	inner   filesys.FileSystem
	allowed []string // cleaned, symlink-free absolute directories
}

// errOutside is what kustomize reports when a build reaches outside its fence.
var errOutside = errors.New("is outside the repository")

func realDir(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if known, ok := realDirs.Load(abs); ok { // every job of a revision shares its root
		return known.(string), nil
	}
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		realDirs.Store(abs, real)
	}
	return real, err
}

// newFenced fences inner to root and dir. An empty root (a protocol 1 client) builds unfenced:
// the binary is shared by every checkout on a machine, and coredns-gen always sends one.
func newFenced(inner filesys.FileSystem, root, dir string) (filesys.FileSystem, error) {
	if root == "" {
		return inner, nil
	}
	f := &fencedFS{inner: inner}
	for _, p := range []string{root, dir} {
		real, err := realDir(p)
		if err != nil {
			return nil, err
		}
		f.allowed = append(f.allowed, real)
	}
	return f, nil
}

func within(dir, path string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

// kustomizeClone: a directory kustomize made for a remote base (filesys.NewTmpConfirmedDir).
func kustomizeClone(path string) bool {
	tmp, err := filepath.EvalSymlinks(os.TempDir())
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(tmp, path)
	return err == nil && strings.HasPrefix(rel, "kustomize-") && !strings.HasPrefix(rel, "..")
}

func (f *fencedFS) inside(path string) bool {
	for _, dir := range f.allowed {
		if within(dir, path) {
			return true
		}
	}
	return kustomizeClone(path)
}

// realDirs: each directory already resolved, by its path (the roots among them: every job of a
// revision shares one). What an existing directory is does not change while a batch runs:
// coredns-gen writes every file a job reads before it sends the job, and afterwards only adds
// files (it never makes a link where a folder was). So a directory resolves once, not once per
// file read below it (EvalSymlinks costs an lstat per path component: ~15% of a fleet's CPU). A
// missing one is never remembered: a later job may add it.
var realDirs sync.Map

// resolve follows the symlinks of the longest existing prefix of path.
func resolve(path string) (string, error) {
	dir, leaf := filepath.Dir(path), filepath.Base(path)
	known, ok := realDirs.Load(dir)
	if !ok {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			known, ok = real, true
			realDirs.Store(dir, real)
		}
	}
	if ok && dir != path {
		info, err := os.Lstat(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if err != nil || info.Mode()&fs.ModeSymlink == 0 { // missing, or not a link: the folder decides
			return filepath.Join(known.(string), leaf), nil
		}
	}
	rest := ""
	for current := path; ; {
		real, err := filepath.EvalSymlinks(current)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(current)
		if parent == current {
			return path, nil
		}
		rest = filepath.Join(filepath.Base(current), rest)
		current = parent
	}
}

func (f *fencedFS) check(op, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if !f.inside(abs) {
		return &fs.PathError{Op: op, Path: path, Err: errOutside}
	}
	real, err := resolve(abs)
	if err != nil {
		return &fs.PathError{Op: op, Path: path, Err: err}
	}
	if !f.inside(real) {
		return &fs.PathError{Op: op, Path: path, Err: fmt.Errorf("%w (symlink to %s)", errOutside, real)}
	}
	return nil
}

func (f *fencedFS) Create(path string) (filesys.File, error) {
	if err := f.check("create", path); err != nil {
		return nil, err
	}
	return f.inner.Create(path)
}

func (f *fencedFS) Mkdir(path string) error {
	if err := f.check("mkdir", path); err != nil {
		return err
	}
	return f.inner.Mkdir(path)
}

func (f *fencedFS) MkdirAll(path string) error {
	if err := f.check("mkdir", path); err != nil {
		return err
	}
	return f.inner.MkdirAll(path)
}

func (f *fencedFS) RemoveAll(path string) error {
	if err := f.check("remove", path); err != nil {
		return err
	}
	return f.inner.RemoveAll(path)
}

func (f *fencedFS) Open(path string) (filesys.File, error) {
	if err := f.check("open", path); err != nil {
		return nil, err
	}
	return f.inner.Open(path)
}

func (f *fencedFS) IsDir(path string) bool {
	return f.check("stat", path) == nil && f.inner.IsDir(path)
}

func (f *fencedFS) ReadDir(path string) ([]string, error) {
	if err := f.check("readdir", path); err != nil {
		return nil, err
	}
	return f.inner.ReadDir(path)
}

func (f *fencedFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	if err := f.check("abs", path); err != nil {
		return "", "", err
	}
	dir, file, err := f.inner.CleanedAbs(path)
	if err != nil {
		return dir, file, err
	}
	if !f.inside(string(dir)) {
		return "", "", &fs.PathError{Op: "abs", Path: path, Err: errOutside}
	}
	return dir, file, nil
}

func (f *fencedFS) Exists(path string) bool {
	return f.check("stat", path) == nil && f.inner.Exists(path)
}

func (f *fencedFS) Glob(pattern string) ([]string, error) {
	if err := f.check("glob", filepath.Dir(pattern)); err != nil {
		return nil, err
	}
	found, err := f.inner.Glob(pattern)
	if err != nil {
		return nil, err
	}
	out := found[:0]
	for _, p := range found {
		if f.check("glob", p) == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

func (f *fencedFS) ReadFile(path string) ([]byte, error) {
	if err := f.check("read", path); err != nil {
		return nil, err
	}
	return f.inner.ReadFile(path)
}

func (f *fencedFS) WriteFile(path string, data []byte) error {
	if err := f.check("write", path); err != nil {
		return err
	}
	return f.inner.WriteFile(path, data)
}

func (f *fencedFS) Walk(path string, walkFn filepath.WalkFunc) error {
	if err := f.check("walk", path); err != nil {
		return err
	}
	return f.inner.Walk(path, func(p string, info os.FileInfo, err error) error {
		if ferr := f.check("walk", p); ferr != nil {
			return ferr
		}
		return walkFn(p, info, err)
	})
}
