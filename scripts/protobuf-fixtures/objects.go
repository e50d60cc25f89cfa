package main

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func ptr[T any](v T) *T { return &v }

// at is a fixed instant plus s seconds: the fixtures are the same on every run.
func at(s int) metav1.Time {
	return metav1.NewTime(time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC).Add(time.Duration(s) * time.Second))
}

func intOrString(s string) intstr.IntOrString { return intstr.FromString(s) }

func om(name, ns string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID(fmt.Sprintf("uid-%s-%s", ns, name)), ResourceVersion: "101", Generation: 2, CreationTimestamp: at(0), Labels: labels}
}

// managedFields as server-side apply leaves them: a few managers, each with its fields as JSON.
func managedFields(i int) []metav1.ManagedFieldsEntry {
	fields := func(s string) *metav1.FieldsV1 { return &metav1.FieldsV1{Raw: []byte(s)} }
	spec := `{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"` + fmt.Sprint(i) + `\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:env":{".":{},"k:{\"name\":\"LOG_LEVEL\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},"f:imagePullPolicy":{},"f:livenessProbe":{".":{},"f:httpGet":{".":{},"f:path":{},"f:port":{},"f:scheme":{}},"f:periodSeconds":{}},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:name":{},"f:protocol":{}}},"f:resources":{".":{},"f:limits":{".":{},"f:memory":{}},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{},"f:volumeMounts":{".":{},"k:{\"mountPath\":\"/etc/app\"}":{".":{},"f:mountPath":{},"f:name":{}}}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{},"f:volumes":{".":{},"k:{\"name\":\"config\"}":{".":{},"f:configMap":{".":{},"f:defaultMode":{},"f:name":{}},"f:name":{}}}}}`
	status := `{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Initialized\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.244.1.` + fmt.Sprint(i%250) + `\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}`
	return []metav1.ManagedFieldsEntry{
		{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: ptr(at(1)), FieldsType: "FieldsV1", FieldsV1: fields(spec)},
		{Manager: "kube-scheduler", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: ptr(at(2)), FieldsType: "FieldsV1", FieldsV1: fields(`{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"PodScheduled\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}}}}`), Subresource: "status"},
		{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: ptr(at(9)), FieldsType: "FieldsV1", FieldsV1: fields(status), Subresource: "status"},
	}
}

func container(name string) corev1.Container {
	return corev1.Container{
		Name: name, Image: "registry.example.com/team/" + name + ":1.4.2", ImagePullPolicy: corev1.PullIfNotPresent,
		Args:  []string{"--port=8080", "--log-format=json"},
		Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
		Env:   []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "info"}, {Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}}},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
		},
		VolumeMounts:             []corev1.VolumeMount{{Name: "config", MountPath: "/etc/app"}, {Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
		LivenessProbe:            &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}}, PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3},
		ReadinessProbe:           &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}, InitialDelaySeconds: 2, PeriodSeconds: 5, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3},
		TerminationMessagePath:   "/dev/termination-log",
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		SecurityContext:          &corev1.SecurityContext{RunAsNonRoot: ptr(true), AllowPrivilegeEscalation: ptr(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
	}
}

func podSpec(node string) corev1.PodSpec {
	return corev1.PodSpec{
		NodeName:                      node,
		Containers:                    []corev1.Container{container("app")},
		RestartPolicy:                 corev1.RestartPolicyAlways,
		TerminationGracePeriodSeconds: ptr(int64(30)),
		DNSPolicy:                     corev1.DNSClusterFirst,
		ServiceAccountName:            "default",
		SecurityContext:               &corev1.PodSecurityContext{FSGroup: ptr(int64(2000))},
		SchedulerName:                 "default-scheduler",
		EnableServiceLinks:            ptr(true),
		PreemptionPolicy:              ptr(corev1.PreemptLowerPriority),
		Priority:                      ptr(int32(0)),
		Tolerations: []corev1.Toleration{
			{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
			{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
		},
		Volumes: []corev1.Volume{
			{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app-config"}, DefaultMode: ptr(int32(420))}}},
			{Name: "kube-api-access", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{DefaultMode: ptr(int32(420)), Sources: []corev1.VolumeProjection{
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: ptr(int64(3607)), Path: "token"}},
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			}}}},
		},
	}
}

// pod is a Deployment's running pod; with managed, it carries managedFields as a real one does.
func pod(i int, managed bool) corev1.Pod {
	name := fmt.Sprintf("web-5d8f9c7b6-%05d", i)
	m := om(name, "shop", map[string]string{"app": "web", "pod-template-hash": "5d8f9c7b6"})
	m.GenerateName = "web-5d8f9c7b6-"
	m.ResourceVersion = fmt.Sprint(100000 + i)
	m.Generation = 1
	m.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-03-14T15:00:00Z"}
	m.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d8f9c7b6", UID: "rs-uid", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}
	if managed {
		m.ManagedFields = managedFields(i)
	}
	return corev1.Pod{
		ObjectMeta: m,
		Spec:       podSpec(fmt.Sprintf("node-%d", i%7)),
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: at(3)},
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: at(8)},
				{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: at(8)},
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: at(2)},
			},
			HostIP: "10.0.0.7", HostIPs: []corev1.HostIP{{IP: "10.0.0.7"}},
			PodIP: fmt.Sprintf("10.244.1.%d", i%250), PodIPs: []corev1.PodIP{{IP: fmt.Sprintf("10.244.1.%d", i%250)}},
			StartTime: ptr(at(3)),
			QOSClass:  corev1.PodQOSBurstable,
			ContainerStatuses: []corev1.ContainerStatus{{
				Name: "app", Ready: true, Started: ptr(true), RestartCount: int32(i % 3),
				Image: "registry.example.com/team/app:1.4.2", ImageID: "registry.example.com/team/app@sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
				ContainerID: "containerd://0b1c2d3e4f",
				State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: at(4)}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					ExitCode: 137, Reason: "OOMKilled", StartedAt: at(-100), FinishedAt: at(-1), ContainerID: "containerd://00aa",
				}},
			}},
		},
	}
}

// edgePod holds what a decoder gets wrong: deletion, negative and large numbers, non-ASCII text,
// a map key "__proto__", an init container with a terminated state, empty strings and zero times.
func edgePod() corev1.Pod {
	p := pod(99, false)
	p.Name = "edge-ü-pod"
	p.DeletionTimestamp = ptr(at(60))
	p.DeletionGracePeriodSeconds = ptr(int64(0))
	p.Generation = 9007199254740993 // above 2^53: JSON.parse rounds it, the walker must round it the same
	p.Labels["__proto__"] = "polluted?"
	p.Annotations["note"] = "日本語 ✓ \u00e9\U0001F600"
	p.Annotations["empty"] = ""
	p.Finalizers = []string{"example.com/cleanup"}
	p.Spec.ActiveDeadlineSeconds = ptr(int64(-5))
	p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox", RestartPolicy: ptr(corev1.ContainerRestartPolicyAlways), StartupProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}}}
	p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "example.com/gate"}}
	p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "wait"}}
	p.Status.Phase = corev1.PodFailed
	p.Status.Reason = "DeadlineExceeded"
	p.Status.Message = "Pod was active on the node longer than the specified deadline"
	p.Status.InitContainerStatuses = []corev1.ContainerStatus{{
		Name: "init", RestartCount: 2147483647,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: -1, Signal: 9, Reason: "Error", FinishedAt: at(50)}},
	}}
	p.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 5m0s"}}
	p.Status.ContainerStatuses[0].Ready = false
	p.Status.Conditions[1] = corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", LastProbeTime: metav1.Time{}, LastTransitionTime: at(-62135596800 + 1577880000)}
	return p
}

func podTemplate() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: podSpec("")}
}

func event(series bool) corev1.Event {
	e := corev1.Event{
		ObjectMeta:     om("web.17c2", "shop", nil),
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "web-5d8f9c7b6-00001", UID: "pod-uid", APIVersion: "v1", ResourceVersion: "100001", FieldPath: "spec.containers{app}"},
		Reason:         "Unhealthy", Message: "Readiness probe failed: HTTP probe failed with statuscode: 503",
		Source: corev1.EventSource{Component: "kubelet", Host: "node-1"}, FirstTimestamp: at(10), LastTimestamp: at(70), Count: 7, Type: corev1.EventTypeWarning,
	}
	if series {
		e.Name = "web.17c3"
		e.FirstTimestamp = metav1.Time{}
		e.LastTimestamp = metav1.Time{}
		e.Count = 0
		e.EventTime = metav1.NewMicroTime(time.Date(2026, 3, 14, 15, 10, 0, 123456789, time.UTC))
		e.Series = &corev1.EventSeries{Count: 3, LastObservedTime: metav1.NewMicroTime(time.Date(2026, 3, 14, 15, 11, 0, 5000, time.UTC))}
		e.ReportingController = "kubelet"
		e.ReportingInstance = "node-1"
		e.Action = "Probe"
	}
	return e
}

func node() corev1.Node {
	return corev1.Node{
		ObjectMeta: om("node-1", "", map[string]string{"kubernetes.io/hostname": "node-1"}),
		Spec:       corev1.NodeSpec{PodCIDR: "10.244.1.0/24", Taints: []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}, Unschedulable: true},
		Status: corev1.NodeStatus{
			Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16393256Ki"), corev1.ResourcePods: resource.MustParse("110")},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3920m"), corev1.ResourceMemory: resource.MustParse("15Gi")},
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: at(30), LastTransitionTime: at(0), Reason: "KubeletReady", Message: "kubelet is posting ready status"}},
			Addresses:   []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.7"}},
			NodeInfo:    corev1.NodeSystemInfo{KubeletVersion: "v1.36.3", OSImage: "Debian GNU/Linux 13", Architecture: "amd64", OperatingSystem: "linux"},
			Images:      []corev1.ContainerImage{{Names: []string{"registry.example.com/team/app:1.4.2"}, SizeBytes: 52428800}},
		},
	}
}

func service() corev1.Service {
	return corev1.Service{
		ObjectMeta: om("web", "shop", nil),
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.12", ClusterIPs: []string{"10.96.0.12"}, Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}, {Name: "metrics", Port: 9090, TargetPort: intstr.FromInt32(9090), Protocol: corev1.ProtocolTCP}},
		},
	}
}

func pv() corev1.PersistentVolume {
	return corev1.PersistentVolume{
		ObjectMeta: om("pv-1", "", nil),
		Spec: corev1.PersistentVolumeSpec{
			Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data/pv-1"}},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain, ClaimRef: &corev1.ObjectReference{Namespace: "shop", Name: "data"},
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound, LastPhaseTransitionTime: ptr(at(5))},
	}
}

func pvc() corev1.PersistentVolumeClaim {
	return corev1.PersistentVolumeClaim{
		ObjectMeta: om("data", "shop", nil),
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, VolumeName: "pv-1", StorageClassName: ptr("standard"),
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
		},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
	}
}

func deployment() appsv1.Deployment {
	return appsv1.Deployment{
		ObjectMeta: om("web", "shop", map[string]string{"app": "web"}),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(3)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: podTemplate(),
			Strategy:             appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr(intOrString("25%")), MaxSurge: ptr(intstr.FromInt32(1))}},
			RevisionHistoryLimit: ptr(int32(10)), ProgressDeadlineSeconds: ptr(int32(600)),
		},
		Status: appsv1.DeploymentStatus{
			ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 2, UnavailableReplicas: 1,
			Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, LastUpdateTime: at(20), LastTransitionTime: at(20), Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability."}},
		},
	}
}

func job() batchv1.Job {
	return batchv1.Job{
		ObjectMeta: om("migrate", "shop", nil),
		Spec:       batchv1.JobSpec{Parallelism: ptr(int32(1)), Completions: ptr(int32(1)), BackoffLimit: ptr(int32(6)), Template: podTemplate(), CompletionMode: ptr(batchv1.NonIndexedCompletion), Suspend: ptr(false)},
		Status: batchv1.JobStatus{
			StartTime: ptr(at(1)), CompletionTime: ptr(at(40)), Succeeded: 1, Ready: ptr(int32(0)), Terminating: ptr(int32(0)),
			Conditions:              []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastProbeTime: at(40), LastTransitionTime: at(40)}},
			UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{},
		},
	}
}

func endpointSlice() discoveryv1.EndpointSlice {
	return discoveryv1.EndpointSlice{
		ObjectMeta:  om("web-abc12", "shop", map[string]string{"kubernetes.io/service-name": "web"}),
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{
			Addresses: []string{"10.244.1.5"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(true), Serving: ptr(true), Terminating: ptr(false)},
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "web-5d8f9c7b6-00001"}, NodeName: ptr("node-1"),
		}},
		Ports: []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(int32(8080)), Protocol: ptr(corev1.ProtocolTCP)}},
	}
}
