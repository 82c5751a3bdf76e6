{{/*
The `app.kubernetes.io/name` label: podmut-webhook, as in policies/deploy.
*/}}
{{- define "podmut.name" -}}
{{- default (printf "%s-webhook" .Chart.Name) .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every object's name: the release name when it contains the chart's name (release
`podmut` gives podmut-webhook, podmut-settings, ... as policies/deploy names them), else
`<release>-podmut`. Kept to 47 characters so `<fullname>-webhook-tls` fits 63.
*/}}
{{- define "podmut.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 47 | trimSuffix "-" }}
{{- else if contains .Chart.Name .Release.Name }}
{{- .Release.Name | trunc 47 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 47 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* The webhook's Deployment, Service, PodDisruptionBudget, HPA and serving Certificate. */}}
{{- define "podmut.webhookName" -}}
{{- printf "%s-webhook" (include "podmut.fullname" .) }}
{{- end }}

{{/* The settings ConfigMap. */}}
{{- define "podmut.settingsName" -}}
{{- printf "%s-settings" (include "podmut.fullname" .) }}
{{- end }}

{{/* The Secret with the serving certificate. */}}
{{- define "podmut.tlsSecretName" -}}
{{- default (printf "%s-webhook-tls" (include "podmut.fullname" .)) .Values.certificate.secretName }}
{{- end }}

{{/* The ServiceAccount the Pods run as. */}}
{{- define "podmut.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "podmut.webhookName" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* `podmut-0.1.0`, the helm.sh/chart label. */}}
{{- define "podmut.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* What selects the webhook's Pods (Deployment, Service, PodDisruptionBudget, anti-affinity). */}}
{{- define "podmut.selectorLabels" -}}
app.kubernetes.io/name: {{ include "podmut.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The labels of every object. */}}
{{- define "podmut.labels" -}}
helm.sh/chart: {{ include "podmut.chart" . }}
{{ include "podmut.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/component: admission-webhook
app.kubernetes.io/part-of: podmut
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The image reference: repository@digest, else repository:tag. */}}
{{- define "podmut.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/* The settings document the webhook reads: `enforcement` and `settings`. */}}
{{- define "podmut.settings" -}}
{{- $settings := deepCopy .Values.settings | default dict }}
{{- $_ := set $settings "enforcement" .Values.enforcement }}
{{- toYaml $settings }}
{{- end }}

{{/* The Service's DNS names, which the serving certificate must carry. */}}
{{- define "podmut.dnsNames" -}}
- {{ include "podmut.webhookName" . }}.{{ .Release.Namespace }}.svc
- {{ include "podmut.webhookName" . }}.{{ .Release.Namespace }}.svc.cluster.local
{{- end }}
