// HTTP/1.1 keep-alive as kube-apiserver keeps it: a connection idle between requests for 90 s is
// closed, and no `Keep-Alive` header announces the limit (Go's net/http never sends one). Node's
// own keep-alive would close after 5 s and announce it, which a client such as undici then obeys:
// a simulator doing that would hide how a client treats a server that keeps quiet about it.
// Source: kubernetes/apiserver pkg/server/secure_serving.go, `IdleTimeout: 90 * time.Second`.
// Not modelled: that server's `ReadHeaderTimeout` (32 s), which closes a connection whose first
// request does not come; nothing here opens a connection and then sends nothing.
import type { Http2SecureServer } from 'node:http2';
import type { Server } from 'node:https';
import type { Socket } from 'node:net';

export const IDLE_CLOSE_MS = 90_000;

/** One connection's requests in progress, and the timer that closes it once there are none. */
interface Idle {
  open: number;
  timer?: NodeJS.Timeout;
}

/** What both servers' requests and answers have, HTTP/1.1's and HTTP/2's alike. */
interface Request {
  httpVersionMajor: number;
  socket: Socket;
}
interface Response {
  once(event: 'close', listener: () => void): unknown;
}

function idleOf(states: WeakMap<Socket, Idle>, socket: Socket): Idle {
  const known = states.get(socket);
  if (known) return known;
  const state: Idle = { open: 0 };
  socket.once('close', () => {
    clearTimeout(state.timer);
  });
  states.set(socket, state);
  return state;
}

/**
 * Node's keep-alive timer and header off (an HTTP/2 server's HTTP/1.1 side has neither), and the
 * 90 s idle close of kube-apiserver instead.
 */
export function keepAliveAsKubeApiserver(server: Server | Http2SecureServer): void {
  if ('keepAliveTimeout' in server) server.keepAliveTimeout = 0;
  const states = new WeakMap<Socket, Idle>();
  server.on('request', (req: Request, res: Response) => {
    // HTTP/2 requests are streams of a session, judged by the session's own rules.
    if (req.httpVersionMajor !== 1) return;
    const { socket } = req;
    const state = idleOf(states, socket);
    clearTimeout(state.timer);
    state.open += 1;
    res.once('close', () => {
      state.open -= 1;
      // A socket that closed under its answer needs no timer (its own close ran first).
      if (state.open > 0 || socket.destroyed) return;
      state.timer = setTimeout(() => socket.end(), IDLE_CLOSE_MS);
      state.timer.unref();
    });
  });
}
