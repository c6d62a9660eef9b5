package build

// Builds whose every input coredns-gen knows (protocol 3): the files are sent on stdin as
// {"put": "/abs/path", "data": "<base64>"} lines, kept in kustomize's own in-memory file system
// (filesys.MakeFsInMemory), and a request with "memory": true builds from there. Nothing is
// written to disk or read from it, so such a build needs no fence: the file system holds only
// the files coredns-gen put, all inside the revision. On a fleet, writing each build's files,
// checking every path against the fence and removing the files again was a fifth of the work.

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// memoryFS is the in-memory file system behind a lock: files are put by the request reader
// while workers build from it. Builds only read; the few writing methods take the lock whole.
type memoryFS struct {
	mu    sync.RWMutex
	inner filesys.FileSystem
}

func newMemoryFS() *memoryFS {
	return &memoryFS{inner: filesys.MakeFsInMemory()}
}

// put adds one file (and its folders); a path put twice keeps the last content.
func (m *memoryFS) put(path string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.inner.MkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	return m.inner.WriteFile(path, data)
}

func (m *memoryFS) Create(path string) (filesys.File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.inner.Create(path)
}

func (m *memoryFS) Mkdir(path string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.inner.Mkdir(path)
}

func (m *memoryFS) MkdirAll(path string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.inner.MkdirAll(path)
}

func (m *memoryFS) RemoveAll(path string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.inner.RemoveAll(path)
}

// Open marks the node open (its read offset is state of the node), so it takes the lock whole.
func (m *memoryFS) Open(path string) (filesys.File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.inner.Open(path)
}

func (m *memoryFS) WriteFile(path string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.inner.WriteFile(path, data)
}

func (m *memoryFS) IsDir(path string) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.inner.IsDir(path)
}

func (m *memoryFS) ReadDir(path string) ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.inner.ReadDir(path)
}

func (m *memoryFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.inner.CleanedAbs(path)
}

func (m *memoryFS) Exists(path string) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.inner.Exists(path)
}

func (m *memoryFS) Glob(pattern string) ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.inner.Glob(pattern)
}

// ReadFile fails as on disk (os.ReadFile's errors), not with the in-memory file system's own
// words: kustomize tries a resource entry as a file first, and what it says when the entry is a
// folder, or missing, is part of the message a failing build gives.
func (m *memoryFS) ReadFile(path string) ([]byte, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.inner.IsDir(path) {
		return nil, &fs.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
	}
	if !m.inner.Exists(path) {
		return nil, &fs.PathError{Op: "open", Path: path, Err: syscall.ENOENT}
	}
	return m.inner.ReadFile(path)
}

// Walk lists under the lock, then calls walkFn without it: walkFn may read the file system, and
// taking the read lock again while a put waits for the lock would deadlock.
func (m *memoryFS) Walk(path string, walkFn filepath.WalkFunc) error {
	type visit struct {
		path string
		info os.FileInfo
		err  error
	}
	var visits []visit
	m.mu.RLock()
	err := m.inner.Walk(path, func(p string, info os.FileInfo, err error) error {
		visits = append(visits, visit{p, info, err})
		return nil
	})
	m.mu.RUnlock()
	if err != nil {
		return err
	}
	skip := "" // a folder walkFn skipped: its entries follow it, as a walk goes depth first
	for _, v := range visits {
		if skip != "" && (v.path == skip || strings.HasPrefix(v.path, skip+string(filepath.Separator))) {
			continue
		}
		ferr := walkFn(v.path, v.info, v.err)
		switch {
		case ferr == filepath.SkipAll:
			return nil
		case ferr == filepath.SkipDir && v.info != nil && v.info.IsDir():
			skip = v.path
		case ferr == filepath.SkipDir:
			skip = filepath.Dir(v.path) // SkipDir from a file skips the rest of its folder
		case ferr != nil:
			return ferr
		}
	}
	return nil
}
