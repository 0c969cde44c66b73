// Runs a compose file with podman alone, following it service by service: the opt-in deployment test's
// stand-in for `docker compose`. Debian's podman-compose (1.0.3) ignores depends_on's conditions and
// needs container DNS, which podman's CNI backend here lacks; so this reads the file itself (via
// compose-file.ts) and does what compose does with the parts the file uses: images, commands,
// environment, env files, secrets as read-only files, bind and named volumes, read-only roots and tmpfs, stop
// grace periods, healthchecks, the network's subnet and fixed addresses, service names as host names,
// and depends_on's three conditions. Ports are not published: the test talks to the containers'
// addresses.
import { execFile, spawn } from 'node:child_process';
import { isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';
import { startOrder, secretMounts, type ComposeFile, type ComposeService } from './compose-file.js';

// This test machine's quirks, kept here and out of the user's instructions: its kernel and cgroup setup
// need runc and cgroupfs, and its ulimits are lower than podman's defaults.
const PODMAN_GLOBAL = ['--runtime', 'runc', '--cgroup-manager=cgroupfs'];
const PODMAN_RUN = ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024'];

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** podman with this machine's global flags; never throws on a non-zero exit. */
export function podman(args: string[], { stdin, timeoutMs = 300_000 }: { stdin?: string; timeoutMs?: number } = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('podman', [...PODMAN_GLOBAL, ...args], { stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    // podman says on every start that it has no systemd for healthcheck timers: the test runs them itself.
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr: stderr.replace(/^.*unable to get systemd connection.*\n/gm, '') }));
    child.stdin.end(stdin ?? '');
  });
}

async function must(args: string[], options?: { stdin?: string }): Promise<string> {
  const result = await podman(args, options);
  if (result.code !== 0) throw new Error(`podman ${args.join(' ')} exited ${result.code}: ${result.stderr || result.stdout}`);
  return result.stdout;
}

const seconds = (duration: string | undefined, fallback: number) => (duration === undefined ? fallback : Number.parseInt(duration, 10));

export class PodmanProject {
  readonly addresses = new Map<string, string>();
  private readonly network: string;

  constructor(
    readonly file: ComposeFile,
    /** The folder compose.yaml is in: relative paths in it are relative to this. */
    private readonly dir: string,
  ) {
    this.network = `${file.name}_default`;
    const subnet = file.networks?.default?.ipam?.config?.[0]?.subnet;
    if (subnet === undefined || !/^\d+\.\d+\.\d+\.0\/24$/.test(subnet)) throw new Error('the runner needs networks.default with a /24 subnet');
    const prefix = subnet.replace(/\.0\/24$/, '');
    let next = 100;
    for (const name of startOrder(file)) this.addresses.set(name, file.services[name]!.networks?.default?.ipv4_address ?? `${prefix}.${next++}`);
  }

  container(service: string): string {
    return `${this.file.name}-${service}`;
  }

  /** Every service in depends_on's order, each once its dependencies meet their conditions. */
  async up(): Promise<void> {
    const subnet = this.file.networks!.default!.ipam!.config![0]!.subnet;
    await must(['network', 'create', '--subnet', subnet, this.network]);
    for (const name of Object.keys(this.file.volumes ?? {})) await must(['volume', 'create', `${this.file.name}_${name}`]);
    for (const name of startOrder(this.file)) await this.start(name);
  }

  /** Starts one service (after its dependencies' conditions hold), as `compose up --no-deps` does. */
  async start(name: string, { image }: { image?: string } = {}): Promise<void> {
    const service = this.file.services[name]!;
    for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
      if (condition === 'service_healthy') await this.waitHealthy(dependency);
      if (condition === 'service_completed_successfully') {
        const code = Number((await must(['wait', this.container(dependency)])).trim());
        if (code !== 0) throw new Error(`${dependency} exited ${code}: ${await this.logs(dependency)}`);
      }
    }
    await podman(['rm', '--force', this.container(name)]);
    await must(['run', '--detach', ...this.runOptions(name, service), image ?? service.image, ...(service.command ?? [])]);
  }

  /** `podman run --rm` of a service's image and settings with another command (compose run --rm). */
  run(name: string, command: string[], options: { stdin?: string; image?: string } = {}): Promise<CommandResult> {
    const service = this.file.services[name]!;
    const runOptions = this.runOptions(name, service).filter((option) => !option.startsWith('--name=') && !option.startsWith('--ip='));
    return podman(['run', '--rm', '--interactive', ...runOptions, options.image ?? service.image, ...command], options);
  }

  private runOptions(name: string, service: ComposeService): string[] {
    const hostPath = (path: string) => (isAbsolute(path) ? path : join(this.dir, path));
    const options = [...PODMAN_RUN, `--name=${this.container(name)}`, `--network=${this.network}`, `--ip=${this.addresses.get(name)}`, `--hostname=${name}`];
    for (const [other, address] of this.addresses) if (other !== name) options.push(`--add-host=${other}:${address}`);
    for (const [variable, value] of Object.entries(service.environment ?? {})) options.push(`--env=${variable}=${value}`);
    for (const file of service.env_file ?? []) options.push(`--env-file=${hostPath(file)}`);
    for (const { source, target } of secretMounts(service)) options.push(`--volume=${hostPath(this.file.secrets[source]!.file)}:${target}:ro`);
    for (const volume of service.volumes ?? []) {
      const [source, ...rest] = volume.split(':');
      options.push(`--volume=${source!.startsWith('.') || source!.startsWith('/') ? hostPath(source!) : `${this.file.name}_${source}`}:${rest.join(':')}`);
    }
    // podman mounts tmpfs on /tmp, /run and /var/tmp of a read-only container unless told not to; docker
    // does not, so the file's own tmpfs list is all the container gets here too.
    if (service.read_only) options.push('--read-only', '--read-only-tmpfs=false');
    for (const path of service.tmpfs ?? []) options.push(`--tmpfs=${path}`);
    if (service.stop_grace_period !== undefined) options.push(`--stop-timeout=${seconds(service.stop_grace_period, 10)}`);
    if (service.healthcheck !== undefined) {
      const [kind, ...command] = service.healthcheck.test;
      options.push(kind === 'CMD' ? `--health-cmd=${JSON.stringify(command)}` : `--health-cmd=${command.join(' ')}`);
      options.push(`--health-interval=${service.healthcheck.interval ?? '30s'}`);
    }
    return options;
  }

  /** Runs the container's healthcheck (podman has no systemd timer here) until it passes. */
  async waitHealthy(name: string, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const result = await podman(['healthcheck', 'run', this.container(name)]);
      if (result.code === 0) return;
      if (Date.now() > deadline) throw new Error(`${name} is not healthy after ${timeoutMs} ms: ${result.stdout}${result.stderr}\n${await this.logs(name)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /** Stops a service as compose does (its stop signal, then its grace period) and returns its exit code and the time it took. */
  async stop(name: string): Promise<{ exitCode: number; ms: number }> {
    const started = Date.now();
    await must(['stop', this.container(name)]);
    const ms = Date.now() - started;
    return { exitCode: Number((await must(['inspect', '--format', '{{.State.ExitCode}}', this.container(name)])).trim()), ms };
  }

  async logs(name: string): Promise<string> {
    const result = await podman(['logs', '--tail', '40', this.container(name)]);
    return result.stdout + result.stderr;
  }

  async down(): Promise<void> {
    for (const name of startOrder(this.file).reverse()) await podman(['rm', '--force', '--time', '5', this.container(name)]);
    await podman(['network', 'rm', '--force', this.network]);
    for (const name of Object.keys(this.file.volumes ?? {})) await podman(['volume', 'rm', '--force', `${this.file.name}_${name}`]);
  }
}

/** A shell script's output and exit code (build.sh, build-standins.sh, make-secrets.sh). */
export async function sh(script: string, args: string[] = [], env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await promisify(execFile)('sh', [script, ...args], { env: { ...process.env, ...env }, maxBuffer: 16 << 20 });
  return stdout;
}
