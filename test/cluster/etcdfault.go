// The etcd endpoint kube-apiserver talks to: etcd's own gRPC server for the embedded member (the
// same services, interceptors and limits as its client port), with one fault innermost.
//
// The fault is the one #34 item 7 is about: an error after a write that etcd committed. etcd
// answers "etcdserver: request timed out" when a proposal it has already handed to raft is not
// applied within the request timeout (go.etcd.io/etcd/server/v3 etcdserver/v3_server.go,
// processInternalRaftRequestOnce, then server.go parseProposeCtxErr: ErrTimeout, which
// api/v3rpc/util.go sends as rpctypes.ErrGRPCTimeout), and that proposal may still commit. A single-member etcd on loopback never times
// out by itself, so the interceptor lets the transaction run (it commits) and then answers etcd's
// own ErrGRPCTimeout in place of its result, exactly as etcd would have.
//
// Only writes of keys whose last segment starts with commitTimeoutMarker are touched, and each
// such key only once: a replay or delete of the same object passes, as does everything else.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"go.etcd.io/etcd/server/v3/etcdserver"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc"
	"google.golang.org/grpc"
)

// commitTimeoutMarker starts the name of an object whose first committed write is answered with
// a timeout. kube-apiserver's keys end in the object's name (/registry/configmaps/NS/NAME).
const commitTimeoutMarker = "otc-etcd-commit-timeout-"

const txnMethod = "/etcdserverpb.KV/Txn"

// serveFaultyEtcd serves etcd's gRPC API for server on 127.0.0.1:port with the commit-timeout
// fault; the returned function stops it.
func serveFaultyEtcd(server *etcdserver.EtcdServer, port int) (func(), error) {
	listener, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, fmt.Errorf("the etcd fault port %d: %w", port, err)
	}
	fault := &commitTimeout{fired: map[string]bool{}}
	grpcServer := v3rpc.Server(server, nil, fault.intercept)
	go func() { _ = grpcServer.Serve(listener) }()
	return grpcServer.Stop, nil
}

// commitTimeout remembers the keys it has answered a timeout for.
type commitTimeout struct {
	mu    sync.Mutex
	fired map[string]bool
}

// intercept runs every request; a Txn that puts a marked key and succeeds is answered with a
// timeout the first time. kube-apiserver's etcd client (go.etcd.io/etcd/client/v3 retry.go,
// isSafeRetryMutableRPC) does not send a write again for this error, so its caller sees it.
func (c *commitTimeout) intercept(
	ctx context.Context,
	request any,
	info *grpc.UnaryServerInfo,
	handler grpc.UnaryHandler,
) (any, error) {
	txn, isTxn := request.(*pb.TxnRequest)
	if info.FullMethod != txnMethod || !isTxn {
		return handler(ctx, request)
	}
	key := markedPut(txn)
	if key == "" {
		return handler(ctx, request)
	}
	response, err := handler(ctx, request)
	committed, _ := response.(*pb.TxnResponse)
	if err != nil || committed == nil || !committed.Succeeded || !c.firstTime(key) {
		return response, err
	}
	// The control plane's log says what was done, so a test's reader can tell the fault from etcd.
	fmt.Fprintf(os.Stderr, "test-cluster: etcd fault: the put of %s committed at revision %d; answered %q\n",
		key, committed.Header.GetRevision(), rpctypes.ErrGRPCTimeout.Error())
	return nil, rpctypes.ErrGRPCTimeout
}

func (c *commitTimeout) firstTime(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fired[key] {
		return false
	}
	c.fired[key] = true
	return true
}

// markedPut is the key of the transaction's put (on success) whose last segment carries the
// marker, or "".
func markedPut(txn *pb.TxnRequest) string {
	for _, op := range txn.Success {
		put := op.GetRequestPut()
		if put == nil {
			continue
		}
		key := string(put.Key)
		if strings.HasPrefix(key[strings.LastIndex(key, "/")+1:], commitTimeoutMarker) {
			return key
		}
	}
	return ""
}
