{{/*
Validate DaemonSet values
*/}}
{{- define "bjw-s.common.lib.daemonset.validate" -}}
  {{- $rootContext := .rootContext -}}
  {{- $daemonsetValues := .object -}}
{{- end -}}
