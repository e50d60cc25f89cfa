package main

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The rarer built-in kinds a cluster holds (storage, scheduling, runtime and ingress classes, limit
// ranges, webhooks), read whole but for managedFields: one object each, their optional fields set.

func limitRange() corev1.LimitRange {
	return corev1.LimitRange{
		ObjectMeta: managed(om("limits", "ns", nil)),
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
			Type:                 corev1.LimitTypeContainer,
			Max:                  corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("1Gi")},
			Default:              corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")},
			DefaultRequest:       corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
			MaxLimitRequestRatio: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")},
		}}},
	}
}

func storageClass() storagev1.StorageClass {
	mode := storagev1.VolumeBindingWaitForFirstConsumer
	reclaim := corev1.PersistentVolumeReclaimRetain
	return storagev1.StorageClass{
		ObjectMeta:           managed(om("fast", "", nil)),
		Provisioner:          "ebs.csi.aws.com",
		Parameters:           map[string]string{"type": "gp3", "iops": "3000"},
		ReclaimPolicy:        &reclaim,
		MountOptions:         []string{"debug"},
		AllowVolumeExpansion: ptr(true),
		VolumeBindingMode:    &mode,
		AllowedTopologies:    []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: "topology.kubernetes.io/zone", Values: []string{"eu-west-1a"}}}}},
	}
}

func csiDriver() storagev1.CSIDriver {
	policy := storagev1.FileFSGroupPolicy
	return storagev1.CSIDriver{
		ObjectMeta: managed(om("ebs.csi.aws.com", "", nil)),
		Spec: storagev1.CSIDriverSpec{
			AttachRequired:       ptr(true),
			PodInfoOnMount:       ptr(false),
			VolumeLifecycleModes: []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent},
			StorageCapacity:      ptr(false),
			FSGroupPolicy:        &policy,
			TokenRequests:        []storagev1.TokenRequest{{Audience: "sts.amazonaws.com", ExpirationSeconds: ptr(int64(3600))}},
			RequiresRepublish:    ptr(false),
			SELinuxMount:         ptr(true),
		},
	}
}

func priorityClass() schedulingv1.PriorityClass {
	never := corev1.PreemptNever
	return schedulingv1.PriorityClass{ObjectMeta: managed(om("batch-low", "", nil)), Value: -10, GlobalDefault: false, Description: "batch work, never preempts", PreemptionPolicy: &never}
}

func runtimeClass() nodev1.RuntimeClass {
	return nodev1.RuntimeClass{
		ObjectMeta: managed(om("gvisor", "", nil)),
		Handler:    "runsc",
		Overhead:   &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("64Mi")}},
		Scheduling: &nodev1.Scheduling{
			NodeSelector: map[string]string{"sandbox": "gvisor"},
			Tolerations:  []corev1.Toleration{{Key: "sandbox", Operator: corev1.TolerationOpEqual, Value: "gvisor", Effect: corev1.TaintEffectNoSchedule}},
		},
	}
}

func ingressClass() networkingv1.IngressClass {
	scope := networkingv1.IngressClassParametersReferenceScopeNamespace
	return networkingv1.IngressClass{
		ObjectMeta: managed(om("nginx", "", map[string]string{"app.kubernetes.io/component": "controller"})),
		Spec: networkingv1.IngressClassSpec{
			Controller: "k8s.io/ingress-nginx",
			Parameters: &networkingv1.IngressClassParametersReference{APIGroup: ptr("k8s.example.com"), Kind: "IngressParameters", Name: "external", Scope: &scope, Namespace: ptr("ingress")},
		},
	}
}

func webhookClientConfig() admissionregistrationv1.WebhookClientConfig {
	return admissionregistrationv1.WebhookClientConfig{
		Service:  &admissionregistrationv1.ServiceReference{Namespace: "policy", Name: "webhook", Path: ptr("/validate"), Port: ptr(int32(443))},
		CABundle: []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"),
	}
}

func webhookRules() []admissionregistrationv1.RuleWithOperations {
	scope := admissionregistrationv1.NamespacedScope
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}, Scope: &scope},
	}}
}

func validatingWebhooks() admissionregistrationv1.ValidatingWebhookConfiguration {
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	equivalent := admissionregistrationv1.Equivalent
	return admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: managed(om("policy.example.com", "", nil)),
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "deployments.policy.example.com",
			ClientConfig:            webhookClientConfig(),
			Rules:                   webhookRules(),
			FailurePolicy:           &fail,
			MatchPolicy:             &equivalent,
			NamespaceSelector:       &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "policy", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"off"}}}},
			ObjectSelector:          &metav1.LabelSelector{},
			SideEffects:             &none,
			TimeoutSeconds:          ptr(int32(5)),
			AdmissionReviewVersions: []string{"v1"},
			MatchConditions:         []admissionregistrationv1.MatchCondition{{Name: "not-system", Expression: "!request.userInfo.username.startsWith('system:')"}},
		}},
	}
}

func mutatingWebhooks() admissionregistrationv1.MutatingWebhookConfiguration {
	ignore := admissionregistrationv1.Ignore
	none := admissionregistrationv1.SideEffectClassNone
	never := admissionregistrationv1.NeverReinvocationPolicy
	return admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: managed(om("inject.example.com", "", nil)),
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "pods.inject.example.com",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr("https://inject.example.com/mutate")},
			Rules:                   webhookRules(),
			FailurePolicy:           &ignore,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1", "v1beta1"},
			ReinvocationPolicy:      &never,
		}},
	}
}

func restCases() []fixture {
	return []fixture{
		{"limitrangelist", core, &corev1.LimitRangeList{Items: []corev1.LimitRange{limitRange()}}},
		{"storageclasslist", storagev1.SchemeGroupVersion, &storagev1.StorageClassList{Items: []storagev1.StorageClass{storageClass()}}},
		{"csidriverlist", storagev1.SchemeGroupVersion, &storagev1.CSIDriverList{Items: []storagev1.CSIDriver{csiDriver()}}},
		{"priorityclasslist", schedulingv1.SchemeGroupVersion, &schedulingv1.PriorityClassList{Items: []schedulingv1.PriorityClass{priorityClass(), {ObjectMeta: om("default-zero", "", nil), GlobalDefault: true}}}},
		{"runtimeclasslist", nodev1.SchemeGroupVersion, &nodev1.RuntimeClassList{Items: []nodev1.RuntimeClass{runtimeClass(), {ObjectMeta: om("runc", "", nil), Handler: "runc"}}}},
		{"ingressclasslist", networkingv1.SchemeGroupVersion, &networkingv1.IngressClassList{Items: []networkingv1.IngressClass{ingressClass()}}},
		{"validatingwebhookconfigurationlist", admissionregistrationv1.SchemeGroupVersion, &admissionregistrationv1.ValidatingWebhookConfigurationList{Items: []admissionregistrationv1.ValidatingWebhookConfiguration{validatingWebhooks()}}},
		{"mutatingwebhookconfigurationlist", admissionregistrationv1.SchemeGroupVersion, &admissionregistrationv1.MutatingWebhookConfigurationList{Items: []admissionregistrationv1.MutatingWebhookConfiguration{mutatingWebhooks()}}},
	}
}
