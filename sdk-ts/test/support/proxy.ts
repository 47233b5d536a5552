/** A loopback TCP proxy that can cut every connection and refuse new ones for a while, and
 * rewrite each connection's request head: the tests' way to drop an agent's socket, or change
 * what it asks, without touching the platform. */

import { createServer, connect, type Server, type Socket } from "node:net";

export class TcpProxy {
  private server: Server | null = null;
  private readonly open = new Set<Socket>();
  private refusing = false;
  public port = 0;
  /** Connections whose first chunk (the request head) `rewrite` changed. */
  public rewritten = 0;

  public constructor(
    private readonly targetPort: number,
    private readonly rewrite: ((head: string) => string) | null = null,
  ) {}

  public async start(): Promise<number> {
    this.server = createServer((client) => {
      if (this.refusing) {
        client.destroy();
        return;
      }
      const upstream = connect(this.targetPort, "127.0.0.1");
      this.open.add(client);
      this.open.add(upstream);
      upstream.pipe(client);
      const rewrite = this.rewrite;
      if (rewrite === null) client.pipe(upstream);
      else {
        client.once("data", (chunk: Buffer) => {
          const head = chunk.toString("latin1");
          const changed = rewrite(head);
          if (changed !== head) this.rewritten += 1;
          upstream.write(Buffer.from(changed, "latin1"));
          client.pipe(upstream);
        });
      }
      const drop = (): void => {
        client.destroy();
        upstream.destroy();
        this.open.delete(client);
        this.open.delete(upstream);
      };
      client.on("error", drop).on("close", drop);
      upstream.on("error", drop).on("close", drop);
    });
    await new Promise<void>((done) => this.server?.listen(0, "127.0.0.1", done));
    const address = this.server.address();
    this.port = typeof address === "object" && address ? address.port : 0;
    return this.port;
  }

  /** Cut every connection and refuse new ones until `resume()`. */
  public cut(): void {
    this.refusing = true;
    for (const socket of this.open) socket.destroy();
    this.open.clear();
  }

  public resume(): void {
    this.refusing = false;
  }

  public async close(): Promise<void> {
    this.cut();
    const server = this.server;
    if (server === null) return;
    await new Promise<void>((done) => {
      server.close(() => {
        done();
      });
    });
  }
}
