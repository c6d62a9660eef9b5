// Package subcommands runs a helper program's first argument as the subcommand a table names, so
// each helper program's main.go is only its table: coredns-gen-helper (main.go, every subcommand,
// built when the guard first needs it) and coredns-gen-corefile (cmd/coredns-gen-corefile, what
// render and lint's static checks ask, built by `pip install`). A subcommand added to a program
// is one line in its table.
package subcommands

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Table maps a subcommand's name to the function that serves it (given the arguments after it).
type Table map[string]func(args []string)

// Run serves os.Args with table: a missing or unknown subcommand is a usage error (exit 2).
func Run(program string, table Table) {
	os.Exit(Dispatch(program, table, os.Args[1:], os.Stderr))
}

// Dispatch calls the subcommand args[0] names with the rest of args and returns 0, or says on
// stderr what program serves and returns 2.
func Dispatch(program string, table Table, args []string, stderr io.Writer) int {
	names := make([]string, 0, len(table))
	for name := range table {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(args) < 1 {
		fmt.Fprintf(stderr, "usage: %s %s [flags]\n", program, strings.Join(names, "|"))
		return 2
	}
	serve, ok := table[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "%s: unknown subcommand %q (it serves %s)\n", program, args[0], strings.Join(names, ", "))
		return 2
	}
	serve(args[1:])
	return 0
}
