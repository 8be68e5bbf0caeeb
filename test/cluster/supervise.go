package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// supervise runs another server (openshift-apiserver) under the same rule as this program's own:
// it stops when standard input closes, so it never outlives the Node parent, even one killed by
// SIGKILL. SIGTERM and SIGINT are passed on; the child's exit is ours.
func supervise(args []string) error {
	if len(args) == 0 {
		return errors.New("supervise: no command given")
	}
	child := exec.Command(args[0], args[1:]...)
	child.Stdout = os.Stdout
	child.Stderr = os.Stderr
	// Should this process die without closing down the child, the kernel kills it.
	child.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := child.Start(); err != nil {
		return fmt.Errorf("supervise: %w", err)
	}
	stop := func() {
		_ = child.Process.Signal(syscall.SIGTERM)
		// A graceful shutdown that hangs does not keep the child alive for long.
		time.AfterFunc(10*time.Second, func() { _ = child.Process.Kill() })
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-signals
		stop()
	}()
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		fmt.Fprintln(os.Stderr, "test-cluster supervise: standard input closed (the parent is gone): stopping")
		stop()
	}()
	err := child.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
	return err
}
