package main

// Typed clientset checks: create/get/update/patch (merge, strategic, JSON patch, server-side
// apply)/delete/deletecollection of ConfigMaps, Secrets, Deployments, Services and Pods. One
// generic body covers every kind, since client-go's typed clients share their method shapes.

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	appsapply "k8s.io/client-go/applyconfigurations/apps/v1"
	coreapply "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// collectionDeleter is the typed clients' DeleteCollection (kept out of typedClient: a kind whose
// generated client skips the verb would not fit it; each of the kinds here has it).
type collectionDeleter interface {
	DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error
}

// typedClient is the method set every generated typed client of a kind with apply has.
type typedClient[T metav1.Object, L any, A any] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)
	Apply(ctx context.Context, obj A, opts metav1.ApplyOptions) (T, error)
}

const fieldManager = "kubeloop-checks"

// checkLabel is on every object a check creates; deletecollection selects by it.
const checkLabel = "kubeloop.dev/check"

func typedChecks(ctx context.Context, env *Env, enc string, cs kubernetes.Interface) {
	ns := env.NS
	pause := corev1.Container{Name: "main", Image: "registry.k8s.io/pause:3.10"}
	runKind(ctx, enc, "configmaps", cs.CoreV1().ConfigMaps(ns),
		func(name string) *corev1.ConfigMap {
			return &corev1.ConfigMap{ObjectMeta: meta(name, ns, enc), Data: map[string]string{"k": "v"}, BinaryData: map[string][]byte{"b": {0, 1, 2}}}
		},
		func(name string) *coreapply.ConfigMapApplyConfiguration {
			return coreapply.ConfigMap(name, ns).WithLabels(map[string]string{"applied": "yes"}).WithData(map[string]string{"applied": "yes"})
		},
		func(l *corev1.ConfigMapList) int { return len(l.Items) })
	runKind(ctx, enc, "secrets", cs.CoreV1().Secrets(ns),
		func(name string) *corev1.Secret {
			return &corev1.Secret{ObjectMeta: meta(name, ns, enc), Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"password": []byte("not-a-real-secret")}}
		},
		func(name string) *coreapply.SecretApplyConfiguration {
			return coreapply.Secret(name, ns).WithLabels(map[string]string{"applied": "yes"}).WithStringData(map[string]string{"applied": "yes"})
		},
		func(l *corev1.SecretList) int { return len(l.Items) })
	runKind(ctx, enc, "deployments", cs.AppsV1().Deployments(ns),
		func(name string) *appsv1.Deployment { return deployment(name, ns, enc, 1) },
		func(name string) *appsapply.DeploymentApplyConfiguration {
			return appsapply.Deployment(name, ns).WithLabels(map[string]string{"applied": "yes"})
		},
		func(l *appsv1.DeploymentList) int { return len(l.Items) })
	runKind(ctx, enc, "services", cs.CoreV1().Services(ns),
		func(name string) *corev1.Service {
			return &corev1.Service{ObjectMeta: meta(name, ns, enc), Spec: corev1.ServiceSpec{
				Selector: map[string]string{"app": name},
				Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), Protocol: corev1.ProtocolTCP}},
			}}
		},
		func(name string) *coreapply.ServiceApplyConfiguration {
			return coreapply.Service(name, ns).WithLabels(map[string]string{"applied": "yes"})
		},
		func(l *corev1.ServiceList) int { return len(l.Items) })
	runKind(ctx, enc, "pods", cs.CoreV1().Pods(ns),
		func(name string) *corev1.Pod {
			return &corev1.Pod{ObjectMeta: meta(name, ns, enc), Spec: corev1.PodSpec{Containers: []corev1.Container{pause}}}
		},
		func(name string) *coreapply.PodApplyConfiguration {
			return coreapply.Pod(name, ns).WithLabels(map[string]string{"applied": "yes"})
		},
		func(l *corev1.PodList) int { return len(l.Items) })
}

func meta(name, ns, enc string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{checkLabel: enc}}
}

func deployment(name, ns, enc string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{ObjectMeta: meta(name, ns, enc), Spec: appsv1.DeploymentSpec{
		Replicas: &replicas,
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}}},
		},
	}}
}

// runKind runs one kind's verbs in order; a failed step skips the steps that need its object.
func runKind[T metav1.Object, L any, A any](ctx context.Context, enc, resource string, c typedClient[T, L, A], newObj func(string) T, applyObj func(string) A, count func(L) int) {
	prefix := enc + "/" + resource + "/"
	name := "cg-" + enc + "-" + resource[:len(resource)-1]
	var rv string
	ok := true
	step := func(verb string, fn func(ctx context.Context) (string, error)) {
		if !ok {
			report(prefix+verb, fmt.Errorf("skipped: an earlier step of %s failed", resource), "")
			return
		}
		check(ctx, prefix+verb, func(ctx context.Context) (string, error) {
			d, err := fn(ctx)
			if err != nil {
				ok = false
			}
			return d, err
		})
	}
	step("create", func(ctx context.Context) (string, error) {
		o, err := c.Create(ctx, newObj(name), metav1.CreateOptions{FieldManager: fieldManager})
		if err != nil {
			return "", err
		}
		if o.GetUID() == "" || o.GetResourceVersion() == "" {
			return "", fmt.Errorf("created object has uid %q resourceVersion %q", o.GetUID(), o.GetResourceVersion())
		}
		rv = o.GetResourceVersion()
		return "uid " + string(o.GetUID()), nil
	})
	step("get", func(ctx context.Context) (string, error) {
		o, err := c.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		if o.GetName() != name || o.GetLabels()[checkLabel] != enc {
			return "", fmt.Errorf("got %s/%s labels %v", o.GetNamespace(), o.GetName(), o.GetLabels())
		}
		return "resourceVersion " + o.GetResourceVersion(), nil
	})
	step("update", func(ctx context.Context) (string, error) {
		// A read-modify-write of the whole object as the server returned it: with protobuf, every
		// field the server filled in (defaults, status, managedFields) travels back in the body.
		// Retried on a Conflict, as client-go's callers do: a controller may write status meanwhile.
		var o, u T
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			var err error
			if o, err = c.Get(ctx, name, metav1.GetOptions{}); err != nil {
				return err
			}
			l := o.GetLabels()
			l["updated"] = "yes"
			o.SetLabels(l)
			u, err = c.Update(ctx, o, metav1.UpdateOptions{FieldManager: fieldManager})
			return err
		})
		if err != nil {
			return "", err
		}
		if u.GetLabels()["updated"] != "yes" || u.GetResourceVersion() == rv {
			return "", fmt.Errorf("after update: labels %v resourceVersion %s (was %s)", u.GetLabels(), u.GetResourceVersion(), rv)
		}
		// A stale resourceVersion is a 409 Conflict, as on any apiserver.
		o.SetResourceVersion(rv)
		if _, err := c.Update(ctx, o, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
			return "", fmt.Errorf("update with stale resourceVersion %s: want a Conflict, got %v", rv, err)
		}
		return "stale update got Conflict", nil
	})
	patches := []struct {
		verb  string
		pt    types.PatchType
		data  string
		check func(T) bool
	}{
		{"patch-merge", types.MergePatchType, `{"metadata":{"labels":{"merged":"yes"}}}`, func(o T) bool { return o.GetLabels()["merged"] == "yes" }},
		{"patch-strategic", types.StrategicMergePatchType, `{"metadata":{"annotations":{"strategic":"yes"}}}`, func(o T) bool { return o.GetAnnotations()["strategic"] == "yes" }},
		{"patch-json", types.JSONPatchType, `[{"op":"add","path":"/metadata/annotations/json","value":"yes"},{"op":"test","path":"/metadata/labels/merged","value":"yes"}]`,
			func(o T) bool { return o.GetAnnotations()["json"] == "yes" && o.GetAnnotations()["strategic"] == "yes" }},
	}
	for _, p := range patches {
		step(p.verb, func(ctx context.Context) (string, error) {
			o, err := c.Patch(ctx, name, p.pt, []byte(p.data), metav1.PatchOptions{FieldManager: fieldManager})
			if err != nil {
				return "", err
			}
			if !p.check(o) {
				return "", fmt.Errorf("after %s: labels %v annotations %v", p.pt, o.GetLabels(), o.GetAnnotations())
			}
			return string(p.pt), nil
		})
	}
	step("apply", func(ctx context.Context) (string, error) {
		o, err := c.Apply(ctx, applyObj(name), metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
		if err != nil {
			return "", err
		}
		if o.GetLabels()["applied"] != "yes" || o.GetLabels()["merged"] != "yes" {
			return "", fmt.Errorf("after apply: labels %v", o.GetLabels())
		}
		for _, m := range o.GetManagedFields() {
			if m.Manager == fieldManager && m.Operation == metav1.ManagedFieldsOperationApply {
				return "managedFields has the Apply entry", nil
			}
		}
		return "", fmt.Errorf("after apply: no Apply entry for %s in managedFields %v", fieldManager, o.GetManagedFields())
	})
	step("delete", func(ctx context.Context) (string, error) {
		if err := c.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			return "", err
		}
		// Deletion may be graceful (pods): wait for NotFound, not for time.
		err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
			_, err := c.Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		})
		if err != nil {
			return "", fmt.Errorf("after delete: %w", err)
		}
		// Deleting it again is a 404 NotFound.
		if err := c.Delete(ctx, name, metav1.DeleteOptions{}); !apierrors.IsNotFound(err) {
			return "", fmt.Errorf("second delete: want NotFound, got %v", err)
		}
		return "gone; second delete got NotFound", nil
	})
	dc, hasDC := any(c).(collectionDeleter)
	if !hasDC {
		report(prefix+"deletecollection", fmt.Errorf("the typed client of %s has no DeleteCollection", resource), "")
		return
	}
	ok = true // deletecollection needs objects of its own
	step("deletecollection", func(ctx context.Context) (string, error) {
		sel := checkLabel + "=" + enc + "-collection"
		for i := range 3 {
			o := newObj(fmt.Sprintf("%s-col-%d", name, i))
			o.SetLabels(map[string]string{checkLabel: enc + "-collection"})
			if _, err := c.Create(ctx, o, metav1.CreateOptions{}); err != nil {
				return "", err
			}
		}
		grace := int64(0)
		if err := dc.DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &grace}, metav1.ListOptions{LabelSelector: sel}); err != nil {
			return "", err
		}
		var left int
		err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
			l, err := c.List(ctx, metav1.ListOptions{LabelSelector: sel})
			if err != nil {
				return false, err
			}
			left = count(l)
			return left == 0, nil
		})
		if err != nil {
			return "", fmt.Errorf("%d object(s) left after deletecollection: %w", left, err)
		}
		return "3 created, 0 left", nil
	})
}
