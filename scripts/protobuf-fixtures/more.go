package main

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The kinds read whole but for managedFields (and a ControllerRevision without its data), one
// object each with its managedFields set, so the walker is seen to skip them.

func managed(o metav1.ObjectMeta) metav1.ObjectMeta {
	o.ManagedFields = managedFields(1)[:1]
	return o
}

func serviceAccount() corev1.ServiceAccount {
	return corev1.ServiceAccount{
		ObjectMeta:                   managed(om("web", "ns", map[string]string{"app": "web"})),
		Secrets:                      []corev1.ObjectReference{{Name: "web-token"}},
		ImagePullSecrets:             []corev1.LocalObjectReference{{Name: "registry"}},
		AutomountServiceAccountToken: ptr(false),
	}
}

func endpoints() corev1.Endpoints {
	return corev1.Endpoints{
		ObjectMeta: managed(om("web", "ns", nil)),
		Subsets: []corev1.EndpointSubset{{
			Addresses:         []corev1.EndpointAddress{{IP: "10.244.1.7", NodeName: ptr("node-1"), TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: "web-1", Namespace: "ns", UID: "uid-1"}}},
			NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.244.2.8"}},
			Ports:             []corev1.EndpointPort{{Name: "http", Port: 8080, Protocol: corev1.ProtocolTCP}},
		}},
	}
}

func resourceQuota() corev1.ResourceQuota {
	return corev1.ResourceQuota{
		ObjectMeta: managed(om("quota", "ns", nil)),
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("100"), corev1.ResourceRequestsCPU: resource.MustParse("20")}},
		Status:     corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("100")}, Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("7")}},
	}
}

func rules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"pods", "configmaps"}, ResourceNames: []string{"one"}},
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}},
	}
}

func subjects() []rbacv1.Subject {
	return []rbacv1.Subject{{Kind: "ServiceAccount", Name: "web", Namespace: "ns"}, {Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: "devs"}}
}

func lease() coordinationv1.Lease {
	renew := metav1.NewMicroTime(at(30).Time.Add(123456000))
	return coordinationv1.Lease{
		ObjectMeta: managed(om("node-1", "kube-node-lease", nil)),
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr("node-1"), LeaseDurationSeconds: ptr(int32(40)), RenewTime: &renew, LeaseTransitions: ptr(int32(0))},
	}
}

func eventV1() eventsv1.Event {
	return eventsv1.Event{
		ObjectMeta:          managed(om("web-1.17c", "ns", nil)),
		EventTime:           metav1.NewMicroTime(at(5).Time.Add(42000)),
		Series:              &eventsv1.EventSeries{Count: 3, LastObservedTime: metav1.NewMicroTime(at(9).Time)},
		ReportingController: "kubelet",
		ReportingInstance:   "kubelet-node-1",
		Action:              "Pulling",
		Reason:              "Pulling",
		Regarding:           corev1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "web-1", UID: "uid-1", APIVersion: "v1", FieldPath: "spec.containers{app}"},
		Note:                "Pulling image \"registry.example.com/team/app:1.4.2\"",
		Type:                "Normal",
		DeprecatedSource:    corev1.EventSource{Component: "kubelet", Host: "node-1"},
	}
}

func ingress() networkingv1.Ingress {
	pathType := networkingv1.PathTypePrefix
	return networkingv1.Ingress{
		ObjectMeta: managed(om("web", "ns", nil)),
		Spec: networkingv1.IngressSpec{
			IngressClassName: ptr("nginx"),
			TLS:              []networkingv1.IngressTLS{{Hosts: []string{"web.example.com"}, SecretName: "web-tls"}},
			Rules: []networkingv1.IngressRule{{Host: "web.example.com", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
				{Path: "/", PathType: &pathType, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}},
			}}}}},
		},
		Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "203.0.113.10"}}}},
	}
}

func networkPolicy() networkingv1.NetworkPolicy {
	port := intstr.FromInt32(8080)
	return networkingv1.NetworkPolicy{
		ObjectMeta: managed(om("web", "ns", nil)),
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "front"}}}}, Ports: []networkingv1.NetworkPolicyPort{{Port: &port}}}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
		},
	}
}

func pdb() policyv1.PodDisruptionBudget {
	minAvailable := intstr.FromString("50%")
	return policyv1.PodDisruptionBudget{
		ObjectMeta: managed(om("web", "ns", nil)),
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		Status: policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 2, DisruptionsAllowed: 1, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3,
			Conditions: []metav1.Condition{{Type: "DisruptionAllowed", Status: metav1.ConditionTrue, LastTransitionTime: at(4), Reason: "SufficientPods"}}},
	}
}

func hpa() autoscalingv2.HorizontalPodAutoscaler {
	return autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: managed(om("web", "ns", nil)),
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
			MinReplicas:    ptr(int32(2)),
			MaxReplicas:    10,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
				Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr(int32(80))}}}},
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 3, DesiredReplicas: 3, LastScaleTime: ptr(at(8)),
			Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, LastTransitionTime: at(3), Reason: "ReadyForNewScale"}}},
	}
}

func controllerRevision() appsv1.ControllerRevision {
	return appsv1.ControllerRevision{
		ObjectMeta: managed(om("db-7c9d", "ns", map[string]string{"controller-revision-hash": "7c9d"})),
		Data:       runtime.RawExtension{Raw: []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"db","image":"postgres:16"}]}}}}`)},
		Revision:   3,
	}
}

func moreCases() []fixture {
	rbac := rbacv1.SchemeGroupVersion
	return []fixture{
		{"serviceaccountlist", core, &corev1.ServiceAccountList{Items: []corev1.ServiceAccount{serviceAccount()}}},
		{"endpointslist", core, &corev1.EndpointsList{Items: []corev1.Endpoints{endpoints()}}},
		{"resourcequotalist", core, &corev1.ResourceQuotaList{Items: []corev1.ResourceQuota{resourceQuota()}}},
		{"rolelist", rbac, &rbacv1.RoleList{Items: []rbacv1.Role{{ObjectMeta: managed(om("reader", "ns", nil)), Rules: rules()}}}},
		{"rolebindinglist", rbac, &rbacv1.RoleBindingList{Items: []rbacv1.RoleBinding{{ObjectMeta: managed(om("reader", "ns", nil)), Subjects: subjects(), RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "reader"}}}}},
		{"clusterrolelist", rbac, &rbacv1.ClusterRoleList{Items: []rbacv1.ClusterRole{
			{ObjectMeta: managed(om("viewer", "", nil)), Rules: rules()},
			{ObjectMeta: om("aggregate", "", nil), AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"rbac.example.com/aggregate": "true"}}}}},
		}}},
		{"clusterrolebindinglist", rbac, &rbacv1.ClusterRoleBindingList{Items: []rbacv1.ClusterRoleBinding{{ObjectMeta: managed(om("viewer", "", nil)), Subjects: subjects(), RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "viewer"}}}}},
		{"leaselist", coordinationv1.SchemeGroupVersion, &coordinationv1.LeaseList{Items: []coordinationv1.Lease{lease()}}},
		{"eventv1list", eventsv1.SchemeGroupVersion, &eventsv1.EventList{Items: []eventsv1.Event{eventV1()}}},
		{"ingresslist", networkingv1.SchemeGroupVersion, &networkingv1.IngressList{Items: []networkingv1.Ingress{ingress()}}},
		{"networkpolicylist", networkingv1.SchemeGroupVersion, &networkingv1.NetworkPolicyList{Items: []networkingv1.NetworkPolicy{networkPolicy()}}},
		{"poddisruptionbudgetlist", policyv1.SchemeGroupVersion, &policyv1.PodDisruptionBudgetList{Items: []policyv1.PodDisruptionBudget{pdb()}}},
		{"horizontalpodautoscalerlist", autoscalingv2.SchemeGroupVersion, &autoscalingv2.HorizontalPodAutoscalerList{Items: []autoscalingv2.HorizontalPodAutoscaler{hpa()}}},
		{"controllerrevisionlist", apps, &appsv1.ControllerRevisionList{Items: []appsv1.ControllerRevision{controllerRevision()}}},
	}
}
