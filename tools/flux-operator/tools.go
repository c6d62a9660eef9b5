// Package fluxoperator pins the Flux Operator CLI that coredns-gen-helper's `resourceset`
// subcommand runs (tools/helper/resourceset): the builder behind `flux-operator build resourceset`
// is in the module's internal/ packages, which no other module may import, so the CLI itself is
// built, from this module's graph (the Flux Operator's own requirements, unchanged), as
// gen/bin/coredns-gen-flux-operator:
//
//	GOTOOLCHAIN=go1.27.3 go build -trimpath -o ../../gen/bin/coredns-gen-flux-operator \
//	    github.com/controlplaneio-fluxcd/flux-operator/cmd/cli
//
// It is a module of its own, not a requirement of tools/helper, so that neither graph moves
// the other: the helper builds with kustomize-controller's versions, this CLI with the Flux
// Operator's.
package fluxoperator
