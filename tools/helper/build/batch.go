// Package build builds many kustomizations in one process with the real kustomize library.
//
// Why: `kubectl kustomize` costs ~90 ms a build, 76 ms of it process start-up; coredns-gen guard
// builds thousands of Flux Kustomizations per pull request. This program reads one JSON request
// per line on stdin ({"id": "...", "dir": "/abs/dir", "root": "/abs/revision"}, with "memory": true
// to build from files put in memory by earlier {"put": "/abs/path", "data": "<base64>"} lines:
// memory.go), builds each with
// krusty (the library inside kubectl kustomize, pinned to the version kubectl v1.37.1 bundles)
// using the options kustomize-controller uses (no load restrictions, plugins disabled) on a file
// system fenced to root (fence.go), and writes one JSON line per request on stdout:
// {"id": "...", "objects": [...]} or {"id": "...", "error": "..."}.
// Results arrive in completion order; -j sets the number of concurrent builds.
package build

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

type request struct {
	ID     string `json:"id"`
	Dir    string `json:"dir"`
	Root   string `json:"root"`   // the revision's root: nothing outside it (or dir) is read
	Memory bool   `json:"memory"` // protocol 3: build from the files put in memory (memory.go)
	Put    string `json:"put"`    // protocol 3: not a build but a file to put in memory, with Data
	Data   []byte `json:"data"`   // (base64 in the JSON line)
}

type result struct {
	ID      string                   `json:"id"`
	Objects []map[string]interface{} `json:"objects"`
	Error   string                   `json:"error,omitempty"`
}

func build(fs filesys.FileSystem, mem *memoryFS, req request) (res result) {
	res.ID = req.ID
	res.Objects = []map[string]interface{}{}
	defer func() {
		if r := recover(); r != nil {
			res.Objects = nil
			res.Error = fmt.Sprintf("kustomize panicked: %v", r)
		}
	}()
	var fenced filesys.FileSystem = mem // it holds only the revision's files coredns-gen put
	if !req.Memory {
		var err error
		if fenced, err = newFenced(fs, req.Root, req.Dir); err != nil {
			res.Objects = nil
			res.Error = err.Error()
			return res
		}
	}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsNone
	opts.PluginConfig = types.DisabledPluginConfig()
	m, err := krusty.MakeKustomizer(opts).Run(fenced, req.Dir)
	if err != nil {
		res.Objects = nil
		res.Error = err.Error()
		return res
	}
	for _, r := range m.Resources() {
		obj, err := r.Map()
		if err != nil {
			res.Objects = nil
			res.Error = err.Error()
			return res
		}
		res.Objects = append(res.Objects, obj)
	}
	return res
}

// Main serves `coredns-gen-helper build [-j N] [-version]`.
func Main(args []string) {
	flags := flag.NewFlagSet("build", flag.ExitOnError)
	jobs := flags.Int("j", runtime.NumCPU(), "concurrent builds")
	version := flags.Bool("version", false, "print the protocol version and exit")
	_ = flags.Parse(args)
	if os.Getenv("GOGC") == "" {
		// Builds are short-lived garbage: collecting at 5x the live heap instead of 2x saves about
		// a quarter of a fleet's CPU for ~90 MB of memory (2,000 builds in one process).
		debug.SetGCPercent(400)
	}
	if *version {
		fmt.Println("build 3 (sigs.k8s.io/kustomize/api v0.21.1)")
		return
	}
	// A "remote" base is cloned by git: let git fetch only over the network, never from this
	// machine's disk (file://, a local path), which is outside every repository built here.
	if os.Getenv("GIT_ALLOW_PROTOCOL") == "" {
		os.Setenv("GIT_ALLOW_PROTOCOL", "https:http:ssh:git")
	}
	fs := filesys.MakeFsOnDisk()
	mem := newMemoryFS()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	enc := json.NewEncoder(out)
	var mu sync.Mutex
	var wg sync.WaitGroup
	queue := make(chan request)
	for i := 0; i < *jobs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for req := range queue {
				res := build(fs, mem, req)
				mu.Lock()
				if err := enc.Encode(res); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(3)
				}
				mu.Unlock()
			}
		}()
	}
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintf(os.Stderr, "bad request line: %v\n", err)
			os.Exit(2)
		}
		if req.Put != "" {
			if err := mem.put(req.Put, req.Data); err != nil {
				fmt.Fprintf(os.Stderr, "cannot put %s in memory: %v\n", req.Put, err)
				os.Exit(2)
			}
			continue
		}
		queue <- req
	}
	close(queue)
	wg.Wait()
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
}
