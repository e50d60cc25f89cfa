// Command kubeloop-clientgo-checks runs a real, current client-go (pinned in go.mod) against one
// cluster and prints one JSON line per check: {"name":..., "ok":..., "detail":...}. It exits 0
// only when every check passed. The same binary runs against the demo cluster and against a real
// kube-apiserver (the tests in test/integration and test/apiserver), which is what proves a check
// asks for upstream behaviour and not for the demo's.
//
// Every typed check runs three times: with client-go's defaults (an empty ContentType, with which
// the generated clients of built-in types send protobuf and accept protobuf,json: gentype's
// UseProtobufAsDefault), configured for JSON (ContentType application/json), and configured as
// kubectl and the controllers are (ContentType protobuf, Accept protobuf,json). So every request
// body a typed clientset sends is exercised in both encodings.
//
// Usage: kubeloop-clientgo-checks -kubeconfig FILE [-namespace NS] [-timeout 3m]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Result is one check's verdict, printed as one JSON line.
type Result struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// Env is what every check gets: both clientsets, the config and the check's namespace.
type Env struct {
	Config   *rest.Config
	Default  kubernetes.Interface // client-go's defaults: protobuf bodies for built-in kinds
	JSON     kubernetes.Interface // ContentType application/json
	Protobuf kubernetes.Interface // ContentType protobuf, Accept protobuf,json (kubectl, controllers)
	NS       string
}

var failed int

// report prints a check's verdict; err == nil is a pass.
func report(name string, err error, detail string) {
	r := Result{Name: name, OK: err == nil, Detail: detail}
	if err != nil {
		r.Detail = err.Error()
		failed++
	}
	b, _ := json.Marshal(r)
	fmt.Println(string(b))
}

// check runs fn under a per-check deadline and reports it.
func check(ctx context.Context, name string, fn func(ctx context.Context) (string, error)) {
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	detail, err := fn(cctx)
	report(name, err, detail)
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file (required)")
	ns := flag.String("namespace", fmt.Sprintf("clientgo-%d", time.Now().UnixNano()%1_000_000), "namespace for the checks' objects (created when absent)")
	timeout := flag.Duration("timeout", 4*time.Minute, "deadline for the whole run")
	showVersion := flag.Bool("version", false, "print the client-go version this was built with and exit")
	flag.Parse()
	if *showVersion {
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, d := range bi.Deps {
				if d.Path == "k8s.io/client-go" {
					fmt.Println("client-go", d.Version)
				}
			}
		}
		return
	}
	if *kubeconfig == "" {
		fmt.Fprintln(os.Stderr, "kubeloop-clientgo-checks: -kubeconfig is required")
		os.Exit(2)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubeloop-clientgo-checks: load kubeconfig: %v\n", err)
		os.Exit(2)
	}
	cfg.QPS, cfg.Burst = 200, 400 // the defaults (5/10) would make the pager's 120 creates slow, not wrong
	defCS, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubeloop-clientgo-checks: clientset: %v\n", err)
		os.Exit(2)
	}
	jcfg := rest.CopyConfig(cfg)
	jcfg.ContentType = "application/json"
	jsonCS, err := kubernetes.NewForConfig(jcfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubeloop-clientgo-checks: json clientset: %v\n", err)
		os.Exit(2)
	}
	pcfg := rest.CopyConfig(cfg)
	pcfg.ContentType = "application/vnd.kubernetes.protobuf"
	pcfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	pbCS, err := kubernetes.NewForConfig(pcfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubeloop-clientgo-checks: protobuf clientset: %v\n", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	env := &Env{Config: cfg, Default: defCS, JSON: jsonCS, Protobuf: pbCS, NS: *ns}
	if err := ensureNamespace(ctx, defCS, *ns); err != nil {
		report("setup/namespace", err, "")
		os.Exit(1)
	}
	runAll(ctx, env)
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "kubeloop-clientgo-checks: %d check(s) failed\n", failed)
		os.Exit(1)
	}
}

func runAll(ctx context.Context, env *Env) {
	discoveryChecks(ctx, env)
	for _, enc := range []struct {
		name string
		cs   kubernetes.Interface
	}{{"default", env.Default}, {"json", env.JSON}, {"protobuf", env.Protobuf}} {
		typedChecks(ctx, env, enc.name, enc.cs)
		scaleChecks(ctx, env, enc.name, enc.cs)
		statusChecks(ctx, env, enc.name, enc.cs)
		pagerCheck(ctx, env, enc.name, enc.cs)
		informerCheck(ctx, env, enc.name, enc.cs)
		watchCheck(ctx, env, enc.name, enc.cs)
	}
	dynamicChecks(ctx, env)
	badBodyChecks(ctx, env)
}
