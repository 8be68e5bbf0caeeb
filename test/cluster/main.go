// Command test-cluster runs a real etcd and kube-apiserver on loopback for the library's tests.
//
// It is test tooling, never part of the npm package. scripts/cluster.ts prepares the certificates,
// the token file and the audit policy, then starts this program with the etcd data directory, the
// etcd client port, the port of etcd's API with a fault (etcdfault.go; kube-apiserver's
// --etcd-servers names it) and, after "--", kube-apiserver's own flags. One process holds both servers, so
// nothing outlives it; and it exits when its standard input closes, which is how it notices that the
// Node parent died, even by SIGKILL.
//
// `test-cluster supervise -- COMMAND ARGS...` runs another server under the same rule
// (supervise.go): the tier starts openshift-apiserver that way.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == "supervise" && os.Args[2] == "--" {
		if err := supervise(os.Args[3:]); err != nil {
			fmt.Fprintf(os.Stderr, "test-cluster: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "test-cluster: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	dataDir := flag.String("etcd-data-dir", "", "etcd's data directory (required)")
	clientPort := flag.Int("etcd-client-port", 0, "etcd's client port on 127.0.0.1 (required)")
	peerPort := flag.Int("etcd-peer-port", 0, "etcd's peer port on 127.0.0.1 (required)")
	faultPort := flag.Int("etcd-fault-port", 0, "etcd's API with the commit-timeout fault on 127.0.0.1 (required)")
	watchStdin := flag.Bool("exit-on-stdin-eof", true, "exit when standard input closes")
	flag.Parse()
	if *dataDir == "" || *clientPort == 0 || *peerPort == 0 || *faultPort == 0 {
		return errors.New("--etcd-data-dir, --etcd-client-port, --etcd-peer-port and --etcd-fault-port are required")
	}
	if *watchStdin {
		go exitOnStdinEOF()
	}

	etcd, err := startEtcd(*dataDir, *clientPort, *peerPort)
	if err != nil {
		return err
	}
	defer etcd.Close()
	stopFault, err := serveFaultyEtcd(etcd.Server, *faultPort)
	if err != nil {
		return err
	}
	defer stopFault()

	command := app.NewAPIServerCommand()
	command.SetArgs(flag.Args())
	return command.ExecuteContext(context.Background())
}

// startEtcd starts an embedded single-member etcd listening on 127.0.0.1 only.
func startEtcd(dataDir string, clientPort, peerPort int) (*embed.Etcd, error) {
	config := embed.NewConfig()
	config.Name = "test-cluster"
	config.Dir = dataDir
	config.LogLevel = "error"
	client := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", clientPort)}
	peer := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", peerPort)}
	config.ListenClientUrls = []url.URL{client}
	config.AdvertiseClientUrls = []url.URL{client}
	config.ListenPeerUrls = []url.URL{peer}
	config.AdvertisePeerUrls = []url.URL{peer}
	config.InitialCluster = config.InitialClusterFromName(config.Name)
	// No metrics or pprof listeners: nothing but the two ports above (and the fault port) opens.
	config.ListenMetricsUrls = nil
	etcd, err := embed.StartEtcd(config)
	if err != nil {
		return nil, fmt.Errorf("etcd did not start: %w", err)
	}
	select {
	case <-etcd.Server.ReadyNotify():
		return etcd, nil
	case err := <-etcd.Err():
		etcd.Close()
		return nil, fmt.Errorf("etcd failed while starting: %w", err)
	case <-time.After(60 * time.Second):
		etcd.Close()
		return nil, errors.New("etcd was not ready within 60 s")
	}
}

// exitOnStdinEOF ends the process when the parent's end of standard input closes. kube-apiserver
// installs its own SIGTERM handler, so a signal to ourselves lets it shut down as it would.
func exitOnStdinEOF() {
	_, _ = io.Copy(io.Discard, os.Stdin)
	fmt.Fprintln(os.Stderr, "test-cluster: standard input closed (the parent is gone): stopping")
	_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	// If the graceful shutdown hangs, do not outlive the parent for long.
	time.Sleep(10 * time.Second)
	os.Exit(2)
}
