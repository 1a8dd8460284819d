package kubernetes

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// scaledObject is KEDA's keda.sh/v1alpha1 ScaledObject as far as these
// manifests may use it (field names from the KEDA ScaledObject
// specification, keda.sh/docs/latest/reference/scaledobject-spec). KEDA's
// types are not in k8s.io/api; decoding into this struct with unknown
// fields refused catches a misspelt or misplaced field as the API types do
// for the built-in kinds. The HPA behavior KEDA passes through is the
// autoscaling/v2 type itself.
type scaledObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              scaledObjectSpec `json:"spec"`
}

type scaledObjectSpec struct {
	ScaleTargetRef        scaleTarget `json:"scaleTargetRef"`
	PollingInterval       *int32      `json:"pollingInterval,omitempty"`
	CooldownPeriod        *int32      `json:"cooldownPeriod,omitempty"`
	InitialCooldownPeriod *int32      `json:"initialCooldownPeriod,omitempty"`
	IdleReplicaCount      *int32      `json:"idleReplicaCount,omitempty"`
	MinReplicaCount       *int32      `json:"minReplicaCount,omitempty"`
	MaxReplicaCount       *int32      `json:"maxReplicaCount,omitempty"`
	Advanced              *struct {
		RestoreToOriginalReplicaCount bool `json:"restoreToOriginalReplicaCount,omitempty"`
		HorizontalPodAutoscalerConfig *struct {
			Name     string                                         `json:"name,omitempty"`
			Behavior *autoscalingv2.HorizontalPodAutoscalerBehavior `json:"behavior,omitempty"`
		} `json:"horizontalPodAutoscalerConfig,omitempty"`
	} `json:"advanced,omitempty"`
	Fallback *struct {
		FailureThreshold int32 `json:"failureThreshold"`
		Replicas         int32 `json:"replicas"`
	} `json:"fallback,omitempty"`
	Triggers []scaleTrigger `json:"triggers"`
}

type scaleTarget struct {
	APIVersion             string `json:"apiVersion,omitempty"`
	Kind                   string `json:"kind,omitempty"`
	Name                   string `json:"name"`
	EnvSourceContainerName string `json:"envSourceContainerName,omitempty"`
}

type scaleTrigger struct {
	Type              string            `json:"type"`
	Name              string            `json:"name,omitempty"`
	MetricType        string            `json:"metricType,omitempty"`
	UseCachedMetrics  bool              `json:"useCachedMetrics,omitempty"`
	Metadata          map[string]string `json:"metadata"`
	AuthenticationRef *struct {
		Name string `json:"name"`
		Kind string `json:"kind,omitempty"`
	} `json:"authenticationRef,omitempty"`
}

// prometheusMetadata are the metadata keys KEDA's prometheus scaler reads;
// any other key is a typo KEDA would ignore silently.
var prometheusMetadata = map[string]bool{
	"serverAddress": true, "query": true, "threshold": true, "activationThreshold": true,
	"namespace": true, "customHeaders": true, "ignoreNullValues": true, "unsafeSsl": true,
	"queryParameters": true, "timeout": true,
}
