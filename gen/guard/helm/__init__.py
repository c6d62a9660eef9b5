"""The Helm layer: what helm-controller's upgrade of a changed HelmRelease deletes.

helm-controller renders a HelmRelease's chart with Helm and, on upgrade, deletes every object of
the old release's manifest that the new one no longer holds (unless annotated
`helm.sh/resource-policy: keep`). The guard renders both revisions of each HelmRelease whose inputs
differ (its spec, the ConfigMaps and Secrets its valuesFrom reads, its chart source, the chart's
files or version) with Helm's own library through coredns-gen-helper (tools/helper/helm), and
hands the difference to the rules as it hands them Flux's prunes:

- sources.py: where a HelmRelease's chart comes from (a HelmRepository's index or registry, an
  OCIRepository, a folder of this repository), mirrors applied;
- store.py: charts fetched as source-controller fetches them, kept by digest and sealed;
- client.py: the helper's `helm` subcommand;
- releases.py: which releases changed, both renders, and what the upgrade deletes.
"""
