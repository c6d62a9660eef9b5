// Package build builds Flux Kustomizations as kustomize-controller does, many per run.
//
// Why: coredns-gen guard builds thousands of Flux Kustomizations per pull request, and must
// build each exactly as Flux will (flux.go). `coredns-gen-helper build` reads one JSON request
// per line on stdin (flux.go's request) and writes one JSON result per line on stdout, in
// completion order, each as soon as it is done, with every path the build read (readfs.go).
// Flux's library builds one Kustomization at a time per process (kustomize keeps global
// state), so -j worker processes (`build -worker`) build side by side.
package build

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/coredns-gen/coredns-gen/tools/helper/lines"
)

// Protocol is the request/result format version, printed by -version.
const Protocol = 4

// Main serves `coredns-gen-helper build [-j N] [-version]`.
func Main(args []string) {
	flags := flag.NewFlagSet("build", flag.ExitOnError)
	jobs := flags.Int("j", runtime.NumCPU(), "worker processes")
	worker := flags.Bool("worker", false, "build requests one at a time (started by build -j)")
	version := flags.Bool("version", false, "print the protocol and library versions and exit")
	_ = flags.Parse(args)
	if *version {
		fmt.Printf("build %d (%s)\n", Protocol, libraries())
		return
	}
	if os.Getenv("GOGC") == "" {
		// Builds are short-lived garbage: collecting at 5x the live heap instead of 2x saves about
		// a quarter of a fleet's CPU for ~90 MB of memory.
		debug.SetGCPercent(400)
	}
	// A remote base is cloned by git: only over the network, never from this machine's disk.
	if os.Getenv("GIT_ALLOW_PROTOCOL") == "" {
		os.Setenv("GIT_ALLOW_PROTOCOL", "https:http:ssh:git")
	}
	if *worker || *jobs <= 1 {
		lines.ServeUpTo(os.Stdin, os.Stdout, 1<<28, buildOne) // each request in turn (one worker)
		return
	}
	dispatch(*jobs)
}

// dispatch starts n workers and hands each request to the next idle one.
func dispatch(n int) {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	lines := make(chan []byte)
	var outMu sync.Mutex
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	var wg sync.WaitGroup
	failed := make(chan error, n)
	for i := 0; i < n; i++ {
		cmd := exec.Command(self, "build", "-worker")
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results := bufio.NewScanner(stdout)
			results.Buffer(make([]byte, 1<<20), 1<<30)
			for line := range lines {
				if _, err := stdin.Write(line); err != nil {
					failed <- fmt.Errorf("build worker: %w", err)
					return
				}
				if !results.Scan() {
					failed <- fmt.Errorf("build worker stopped: %v", results.Err())
					return
				}
				outMu.Lock()
				out.Write(results.Bytes())
				out.WriteByte('\n')
				err := out.Flush()
				outMu.Unlock()
				if err != nil {
					failed <- err
					return
				}
			}
			stdin.Close()
			if err := cmd.Wait(); err != nil {
				failed <- fmt.Errorf("build worker: %w", err)
			}
		}()
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<28)
	for in.Scan() {
		line := append(append([]byte(nil), in.Bytes()...), '\n')
		select {
		case lines <- line:
		case err := <-failed:
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
	}
	close(lines)
	wg.Wait()
	select {
	case err := <-failed:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	default:
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

// libraries names the versions of Flux's and kustomize's libraries linked in (the guard keys its
// caches by them: builds, and which files an artifact holds).
func libraries() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	out := ""
	for _, dep := range info.Deps {
		switch dep.Path {
		case "github.com/fluxcd/pkg/kustomize", "sigs.k8s.io/kustomize/api", "github.com/fluxcd/pkg/sourceignore":
			v := dep.Version
			if dep.Replace != nil {
				v = dep.Replace.Version
			}
			if out != "" {
				out += ", "
			}
			out += dep.Path + " " + v
		}
	}
	return out
}
