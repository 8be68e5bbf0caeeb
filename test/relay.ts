// A TCP relay between the library and the simulator, standing in for a load balancer: it can
// freeze the connections it carries — stop forwarding in both directions and keep both sockets
// open, as a silent failover does (no FIN, no RST) — while new connections still go through; and
// it can hold each new connection for a while before it reaches the simulator (a slow handshake).
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface Relay {
  /** `https://127.0.0.1:port`, to put in a kubeconfig instead of the simulator's URL. */
  url: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Stops forwarding on every connection open now; later connections forward as usual. */
  freeze(): void;
  close(): Promise<void>;
}

export async function startRelay(target: string, { delayMs = 0 }: { delayMs?: number } = {}): Promise<Relay> {
  const port = Number(new URL(target).port);
  const pairs = new Set<{ client: Socket; upstream: Socket; frozen: boolean }>();
  const clients = new Set<Socket>();
  let accepted = 0;
  const relay = (client: Socket): void => {
    const upstream = connect(port, '127.0.0.1');
    const pair = { client, upstream, frozen: false };
    pairs.add(pair);
    const forward = (from: Socket, to: Socket): void => {
      from.on('data', (chunk: Buffer) => {
        // A frozen path swallows everything: nothing arrives, nothing is refused.
        if (!pair.frozen) to.write(chunk);
      });
    };
    forward(client, upstream);
    forward(upstream, client);
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', () => {
        // A frozen path does not pass a close on either: the other side never hears of it.
        if (!pair.frozen) end();
      });
    }
  };
  const server: Server = createServer((client) => {
    accepted += 1;
    clients.add(client);
    client.on('close', () => clients.delete(client));
    client.on('error', () => client.destroy());
    if (delayMs === 0) {
      relay(client);
      return;
    }
    // Held, not read: what the client sends waits in the socket until the relay starts.
    client.pause();
    setTimeout(() => {
      if (client.destroyed) return;
      relay(client);
      client.resume();
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `https://127.0.0.1:${address.port}`,
    get accepted() {
      return accepted;
    },
    freeze: () => {
      for (const pair of pairs) pair.frozen = true;
    },
    close: async () => {
      for (const pair of pairs) pair.upstream.destroy();
      for (const client of clients) client.destroy();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}
