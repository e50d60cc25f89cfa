// Command protobuf-fixtures writes Kubernetes objects as kube-apiserver writes them: protobuf
// through apimachinery's serializer (magic "k8s\0", runtime.Unknown envelope), watch events through
// its length-delimited framer, and JSON through encoding/json, so the walker's tests compare the
// walker's output with JSON.parse of the very same object.
//
//	protobuf-fixtures -out DIR              the test fixtures: NAME.pb and NAME.json per case
//	protobuf-fixtures -out DIR -pods N      the bench's pages: pods-N.{pb,json} (full pods) and
//	                                        pods-meta-N.{pb,json} (PartialObjectMetadataList), and
//	                                        the same pods as watch streams: watch-pods-N.{pb,jsonl}
//	                                        and watch-pods-meta-N.{pb,jsonl} (one ADDED event each)
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/framer"
)

var scheme = runtime.NewScheme()

func init() {
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, discoveryv1.AddToScheme,
		rbacv1.AddToScheme, coordinationv1.AddToScheme, eventsv1.AddToScheme, networkingv1.AddToScheme, policyv1.AddToScheme, autoscalingv2.AddToScheme,
		storagev1.AddToScheme, schedulingv1.AddToScheme, nodev1.AddToScheme, admissionregistrationv1.AddToScheme} {
		must(add(scheme))
	}
	must(metav1.AddMetaToScheme(scheme))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

var pb = protobuf.NewSerializer(scheme, scheme)

// encode returns the protobuf body and the JSON body of obj, typed as gv (items of a list stay
// untyped, as the API server writes them).
func encode(obj runtime.Object, gv schema.GroupVersion) ([]byte, []byte) {
	gvks, _, err := scheme.ObjectKinds(obj)
	must(err)
	gvk := gv.WithKind(gvks[0].Kind)
	// The API server's versioning codec types the object before either serializer sees it.
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	var buf bytes.Buffer
	must(pb.Encode(obj, &buf))
	j, err := json.Marshal(obj)
	must(err)
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return buf.Bytes(), j
}

func write(dir, name string, pbBody, jsonBody []byte) {
	must(os.WriteFile(filepath.Join(dir, name+".pb"), pbBody, 0o644))
	var pretty bytes.Buffer
	must(json.Indent(&pretty, jsonBody, "", " "))
	pretty.WriteByte('\n')
	must(os.WriteFile(filepath.Join(dir, name+".json"), pretty.Bytes(), 0o644))
}

func main() {
	out := flag.String("out", "", "directory to write into")
	pods := flag.Int("pods", 0, "write the bench's pages of this many pods instead of the fixtures")
	flag.Parse()
	if *out == "" {
		must(fmt.Errorf("-out is required"))
	}
	must(os.MkdirAll(*out, 0o755))
	if *pods > 0 {
		writePages(*out, *pods)
		return
	}
	for _, c := range append(append(cases(), moreCases()...), restCases()...) {
		p, j := encode(c.obj, c.gv)
		write(*out, c.name, p, j)
	}
	writeWatch(*out)
}

type fixture struct {
	name string
	gv   schema.GroupVersion
	obj  runtime.Object
}

var (
	core  = corev1.SchemeGroupVersion
	apps  = appsv1.SchemeGroupVersion
	batch = batchv1.SchemeGroupVersion
	meta  = metav1.SchemeGroupVersion
)

func cases() []fixture {
	status := &metav1.Status{
		Status: metav1.StatusFailure, Message: `pods "nope" is forbidden: User "u" cannot get resource "pods"`,
		Reason: metav1.StatusReasonForbidden, Code: 403,
		Details: &metav1.StatusDetails{Name: "nope", Kind: "pods", Causes: []metav1.StatusCause{{Type: "FieldValueInvalid", Message: "m", Field: "spec"}}},
	}
	podList := &corev1.PodList{
		ListMeta: metav1.ListMeta{ResourceVersion: "4711", Continue: "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ", RemainingItemCount: ptr(int64(1234))},
		Items:    []corev1.Pod{pod(0, true), pod(1, false), edgePod()},
	}
	return []fixture{
		{"pod", core, ptr(pod(7, true))},
		{"pod-edge", core, ptr(edgePod())},
		{"pod-empty", core, &corev1.Pod{}},
		{"podlist", core, podList},
		// A real API server's empty list has items [], not null (its storage makes the slice).
		{"podlist-empty", core, &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "12"}, Items: []corev1.Pod{}}},
		{"eventlist", core, &corev1.EventList{Items: []corev1.Event{event(false), event(true)}}},
		{"nodelist", core, &corev1.NodeList{Items: []corev1.Node{node()}}},
		{"namespacelist", core, &corev1.NamespaceList{Items: []corev1.Namespace{{ObjectMeta: om("default", "", nil), Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}}}},
		{"servicelist", core, &corev1.ServiceList{Items: []corev1.Service{service()}}},
		{"configmaplist", core, &corev1.ConfigMapList{Items: []corev1.ConfigMap{{ObjectMeta: om("cfg", "ns", nil), Data: map[string]string{"a": "b", "__proto__": "x"}, BinaryData: map[string][]byte{"bin": {0, 1, 2}}, Immutable: ptr(true)}}}},
		// Values planted for the walker's tests to look for (kube-protobuf.test.ts): never decoded.
		{"secretlist", core, &corev1.SecretList{Items: []corev1.Secret{{ObjectMeta: om("tls", "ns", nil), Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.key": []byte("planted-secret-value-0451")}, StringData: map[string]string{"password": "planted-string-data-0452"}}}}},
		{"persistentvolumelist", core, &corev1.PersistentVolumeList{Items: []corev1.PersistentVolume{pv()}}},
		{"persistentvolumeclaimlist", core, &corev1.PersistentVolumeClaimList{Items: []corev1.PersistentVolumeClaim{pvc()}}},
		{"replicationcontrollerlist", core, &corev1.ReplicationControllerList{Items: []corev1.ReplicationController{{ObjectMeta: om("rc", "ns", nil), Spec: corev1.ReplicationControllerSpec{Replicas: ptr(int32(0)), Selector: map[string]string{"app": "x"}, Template: &corev1.PodTemplateSpec{Spec: pod(1, false).Spec}}, Status: corev1.ReplicationControllerStatus{Replicas: 0}}}}},
		{"deploymentlist", apps, &appsv1.DeploymentList{Items: []appsv1.Deployment{deployment()}}},
		{"replicasetlist", apps, &appsv1.ReplicaSetList{Items: []appsv1.ReplicaSet{{ObjectMeta: om("web-5d8f", "ns", nil), Spec: appsv1.ReplicaSetSpec{Replicas: ptr(int32(3)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: podTemplate()}, Status: appsv1.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 2, ObservedGeneration: 4}}}}},
		{"statefulsetlist", apps, &appsv1.StatefulSetList{Items: []appsv1.StatefulSet{{ObjectMeta: om("db", "ns", nil), Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(2)), ServiceName: "db", Template: podTemplate(), VolumeClaimTemplates: []corev1.PersistentVolumeClaim{pvc()}}, Status: appsv1.StatefulSetStatus{Replicas: 2, ReadyReplicas: 1, AvailableReplicas: 1}}}}},
		{"daemonsetlist", apps, &appsv1.DaemonSetList{Items: []appsv1.DaemonSet{{ObjectMeta: om("agent", "kube-system", nil), Spec: appsv1.DaemonSetSpec{Template: podTemplate(), UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr(intOrString("10%"))}}}, Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 5, NumberReady: 4}}}}},
		{"joblist", batch, &batchv1.JobList{Items: []batchv1.Job{job()}}},
		{"cronjoblist", batch, &batchv1.CronJobList{Items: []batchv1.CronJob{{ObjectMeta: om("nightly", "ns", nil), Spec: batchv1.CronJobSpec{Schedule: "0 3 * * *", Suspend: ptr(false), JobTemplate: batchv1.JobTemplateSpec{Spec: job().Spec}}, Status: batchv1.CronJobStatus{LastScheduleTime: ptr(at(100))}}}}},
		{"endpointslicelist", discoveryv1.SchemeGroupVersion, &discoveryv1.EndpointSliceList{Items: []discoveryv1.EndpointSlice{endpointSlice()}}},
		{"partialobjectmetadatalist", meta, &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: "99"}, Items: []metav1.PartialObjectMetadata{{ObjectMeta: pod(3, true).ObjectMeta}, {ObjectMeta: edgePod().ObjectMeta}}}},
		{"partialobjectmetadata", meta, &metav1.PartialObjectMetadata{ObjectMeta: pod(4, true).ObjectMeta}},
		{"status", core, status},
	}
}

// writeWatch writes a protobuf watch stream as kube-apiserver frames it (each event a
// metav1.WatchEvent whose object is a whole protobuf body), and its events in JSON.
func writeWatch(dir string) {
	type ev struct {
		typ string
		obj runtime.Object
		gv  schema.GroupVersion
	}
	bookmark := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "5000", Annotations: map[string]string{"k8s.io/initial-events-end": "true"}}}
	gone := &metav1.Status{Status: metav1.StatusFailure, Message: "too old resource version: 1 (5000)", Reason: metav1.StatusReasonExpired, Code: 410}
	events := []ev{{"ADDED", ptr(pod(1, true)), core}, {"MODIFIED", ptr(edgePod()), core}, {"DELETED", ptr(pod(2, false)), core}, {"BOOKMARK", bookmark, core}, {"ERROR", gone, core}}
	var stream bytes.Buffer
	fw := framer.NewLengthDelimitedFrameWriter(&stream)
	var js []json.RawMessage
	for _, e := range events {
		p, j := encode(e.obj, e.gv)
		we := metav1.WatchEvent{Type: e.typ, Object: runtime.RawExtension{Raw: p}}
		b, err := we.Marshal()
		must(err)
		_, err = fw.Write(b)
		must(err)
		line, err := json.Marshal(map[string]any{"type": e.typ, "object": json.RawMessage(j)})
		must(err)
		js = append(js, line)
	}
	all, err := json.Marshal(js)
	must(err)
	write(dir, "watch", stream.Bytes(), all)
}

// writePages writes the bench's pages: n pods as a typical controller leaves them (managedFields
// of three managers, env, volumes, probes), in full and metadata-only.
func writePages(dir string, n int) {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "123456", Continue: "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzNDU2fQ"}}
	metaList := &metav1.PartialObjectMetadataList{ListMeta: list.ListMeta}
	for i := 0; i < n; i++ {
		p := pod(i, true)
		list.Items = append(list.Items, p)
		metaList.Items = append(metaList.Items, metav1.PartialObjectMetadata{ObjectMeta: p.ObjectMeta})
	}
	p, j := encode(list, core)
	must(os.WriteFile(filepath.Join(dir, fmt.Sprintf("pods-%d.pb", n)), p, 0o644))
	must(os.WriteFile(filepath.Join(dir, fmt.Sprintf("pods-%d.json", n)), j, 0o644))
	p, j = encode(metaList, meta)
	must(os.WriteFile(filepath.Join(dir, fmt.Sprintf("pods-meta-%d.pb", n)), p, 0o644))
	must(os.WriteFile(filepath.Join(dir, fmt.Sprintf("pods-meta-%d.json", n)), j, 0o644))
	full := make([]runtime.Object, n)
	partial := make([]runtime.Object, n)
	for i := range list.Items {
		full[i] = &list.Items[i]
		partial[i] = &metaList.Items[i]
	}
	writeWatchStream(dir, fmt.Sprintf("watch-pods-%d", n), full, core)
	writeWatchStream(dir, fmt.Sprintf("watch-pods-meta-%d", n), partial, meta)
}

// writeWatchStream writes objs as the ADDED events of a watch, both ways kube-apiserver streams
// them: length-delimited metav1.WatchEvent frames (NAME.pb) and newline-delimited JSON (NAME.jsonl,
// json.Encoder's lines: type, then object).
func writeWatchStream(dir, name string, objs []runtime.Object, gv schema.GroupVersion) {
	var stream, lines bytes.Buffer
	fw := framer.NewLengthDelimitedFrameWriter(&stream)
	enc := json.NewEncoder(&lines)
	for _, obj := range objs {
		p, j := encode(obj, gv)
		b, err := (&metav1.WatchEvent{Type: "ADDED", Object: runtime.RawExtension{Raw: p}}).Marshal()
		must(err)
		_, err = fw.Write(b)
		must(err)
		must(enc.Encode(struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}{"ADDED", j}))
	}
	must(os.WriteFile(filepath.Join(dir, name+".pb"), stream.Bytes(), 0o644))
	must(os.WriteFile(filepath.Join(dir, name+".jsonl"), lines.Bytes(), 0o644))
}
