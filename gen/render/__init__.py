"""`coredns-gen render`: values -> checked files -> the repository, all or nothing.

The pipeline, in order: values.py loads and validates a values file (checks.py, addresses.py,
injection.py, labels.py for the cross-field checks); cluster.py renders one cluster in memory
(flux_objects.py, object_schemas.py); render_check.py and structure.py prove the output means what
the values asked (wanted.py); project.py renders a fleet; writer.py and journal.py apply it.
Kept empty so importing one module (values, for `schema` and `verify`) does not load the rest.
"""
