"""Checks of the official Kubernetes Python client (the `kubernetes` package, pinned in
requirements.txt beside this file) against one cluster.

Prints one JSON line per check: {"name": ..., "ok": ..., "detail": ...}; exits 0 only when every
check passed. The same script runs against the demo cluster and against a real kube-apiserver
(test/integration/demo-python.test.ts, test/apiserver/python.test.ts), which is what shows a check
asks for upstream behaviour.

Usage: python checks.py KUBECONFIG NAMESPACE
"""

import json
import sys
import time
import traceback

from kubernetes import client, config, watch
from kubernetes.client.exceptions import ApiException

FAILED = 0
LABEL = "kubeloop.dev/check"
GROUP, VERSION, PLURAL = "checks.kubeloop.dev", "v1", "gizmos"
CRD_NAME = f"{PLURAL}.{GROUP}"
# Every wait is for a state, bounded by this deadline (seconds), never a fixed sleep.
DEADLINE = 60


def report(name, ok, detail):
    global FAILED
    if not ok:
        FAILED += 1
    print(json.dumps({"name": name, "ok": ok, "detail": detail}), flush=True)


def check(name):
    """Runs the decorated function as a check: its return value is the detail, an exception a failure."""

    def wrap(fn):
        try:
            report(name, True, str(fn() or ""))
        except ApiException as e:
            report(name, False, f"ApiException {e.status} {e.reason}: {(e.body or '')[:500]}")
        except Exception as e:  # noqa: BLE001 - a check's failure of any kind is reported, not raised
            report(name, False, f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}")
        return fn

    return wrap


def until(pred, what):
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.1)  # a poll interval while waiting for a state, not a wait for time
    raise AssertionError(f"timed out waiting for {what}")


def expect(cond, msg):
    if not cond:
        raise AssertionError(msg)


def main():
    kubeconfig, ns = sys.argv[1], sys.argv[2]
    config.load_kube_config(config_file=kubeconfig)
    core, apps = client.CoreV1Api(), client.AppsV1Api()
    ext, custom = client.ApiextensionsV1Api(), client.CustomObjectsApi()
    try:
        core.create_namespace({"metadata": {"name": ns}})
    except ApiException as e:
        if e.status != 409:
            raise

    @check("core/configmaps/create-read")
    def _():
        cm = core.create_namespaced_config_map(ns, {"metadata": {"name": "py-cm", "labels": {LABEL: "py"}}, "data": {"k": "v"}})
        expect(cm.metadata.uid and cm.metadata.resource_version, f"created without uid/resourceVersion: {cm.metadata}")
        got = core.read_namespaced_config_map("py-cm", ns)
        expect(got.data == {"k": "v"} and got.metadata.labels.get(LABEL) == "py", f"read back {got.data} {got.metadata.labels}")
        return f"uid {got.metadata.uid}"

    @check("core/configmaps/patch")
    def _():
        # the client's default patch type is the first it lists, JSON patch: a list body
        core.patch_namespaced_config_map("py-cm", ns, [{"op": "add", "path": "/data/json", "value": "yes"}])
        core.patch_namespaced_config_map("py-cm", ns, {"data": {"merge": "yes"}}, _content_type="application/merge-patch+json")
        core.patch_namespaced_config_map("py-cm", ns, {"metadata": {"labels": {"smp": "yes"}}}, _content_type="application/strategic-merge-patch+json")
        applied = core.patch_namespaced_config_map(
            "py-cm",
            ns,
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "py-cm"}, "data": {"applied": "yes"}},
            _content_type="application/apply-patch+yaml",
            field_manager="kubeloop-python",
            force=True,
        )
        d = applied.data
        expect(d.get("json") == d.get("merge") == d.get("applied") == "yes" and applied.metadata.labels.get("smp") == "yes", f"after patches: {d}")
        return "JSON patch (the default), merge, strategic merge, apply"

    @check("core/configmaps/replace-conflict")
    def _():
        cm = core.read_namespaced_config_map("py-cm", ns)
        stale = cm.metadata.resource_version
        cm.data["replaced"] = "yes"
        core.replace_namespaced_config_map("py-cm", ns, cm)
        cm.metadata.resource_version = stale
        try:
            core.replace_namespaced_config_map("py-cm", ns, cm)
        except ApiException as e:
            expect(e.status == 409 and json.loads(e.body)["reason"] == "Conflict", f"stale replace: {e.status} {e.body}")
            return "stale resourceVersion got 409 Conflict"
        raise AssertionError("a replace with a stale resourceVersion succeeded")

    @check("core/configmaps/not-found")
    def _():
        try:
            core.read_namespaced_config_map("py-missing", ns)
        except ApiException as e:
            body = json.loads(e.body)
            expect(e.status == 404 and body["kind"] == "Status" and body["reason"] == "NotFound", f"{e.status} {e.body}")
            return body["message"]
        raise AssertionError("read of a missing ConfigMap succeeded")

    @check("core/configmaps/list-paged")
    def _():
        n, limit = 60, 25
        for i in range(n):
            core.create_namespaced_config_map(ns, {"metadata": {"name": f"py-page-{i:03d}", "labels": {LABEL: "py-page"}}})
        names, pages, token = [], 0, None
        while True:
            page = core.list_namespaced_config_map(ns, label_selector=f"{LABEL}=py-page", limit=limit, _continue=token)
            pages += 1
            expect(len(page.items) <= limit, f"page of {len(page.items)} > limit {limit}")
            names += [o.metadata.name for o in page.items]
            token = page.metadata.var_continue
            if not token:
                break
        expect(sorted(names) == [f"py-page-{i:03d}" for i in range(n)], f"paged list saw {len(names)} names")
        expect(pages == 3, f"{pages} pages, want 3")
        core.delete_collection_namespaced_config_map(ns, label_selector=f"{LABEL}=py-page")
        until(lambda: not core.list_namespaced_config_map(ns, label_selector=f"{LABEL}=py-page").items, "the paged ConfigMaps to go")
        return f"{n} objects in {pages} pages of {limit}; delete_collection removed them"

    @check("core/configmaps/watch")
    def _():
        rv = core.list_namespaced_config_map(ns).metadata.resource_version
        core.create_namespaced_config_map(ns, {"metadata": {"name": "py-watched"}})
        core.delete_namespaced_config_map("py-watched", ns)
        w = watch.Watch()
        seen = []
        for ev in w.stream(core.list_namespaced_config_map, ns, resource_version=rv, timeout_seconds=30):
            if ev["object"].metadata.name == "py-watched":
                seen.append(ev["type"])
            if seen == ["ADDED", "DELETED"]:
                w.stop()
        expect(seen == ["ADDED", "DELETED"], f"watch from the list's resourceVersion saw {seen}")
        return "ADDED, DELETED from the list's resourceVersion"

    @check("core/configmaps/delete")
    def _():
        st = core.delete_namespaced_config_map("py-cm", ns)
        st = st if isinstance(st, dict) else st.to_dict()  # this client version answers deletes with a dict
        expect(st.get("kind") == "Status" and st.get("status") == "Success", f"delete answered {st}")
        try:
            core.read_namespaced_config_map("py-cm", ns)
        except ApiException as e:
            expect(e.status == 404, f"read after delete: {e.status}")
            return "deleted; read got 404"
        raise AssertionError("the ConfigMap is still there after delete")

    @check("core/secrets/create-read-delete")
    def _():
        core.create_namespaced_secret(ns, {"metadata": {"name": "py-secret"}, "type": "Opaque", "string_data": {"password": "not-a-real-secret"}})
        s = core.read_namespaced_secret("py-secret", ns)
        expect(s.type == "Opaque" and set(s.data) == {"password"} and s.string_data is None, f"secret read back as type {s.type}, keys {list(s.data or {})}")
        core.delete_namespaced_secret("py-secret", ns)
        return "stringData stored as data"

    @check("core/pods/create-list-delete")
    def _():
        pod = {"metadata": {"name": "py-pod", "labels": {LABEL: "py"}}, "spec": {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]}}
        created = core.create_namespaced_pod(ns, pod)
        expect(created.spec.containers[0].image_pull_policy == "IfNotPresent" and created.status.phase == "Pending", f"defaults: {created.spec.containers[0]}")
        listed = core.list_namespaced_pod(ns, label_selector=f"{LABEL}=py")
        expect([p.metadata.name for p in listed.items] == ["py-pod"], f"listed {[p.metadata.name for p in listed.items]}")
        core.delete_namespaced_pod("py-pod", ns, grace_period_seconds=0)
        until(lambda: not core.list_namespaced_pod(ns, label_selector=f"{LABEL}=py").items, "the pod to go")
        return "defaults applied, listed by label, deleted"

    @check("apps/deployments/scale")
    def _():
        labels = {"app": "py-web"}
        dep = {
            "metadata": {"name": "py-web"},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": labels},
                "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]}},
            },
        }
        apps.create_namespaced_deployment(ns, dep)
        s = apps.read_namespaced_deployment_scale("py-web", ns)
        expect(s.spec.replicas == 1 and s.kind == "Scale", f"scale {s.kind} {s.spec}")
        apps.patch_namespaced_deployment_scale("py-web", ns, {"spec": {"replicas": 3}}, _content_type="application/merge-patch+json")
        expect(apps.read_namespaced_deployment("py-web", ns).spec.replicas == 3, "spec.replicas after the scale patch")
        s = apps.read_namespaced_deployment_scale("py-web", ns)
        s.spec.replicas = 0
        apps.replace_namespaced_deployment_scale("py-web", ns, s)
        expect(apps.read_namespaced_deployment("py-web", ns).spec.replicas == 0, "spec.replicas after replacing the scale with 0")
        apps.delete_namespaced_deployment("py-web", ns)
        return "1 -> 3 (patch) -> 0 (replace) via the scale subresource"

    @check("custom/crd-established")
    def _():
        crd = {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": CRD_NAME},
            "spec": {
                "group": GROUP,
                "scope": "Namespaced",
                "names": {"kind": "Gizmo", "listKind": "GizmoList", "plural": PLURAL, "singular": "gizmo"},
                "versions": [
                    {"name": VERSION, "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}
                ],
            },
        }
        try:
            ext.create_custom_resource_definition(crd)
        except ApiException as e:
            if e.status != 409:
                raise

        def served():
            got = ext.read_custom_resource_definition(CRD_NAME)
            conds = (got.status.conditions if got.status else None) or []
            if not any(c.type == "Established" and c.status == "True" for c in conds):
                return False
            try:
                custom.list_namespaced_custom_object(GROUP, VERSION, ns, PLURAL)
                return True
            except ApiException:
                return False

        until(served, f"{CRD_NAME} to be Established and served")
        return "Established and served"

    @check("custom/gizmos/create-get-patch-list-delete")
    def _():
        body = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Gizmo", "metadata": {"name": "gz1", "labels": {LABEL: "py"}}, "spec": {"size": 3}}
        created = custom.create_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, body)
        expect(created["metadata"]["uid"] and created["spec"] == {"size": 3}, f"created {created}")
        got = custom.get_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, "gz1")
        expect(got["kind"] == "Gizmo", f"got {got}")
        patched = custom.patch_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, "gz1", {"spec": {"color": "blue"}}, _content_type="application/merge-patch+json")
        expect(patched["spec"] == {"size": 3, "color": "blue"}, f"after merge patch: {patched['spec']}")
        listed = custom.list_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, label_selector=f"{LABEL}=py")
        expect([o["metadata"]["name"] for o in listed["items"]] == ["gz1"] and listed["metadata"]["resourceVersion"], f"listed {listed}")
        custom.delete_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, "gz1")
        try:
            custom.get_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, "gz1")
        except ApiException as e:
            expect(e.status == 404, f"get after delete: {e.status}")
            return "created, read, merge-patched, listed by label, deleted"
        raise AssertionError("the custom object is still there after delete")

    if FAILED:
        print(f"python client checks: {FAILED} failed", file=sys.stderr)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
