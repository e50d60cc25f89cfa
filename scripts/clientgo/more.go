package main

// Discovery, the scale subresource, UpdateStatus, the pager, an informer and a watch.

import (
	"context"
	"errors"
	"fmt"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/pager"
	"k8s.io/client-go/util/retry"
)

// pollInterval is how often a check re-reads a state it waits for (never a fixed sleep).
const pollInterval = 100 * time.Millisecond

func ensureNamespace(ctx context.Context, cs kubernetes.Interface, ns string) error {
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

func discoveryChecks(ctx context.Context, env *Env) {
	check(ctx, "discovery/server-groups-and-resources", func(ctx context.Context) (string, error) {
		groups, lists, err := env.Default.Discovery().ServerGroupsAndResources()
		if err != nil {
			return "", err
		}
		want := map[string]bool{"v1/configmaps": false, "v1/secrets": false, "v1/pods": false, "v1/pods/status": false, "v1/services": false,
			"apps/v1/deployments": false, "apps/v1/deployments/scale": false, "apps/v1/deployments/status": false}
		n := 0
		for _, l := range lists {
			for _, r := range l.APIResources {
				n++
				if _, ok := want[l.GroupVersion+"/"+r.Name]; ok {
					want[l.GroupVersion+"/"+r.Name] = true
				}
			}
		}
		for k, seen := range want {
			if !seen {
				return "", fmt.Errorf("discovery has no %s (%d groups, %d resources)", k, len(groups), n)
			}
		}
		return fmt.Sprintf("%d groups, %d resources", len(groups), n), nil
	})
}

func scaleChecks(ctx context.Context, env *Env, enc string, cs kubernetes.Interface) {
	name := "cg-" + enc + "-scaled"
	check(ctx, enc+"/deployments/scale", func(ctx context.Context) (string, error) {
		c := cs.AppsV1().Deployments(env.NS)
		if _, err := c.Create(ctx, deployment(name, env.NS, enc, 1), metav1.CreateOptions{}); err != nil {
			return "", err
		}
		defer func() { _ = c.Delete(context.WithoutCancel(ctx), name, metav1.DeleteOptions{}) }()
		s, err := c.GetScale(ctx, name, metav1.GetOptions{})
		if err != nil {
			return "", fmt.Errorf("GetScale: %w", err)
		}
		if s.Spec.Replicas != 1 || s.Name != name {
			return "", fmt.Errorf("GetScale: %s spec.replicas %d, want 1", s.Name, s.Spec.Replicas)
		}
		// Zero is a value, not an absent field: a protobuf Scale carries replicas 0 on the wire.
		for _, want := range []int32{3, 0} {
			// A read-modify-write of the Scale, retried on a Conflict (a controller may write status meanwhile).
			var u *autoscalingv1.Scale
			err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				s, err := c.GetScale(ctx, name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				s.Spec.Replicas = want
				u, err = c.UpdateScale(ctx, name, s, metav1.UpdateOptions{})
				return err
			})
			if err != nil {
				return "", fmt.Errorf("UpdateScale to %d: %w", want, err)
			}
			if u.Spec.Replicas != want {
				return "", fmt.Errorf("UpdateScale answered spec.replicas %d, want %d", u.Spec.Replicas, want)
			}
			d, err := c.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return "", err
			}
			if d.Spec.Replicas == nil || *d.Spec.Replicas != want {
				return "", fmt.Errorf("deployment spec.replicas %v after UpdateScale, want %d", d.Spec.Replicas, want)
			}
		}
		return "1 -> 3 -> 0 replicas via autoscaling/v1 Scale", nil
	})
}

func statusChecks(ctx context.Context, env *Env, enc string, cs kubernetes.Interface) {
	name := "cg-" + enc + "-status"
	check(ctx, enc+"/pods/update-status", func(ctx context.Context) (string, error) {
		c := cs.CoreV1().Pods(env.NS)
		p := &corev1.Pod{ObjectMeta: meta(name, env.NS, enc), Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}}}}
		if _, err := c.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			return "", err
		}
		defer func() { _ = c.Delete(context.WithoutCancel(ctx), name, metav1.DeleteOptions{}) }()
		cond := corev1.PodCondition{Type: "kubeloop.dev/Checked", Status: corev1.ConditionTrue, Reason: "ClientGo", LastTransitionTime: metav1.Now()}
		var u *corev1.Pod
		// retried on a Conflict: a kubelet may write the pod's status meanwhile
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur, err := c.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Status.Conditions = append(cur.Status.Conditions, cond)
			// The status subresource ignores spec changes: this deadline must not stick.
			deadline := int64(3600)
			cur.Spec.ActiveDeadlineSeconds = &deadline
			u, err = c.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			return "", fmt.Errorf("UpdateStatus: %w", err)
		}
		got, err := c.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		found := false
		for _, c := range got.Status.Conditions {
			found = found || (c.Type == cond.Type && c.Status == corev1.ConditionTrue && c.Reason == "ClientGo")
		}
		if !found {
			return "", fmt.Errorf("condition %s not in status after UpdateStatus: %v", cond.Type, got.Status.Conditions)
		}
		if got.Spec.ActiveDeadlineSeconds != nil {
			return "", fmt.Errorf("UpdateStatus changed spec.activeDeadlineSeconds to %d", *got.Spec.ActiveDeadlineSeconds)
		}
		return "condition set, spec untouched, resourceVersion " + u.ResourceVersion, nil
	})
}

// pagerObjects is more than two pages of pagerPageSize.
const (
	pagerObjects  = 120
	pagerPageSize = 50
)

func pagerCheck(ctx context.Context, env *Env, enc string, cs kubernetes.Interface) {
	check(ctx, enc+"/configmaps/pager", func(ctx context.Context) (string, error) {
		c := cs.CoreV1().ConfigMaps(env.NS)
		sel := checkLabel + "=" + enc + "-pager"
		if err := createMany(ctx, pagerObjects, func(ctx context.Context, i int) error {
			_, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cg-%s-page-%03d", enc, i), Namespace: env.NS,
				Labels: map[string]string{checkLabel: enc + "-pager"}}, Data: map[string]string{"i": fmt.Sprint(i)}}, metav1.CreateOptions{})
			return err
		}); err != nil {
			return "", err
		}
		defer func() {
			_ = c.DeleteCollection(context.WithoutCancel(ctx), metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: sel})
		}()
		pages := 0
		p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			pages++
			if opts.Limit != pagerPageSize {
				return nil, fmt.Errorf("pager asked for limit %d, want %d", opts.Limit, pagerPageSize)
			}
			return c.List(ctx, opts)
		})
		p.PageSize = pagerPageSize
		names := map[string]bool{}
		err := p.EachListItem(ctx, metav1.ListOptions{LabelSelector: sel}, func(o runtime.Object) error {
			cm := o.(*corev1.ConfigMap)
			if names[cm.Name] {
				return fmt.Errorf("%s listed twice", cm.Name)
			}
			names[cm.Name] = true
			return nil
		})
		if err != nil {
			return "", err
		}
		wantPages := (pagerObjects + pagerPageSize - 1) / pagerPageSize
		if len(names) != pagerObjects || pages != wantPages {
			return "", fmt.Errorf("pager saw %d objects in %d pages, want %d in %d", len(names), pages, pagerObjects, wantPages)
		}
		return fmt.Sprintf("%d objects in %d pages of %d", len(names), pages, pagerPageSize), nil
	})
}

// createMany runs create for 0..n-1 with a few at a time; the first error wins.
func createMany(ctx context.Context, n int, create func(context.Context, int) error) error {
	const workers = 8
	errs := make(chan error, n)
	next := make(chan int)
	for range workers {
		go func() {
			for i := range next {
				errs <- create(ctx, i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

func informerCheck(ctx context.Context, env *Env, enc string, cs kubernetes.Interface) {
	check(ctx, enc+"/configmaps/informer", func(ctx context.Context) (string, error) {
		name := "cg-" + enc + "-informed"
		f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(env.NS))
		inf := f.Core().V1().ConfigMaps().Informer()
		events := make(chan string, 16)
		_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: func(o any) {
				if cm := o.(*corev1.ConfigMap); cm.Name == name {
					events <- "add"
				}
			},
			UpdateFunc: func(_, o any) {
				if cm := o.(*corev1.ConfigMap); cm.Name == name && cm.Data["v"] == "2" {
					events <- "update"
				}
			},
			DeleteFunc: func(o any) {
				if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
					o = t.Obj
				}
				if cm, ok := o.(*corev1.ConfigMap); ok && cm.Name == name {
					events <- "delete"
				}
			},
		})
		if err != nil {
			return "", err
		}
		ictx, stop := context.WithCancel(ctx)
		defer func() { stop(); f.Shutdown() }()
		f.StartWithContext(ictx)
		for typ, ok := range f.WaitForCacheSync(ictx.Done()) {
			if !ok {
				return "", fmt.Errorf("informer for %v did not sync", typ)
			}
		}
		c := cs.CoreV1().ConfigMaps(env.NS)
		want := func(ev string) error {
			select {
			case got := <-events:
				if got != ev {
					return fmt.Errorf("informer event %q, want %q", got, ev)
				}
				return nil
			case <-ctx.Done():
				return fmt.Errorf("no %q event from the informer: %w", ev, ctx.Err())
			}
		}
		if _, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: meta(name, env.NS, enc), Data: map[string]string{"v": "1"}}, metav1.CreateOptions{}); err != nil {
			return "", err
		}
		if err := want("add"); err != nil {
			return "", err
		}
		if _, err := c.Patch(ctx, name, "application/merge-patch+json", []byte(`{"data":{"v":"2"}}`), metav1.PatchOptions{}); err != nil {
			return "", err
		}
		if err := want("update"); err != nil {
			return "", err
		}
		if err := c.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			return "", err
		}
		if err := want("delete"); err != nil {
			return "", err
		}
		return "synced; saw add, update, delete", nil
	})
}

func watchCheck(ctx context.Context, env *Env, enc string, cs kubernetes.Interface) {
	check(ctx, enc+"/configmaps/watch", func(ctx context.Context) (string, error) {
		c := cs.CoreV1().ConfigMaps(env.NS)
		name := "cg-" + enc + "-watched"
		list, err := c.List(ctx, metav1.ListOptions{})
		if err != nil {
			return "", err
		}
		// From the list's resourceVersion: only changes after it arrive.
		w, err := c.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, AllowWatchBookmarks: true})
		if err != nil {
			return "", err
		}
		defer w.Stop()
		if _, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: meta(name, env.NS, enc)}, metav1.CreateOptions{}); err != nil {
			return "", err
		}
		if err := c.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			return "", err
		}
		var seen []string
		for _, want := range []watch.EventType{watch.Added, watch.Deleted} {
			ev, err := nextEvent(ctx, w)
			if err != nil {
				return "", fmt.Errorf("after %v: %w", seen, err)
			}
			cm, _ := ev.Object.(*corev1.ConfigMap)
			if ev.Type != want || cm == nil || cm.Name != name {
				return "", fmt.Errorf("after %v: event %s %T, want %s of %s", seen, ev.Type, ev.Object, want, name)
			}
			seen = append(seen, string(ev.Type))
		}
		// The watch-list form (client-go's WatchListClient): sendInitialEvents ends the initial
		// ADDED events with a BOOKMARK annotated k8s.io/initial-events-end.
		send := true
		wl, err := c.Watch(ctx, metav1.ListOptions{SendInitialEvents: &send, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true})
		if err != nil {
			return "", fmt.Errorf("watch with sendInitialEvents: %w", err)
		}
		defer wl.Stop()
		added := 0
		for {
			ev, err := nextEvent(ctx, wl)
			if err != nil {
				return "", fmt.Errorf("watch with sendInitialEvents, after %d ADDED: %w", added, err)
			}
			if ev.Type == watch.Added {
				added++
				continue
			}
			cm, _ := ev.Object.(*corev1.ConfigMap)
			if ev.Type != watch.Bookmark || cm == nil || cm.Annotations[metav1.InitialEventsAnnotationKey] != "true" || cm.ResourceVersion == "" {
				return "", fmt.Errorf("after %d ADDED: event %s %T, want the initial-events-end BOOKMARK", added, ev.Type, ev.Object)
			}
			if added != len(list.Items) {
				return "", fmt.Errorf("sendInitialEvents sent %d ADDED, the list had %d", added, len(list.Items))
			}
			return fmt.Sprintf("ADDED, DELETED from the list's resourceVersion; %d initial events then the bookmark", added), nil
		}
	})
}

// nextEvent is the watch's next non-bookmark event, or its initial-events-end bookmark.
func nextEvent(ctx context.Context, w watch.Interface) (watch.Event, error) {
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return watch.Event{}, errors.New("watch closed")
			}
			if ev.Type == watch.Error {
				return ev, fmt.Errorf("watch error: %v", apierrors.FromObject(ev.Object))
			}
			if ev.Type == watch.Bookmark {
				if o, ok := ev.Object.(metav1.Object); !ok || o.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
					continue // a periodic bookmark: progress only
				}
			}
			return ev, nil
		case <-ctx.Done():
			return watch.Event{}, ctx.Err()
		}
	}
}
