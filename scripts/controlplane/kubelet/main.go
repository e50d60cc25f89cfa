// Command hollow-kubelet runs a real kubelet - the kubelet package's sync loop, pod workers, PLEG,
// status manager, probe manager and event recorder - over an in-process fake container runtime
// that this program controls, for scripted scenarios whose -v=4 log can be compared with
// KubeLoop's inferred sync loop.
//
// It is kubemark's hollow node (k8s.io/kubernetes/pkg/kubemark) with these differences:
//   - the real probe manager and a real event recorder sending Events to the API server (stock
//     kubemark fakes both: no probe ever runs and no kubelet Event is written);
//   - the kubelet's own defaults for syncFrequency (1m) and API QPS/burst (50/100);
//   - the node IP and every pod IP on loopback (each sandbox its own 127.x.y.z), so httpGet and
//     tcpSocket probes really dial this machine;
//   - containers do what their spec says (process.go) instead of running forever, and a control
//     endpoint (control.go) injects exits, exec-probe verdicts and CRI faults;
//   - everything it writes lives under --root-dir, removed at exit when this program created it.
//
// It exits 0 on SIGTERM or SIGINT after stopping the runtime and removing its socket and temp
// dirs; the Node stays in the API, as when a real kubelet stops.
package main

import (
	"context"
	goflag "flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	clientset "k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/component-base/version/verflag"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	remote "k8s.io/cri-client/pkg"
	"k8s.io/klog/v2"
	kubeletapp "k8s.io/kubernetes/cmd/kubelet/app"
	"k8s.io/kubernetes/cmd/kubelet/app/options"
	cadvisortest "k8s.io/kubernetes/pkg/kubelet/cadvisor/testing"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	"k8s.io/kubernetes/pkg/kubemark"
)

type config struct {
	name, kubeconfig, rootDir, nodeIP, podCIDR string
	clusterDNS, clusterDomain                  string
	controlAddr, controlAddrFile               string
	kubeletPort                                int
	syncFrequency                              time.Duration
	qps                                        float32
	burst                                      int
}

func main() {
	var c config
	fs := pflag.NewFlagSet("hollow-kubelet", pflag.ExitOnError)
	fs.StringVar(&c.name, "name", "hollow-node", "Name of the Node this kubelet registers.")
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "Kubeconfig of the API server (required).")
	fs.IntVar(&c.kubeletPort, "kubelet-port", 10250, "Port of the kubelet's own server (distinct per node on one host).")
	fs.StringVar(&c.controlAddr, "control-addr", "127.0.0.1:0", "Loopback address of the control endpoint; port 0 picks a free one.")
	fs.StringVar(&c.controlAddrFile, "control-addr-file", "", "Write the control endpoint's actual address to this file once it listens.")
	fs.StringVar(&c.rootDir, "root-dir", "", "The kubelet's root dir; everything this program writes goes there. Default: a temp dir, removed at exit.")
	fs.StringVar(&c.nodeIP, "node-ip", "127.0.0.1", "The Node's InternalIP (and host-network pods' IP).")
	fs.StringVar(&c.podCIDR, "pod-cidr", "", "Loopback CIDR the pod IPs come from, e.g. 127.77.1.0/24. Default: a random /24 inside 127.64.0.0/10.")
	fs.StringVar(&c.clusterDNS, "cluster-dns", "10.0.0.10", "The cluster DNS IP pods' resolv.conf names (nothing answers it); empty: none, and the kubelet warns MissingClusterDNS on every pod.")
	fs.StringVar(&c.clusterDomain, "cluster-domain", "cluster.local", "The cluster's DNS domain.")
	fs.DurationVar(&c.syncFrequency, "sync-frequency", time.Minute, "The kubelet's syncFrequency (its default; kubemark uses 10s).")
	fs.Float32Var(&c.qps, "kube-api-qps", 50, "QPS to the API server (the kubelet's default).")
	fs.IntVar(&c.burst, "kube-api-burst", 100, "Burst to the API server (the kubelet's default).")
	verflag.AddFlags(fs)
	klogFlags := goflag.NewFlagSet("klog", goflag.ExitOnError)
	klog.InitFlags(klogFlags) // --v, --vmodule, ...; logs go to stderr
	fs.AddGoFlagSet(klogFlags)
	_ = fs.Parse(os.Args[1:])
	verflag.PrintAndExitIfRequested()

	if err := run(c); err != nil {
		klog.ErrorS(err, "hollow-kubelet failed")
		klog.Flush()
		os.Exit(1)
	}
	klog.Flush()
}

func run(c config) error {
	if c.kubeconfig == "" {
		return fmt.Errorf("--kubeconfig is required")
	}
	nodeIP := net.ParseIP(c.nodeIP)
	if nodeIP == nil {
		return fmt.Errorf("--node-ip %q is not an IP", c.nodeIP)
	}
	if c.podCIDR == "" {
		c.podCIDR = randomPodCIDR()
	}
	ips, err := newIPPool(c.podCIDR)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	// Everything on disk goes under the root dir; cleanups run in reverse order at return.
	var cleanups []func()
	defer func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}()
	if c.rootDir == "" {
		dir, err := os.MkdirTemp("", "hollow-kubelet-"+c.name+".")
		if err != nil {
			return err
		}
		cleanups = append(cleanups, func() { _ = os.RemoveAll(dir) })
		c.rootDir = dir
	}
	if c.rootDir, err = filepath.Abs(c.rootDir); err != nil {
		return err
	}
	if err := os.MkdirAll(c.rootDir, 0o755); err != nil {
		return err
	}

	restConfig, err := clientConfig(c)
	if err != nil {
		return err
	}
	client, err := clientset.NewForConfig(restConfig)
	if err != nil {
		return err
	}

	// The fake runtime, served over CRI's gRPC on a unix socket in the root dir, as a real
	// runtime would be; the kubelet dials it with the stock CRI client.
	rt := newRuntime(client, ips, nodeIP.String())
	go rt.trimCalls(ctx)
	socket := filepath.Join(c.rootDir, "cri.sock")
	_ = os.Remove(socket)
	criListener, err := net.Listen("unix", socket)
	if err != nil {
		return fmt.Errorf("CRI socket: %w", err)
	}
	grpcServer := grpc.NewServer()
	runtimeapi.RegisterRuntimeServiceServer(grpcServer, rt)
	runtimeapi.RegisterImageServiceServer(grpcServer, rt)
	go func() { _ = grpcServer.Serve(criListener) }()
	cleanups = append(cleanups, func() { grpcServer.Stop(); _ = os.Remove(socket) })
	klog.InfoS("Hollow runtime: serving CRI", "endpoint", "unix://"+socket, "podCIDR", c.podCIDR)

	// The control endpoint, loopback only.
	host, _, err := net.SplitHostPort(c.controlAddr)
	if err != nil || net.ParseIP(host) == nil || !net.ParseIP(host).IsLoopback() {
		return fmt.Errorf("--control-addr %q: want a loopback IP:port", c.controlAddr)
	}
	controlListener, err := net.Listen("tcp", c.controlAddr)
	if err != nil {
		return fmt.Errorf("control endpoint: %w", err)
	}
	controlServer := &http.Server{Handler: controlHandler(rt), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = controlServer.Serve(controlListener) }()
	cleanups = append(cleanups, func() { _ = controlServer.Close() })
	actual := controlListener.Addr().String()
	fmt.Fprintf(os.Stderr, "control endpoint listening on %s\n", actual)
	if c.controlAddrFile != "" {
		// Written whole under a temp name then renamed: a reader never sees half an address.
		tmp := c.controlAddrFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(actual+"\n"), 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, c.controlAddrFile); err != nil {
			return err
		}
	}

	runtimeTimeout := 2 * time.Minute // the kubelet's default runtimeRequestTimeout
	runtimeService, err := remote.NewRemoteRuntimeService(ctx, "unix://"+socket, runtimeTimeout, noop.NewTracerProvider(), false)
	if err != nil {
		return fmt.Errorf("CRI runtime client: %w", err)
	}
	imageService, err := remote.NewRemoteImageService(ctx, "unix://"+socket, runtimeTimeout, noop.NewTracerProvider(), false)
	if err != nil {
		return fmt.Errorf("CRI image client: %w", err)
	}

	flags, kcfg := kubemark.GetHollowKubeletConfig(&kubemark.HollowKubeletOptions{
		NodeName:    c.name,
		KubeletPort: c.kubeletPort,
		MaxPods:     110, // the kubelet's default
	})
	// kubemark always makes /tmp/hollow-kubelet.XXXX (static-pods and pod-logs in it); nothing
	// is written there once the dirs below replace it, so it goes at once.
	_ = os.RemoveAll(flags.RootDirectory)
	klog.InfoS("Hollow kubelet: root dir", "path", c.rootDir, "removedKubemarkDir", flags.RootDirectory)
	flags.RootDirectory = c.rootDir
	flags.NodeIP = nodeIP.String()
	kcfg.StaticPodPath = filepath.Join(c.rootDir, "static-pods")
	kcfg.PodLogsDir = filepath.Join(c.rootDir, "pod-logs")
	for _, d := range []string{kcfg.StaticPodPath, kcfg.PodLogsDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	kcfg.Address = nodeIP.String() // the kubelet's server on loopback, not 0.0.0.0
	kcfg.ReadOnlyPort = 0
	kcfg.ClusterDNS, kcfg.ClusterDomain = nil, c.clusterDomain
	if c.clusterDNS != "" {
		kcfg.ClusterDNS = []string{c.clusterDNS}
	}
	kcfg.SyncFrequency = metav1.Duration{Duration: c.syncFrequency}
	kcfg.KubeAPIQPS, kcfg.KubeAPIBurst = int32(c.qps), int32(c.burst)
	kcfg.RuntimeRequestTimeout = metav1.Duration{Duration: runtimeTimeout}

	heartbeatConfig := *restConfig
	heartbeatConfig.Timeout = min(kcfg.NodeStatusUpdateFrequency.Duration, time.Duration(kcfg.NodeLeaseDurationSeconds)*time.Second)
	heartbeatConfig.QPS = -1
	heartbeatClient, err := clientset.NewForConfig(&heartbeatConfig)
	if err != nil {
		return err
	}
	eventConfig := *restConfig // events get their own client and rate limit, as in a real kubelet
	eventConfig.QPS, eventConfig.Burst = float32(kcfg.EventRecordQPS), int(kcfg.EventBurst)
	eventClient, err := clientset.NewForConfig(&eventConfig)
	if err != nil {
		return err
	}

	hk := kubemark.NewHollowKubelet(flags, kcfg, client, heartbeatClient,
		&cadvisortest.Fake{NodeName: c.name}, imageService, runtimeService, cm.NewStubContainerManager())
	deps := hk.KubeletDeps
	deps.ProbeManager = nil // NewMainKubelet then builds the real prober.Manager
	deps.Recorder = nil     // RunKubelet then builds the real recorder (it also starts the OOM watcher: /dev/kmsg, root)
	deps.EventClient = eventClient.CoreV1()
	if err := kubeletapp.RunKubelet(ctx, &options.KubeletServer{KubeletFlags: *flags, KubeletConfiguration: *kcfg}, deps); err != nil {
		return fmt.Errorf("run kubelet: %w", err)
	}
	if nodeIP.IsLoopback() {
		go setLoopbackAddresses(ctx, client, c.name, nodeIP.String())
	}

	<-ctx.Done()
	klog.InfoS("Hollow kubelet: signal received, stopping")
	return nil
}

func clientConfig(c config) (*restclient.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", c.kubeconfig, err)
	}
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cfg.QPS, cfg.Burst = c.qps, c.burst
	cfg.UserAgent = restclient.DefaultKubernetesUserAgent()
	return cfg, nil
}

// setLoopbackAddresses gives the Node its addresses once it is registered. The kubelet refuses
// a loopback node IP ("nodeIP can't be loopback address", logged at each status update) and
// then leaves status.addresses untouched, so what is written here stays; pods get it as hostIP.
func setLoopbackAddresses(ctx context.Context, client clientset.Interface, name, ip string) {
	patch := fmt.Sprintf(`{"status":{"addresses":[{"type":"InternalIP","address":%q},{"type":"Hostname","address":%q}]}}`, ip, name)
	_ = wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
		if err == nil {
			klog.InfoS("Hollow kubelet: node addresses set", "node", name, "internalIP", ip)
		}
		return err == nil, nil
	})
}

// randomPodCIDR: a /24 inside 127.64.0.0/10 (16384 of them), so that hollow kubelets of
// unrelated runs on one host are unlikely to share pod IPs.
func randomPodCIDR() string {
	x := rand.N(1 << 14)
	return fmt.Sprintf("127.%d.%d.0/24", 64+x>>8, x&0xff)
}
