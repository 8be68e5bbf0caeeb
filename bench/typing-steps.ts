// The parent's side of bench/typing-client.ts: a fresh client process, driven one step at a time.
import { fork, type ChildProcess } from 'node:child_process';
import type { StepResult, TypingStep } from './typing-client.ts';

/** The client process, one step at a time. */
export class StepChild {
  readonly #child: ChildProcess;
  #pending: ((reply: { ok?: boolean; result?: StepResult; error?: string }) => void) | undefined;

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.on('message', (reply: { ok?: boolean; result?: StepResult; error?: string }) => {
      const resolve = this.#pending;
      this.#pending = undefined;
      resolve?.(reply);
    });
  }

  static async start(): Promise<StepChild> {
    const child = fork(new URL('./typing-client.ts', import.meta.url), [], {
      execArgv: ['--expose-gc'],
      stdio: 'inherit',
    });
    const started = new StepChild(child);
    await new Promise<void>((resolve) => {
      started.#pending = () => {
        resolve();
      };
    });
    return started;
  }

  run(step: TypingStep): Promise<StepResult> {
    return new Promise((resolve, reject) => {
      this.#pending = (reply) => {
        if (reply.ok && reply.result) resolve(reply.result);
        else reject(new Error(`typing ${step.step}: ${reply.error ?? 'no result'}`));
      };
      this.#child.send(step);
    });
  }

  stop(): void {
    this.#child.kill();
  }
}

/** A fresh client process for `use`, stopped after. */
export async function inFreshChild<T>(use: (child: StepChild) => Promise<T>): Promise<T> {
  const child = await StepChild.start();
  try {
    return await use(child);
  } finally {
    child.stop();
  }
}
