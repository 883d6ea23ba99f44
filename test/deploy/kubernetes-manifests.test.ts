/**
 * docker/kubernetes, checked offline (no cluster runs here): every manifest against the
 * Kubernetes API schemas (kubernetes-models: types, required fields, formats), then the
 * properties an operator relies on, each of which a careless edit could break. What a pod
 * starts with is checked by running the consumer and reconcile with a pod's environment.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { CronJob } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { ConfigMap, PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/consumer/config.ts';
import { CONSUMER_MAIN, RECONCILE_SCRIPT, TRACING_REGISTER } from '../support/entry-points.ts';
import { runScript } from '../support/processes.ts';

const DIR = join(import.meta.dirname, '../../docker/kubernetes');
const MODELS = {
  Deployment,
  CronJob,
  Ingress,
  ConfigMap,
  PersistentVolumeClaim,
  Service,
  NetworkPolicy,
};

// biome-ignore lint/suspicious/noExplicitAny: manifests are read as plain data, then checked.
type Manifest = any;

const kustomization = readYaml('kustomization.yaml')[0];
const manifests: Manifest[] = kustomization.resources.flatMap((file: string) => readYaml(file));
const byKind = (kind: string): Manifest => manifests.find((m) => m.kind === kind);
const deployment = byKind('Deployment');
const cronJob = byKind('CronJob');
const configMap = byKind('ConfigMap');
const podOf = (manifest: Manifest) =>
  manifest.kind === 'CronJob'
    ? manifest.spec.jobTemplate.spec.template.spec
    : manifest.spec.template.spec;

/** The image's own environment: the Dockerfile's ENV instruction (NODE_ENV=production, ...). */
function imageEnv(): Record<string, string> {
  const dockerfile = readFileSync(join(DIR, '../../Dockerfile'), 'utf8');
  const instruction = /^ENV ((?:.*\\\n)*.*)$/m.exec(dockerfile)?.[1] ?? '';
  return Object.fromEntries(
    [...instruction.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1] as string, m[2] as string]),
  );
}

function readYaml(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]?.message}`);
    return document.toJS();
  });
}

describe('Kubernetes manifests (docker/kubernetes)', () => {
  it('are valid against the Kubernetes API schemas', () => {
    expect(manifests.map((m) => m.kind).sort()).toEqual(Object.keys(MODELS).sort());
    for (const manifest of manifests) {
      const Model = MODELS[manifest.kind as keyof typeof MODELS];
      expect(() => new Model(manifest).validate(), manifest.kind).not.toThrow();
    }
  });

  it('run one consumer with Recreate, since SQLite has a single writer', () => {
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
  });

  it('probe liveness on /healthz and readiness on /readyz, on the operations port', () => {
    const [container] = podOf(deployment).containers;
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'operations' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'operations' });
    const operations = container.ports.find((p: Manifest) => p.name === 'operations');
    expect(String(operations.containerPort)).toBe(configMap.data.OPERATIONS_PORT);
  });

  it('give a SIGTERM longer than SHUTDOWN_TIMEOUT_MS before the kill', () => {
    const shutdownMs = Number(configMap.data.SHUTDOWN_TIMEOUT_MS ?? 10_000);
    expect(podOf(deployment).terminationGracePeriodSeconds * 1000).toBeGreaterThan(shutdownMs);
  });

  it.each([
    ['the consumer', () => deployment],
    ['reconciliation', () => cronJob],
  ])('run %s non-root, read-only but for /data and /tmp, with the volume', (_name, get) => {
    const pod = podOf(get());
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    const [container] = pod.containers;
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
    expect(container.volumeMounts.map((m: Manifest) => m.mountPath).sort()).toEqual([
      '/data',
      '/tmp',
    ]);
    const data = pod.volumes.find((v: Manifest) => v.name === 'data');
    expect(data.persistentVolumeClaim.claimName).toBe(
      byKind('PersistentVolumeClaim').metadata.name,
    );
  });

  it('run the consumer and reconciliation with the memory settings of npm start', () => {
    expect(configMap.data.MALLOC_ARENA_MAX).toBe('2');
    expect(configMap.data.NODE_OPTIONS.split(/\s+/)).toEqual(
      expect.arrayContaining(['--max-semi-space-size=2', '--max-old-space-size=256']),
    );
    // The image's tracing start-up too (docs/operating.md#tracing), which OTEL_* turn on.
    expect(configMap.data.NODE_OPTIONS).toContain('--import /app/dist/src/tracing/register.js');
    for (const manifest of [deployment, cronJob]) {
      const [container] = podOf(manifest).containers;
      expect(container.envFrom).toContainEqual({
        configMapRef: { name: configMap.metadata.name },
      });
      // Nothing set on the container itself overrides them.
      const names = (container.env ?? []).map((e: Manifest) => e.name);
      expect(names).not.toContain('NODE_OPTIONS');
      expect(names).not.toContain('MALLOC_ARENA_MAX');
    }
  });

  it('take secrets from a Secret, never from the ConfigMap', () => {
    for (const manifest of [deployment, cronJob]) {
      const [container] = podOf(manifest).containers;
      expect(container.envFrom).toContainEqual({
        secretRef: { name: 'invoicing-webhook-consumer' },
      });
    }
    for (const secret of [
      'WEBHOOK_SECRETS',
      'API_TOKEN',
      'ADMIN_TOKEN',
      'ADMIN_SUBMIT_TOKEN',
      'ADMIN_READ_TOKEN',
      'WEBHOOK_CREDENTIAL',
    ]) {
      expect(configMap.data).not.toHaveProperty(secret);
    }
  });

  it('reconcile on a schedule, never two runs at once, and not long after a missed time', () => {
    expect(cronJob.spec.concurrencyPolicy).toBe('Forbid');
    expect(cronJob.spec.startingDeadlineSeconds).toBeGreaterThan(0);
    expect(podOf(cronJob).containers[0].command).toEqual(['reconcile']);
    // Beside the consumer: a ReadWriteOnce volume is shared by pods of one node only.
    const [affinity] =
      podOf(cronJob).affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution;
    expect(affinity.labelSelector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
  });

  it('expose the webhook port only, and route only /webhooks to it', () => {
    const service = byKind('Service');
    expect(service.spec.ports).toEqual([{ name: 'webhook', port: 80, targetPort: 'webhook' }]);
    expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
    const paths = byKind('Ingress').spec.rules.flatMap((r: Manifest) => r.http.paths);
    expect(paths).toEqual([expect.objectContaining({ path: '/webhooks', pathType: 'Exact' })]);
  });

  it('admit the operations port from the monitoring pods only, the webhook port from all (issue 26)', () => {
    const policy = byKind('NetworkPolicy');
    expect(policy.spec.podSelector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
    const [container] = podOf(deployment).containers;
    const portNames = container.ports.map((p: Manifest) => p.name).sort();
    // Every port of the pod is named in exactly one rule: a new port is closed until listed.
    const rules = policy.spec.ingress.map((rule: Manifest) => ({
      from: rule.from,
      ports: rule.ports.map((p: Manifest) => p.port),
    }));
    expect(rules.flatMap((r: Manifest) => r.ports).sort()).toEqual(portNames);
    const operations = rules.find((r: Manifest) => r.ports.includes('operations'));
    expect(operations.from).toEqual([
      { podSelector: { matchLabels: { 'app.kubernetes.io/component': 'monitoring' } } },
    ]);
    const webhook = rules.find((r: Manifest) => r.ports.includes('webhook'));
    expect(webhook.from).toBeUndefined();
  });

  it.each([
    ['the consumer', () => deployment],
    ['reconciliation', () => cronJob],
  ])('give %s a CPU limit as well as a memory limit (issue 26)', (_name, get) => {
    const [container] = podOf(get()).containers;
    expect(container.resources.limits.cpu).toMatch(/^(\d+m|\d+(\.\d+)?)$/);
    expect(container.resources.limits.memory).toBeDefined();
  });

  it('pin every image by digest (issue 26)', () => {
    const pinned = new Map<string, Manifest>(
      kustomization.images.map((image: Manifest) => [image.name, image]),
    );
    for (const manifest of [deployment, cronJob]) {
      for (const container of podOf(manifest).containers) {
        // Either the image itself names a digest, or kustomize replaces it by one.
        if (container.image.includes('@sha256:')) continue;
        const image = pinned.get(container.image);
        expect(image, container.image).toBeDefined();
        expect(image.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
        expect(image.newTag).toBeUndefined();
      }
    }
  });

  it('require an importer choice as the image does: pods without IMPORTER_MODULE refuse to start, naming it (issue 37)', async () => {
    expect(configMap.data).not.toHaveProperty('IMPORTER_MODULE');
    // A pod's environment: the image's, the ConfigMap's, and the Secret's (test values here).
    const env = {
      ...imageEnv(),
      ...configMap.data,
      WEBHOOK_SECRETS: 'whsec_kubernetes-manifests-test-0123456789',
      API_TOKEN: 'kubernetes-manifests-test-token',
    };
    // The tracing start-up where this checkout has it: the image's compiled file is /app/dist's.
    env.NODE_OPTIONS = env.NODE_OPTIONS?.replace(
      '/app/dist/src/tracing/register.js',
      TRACING_REGISTER,
    );
    expect(env.NODE_ENV).toBe('production');
    const cwd = mkdtempSync(join(tmpdir(), 'kubernetes-pod-'));
    try {
      for (const script of [CONSUMER_MAIN, RECONCILE_SCRIPT]) {
        const { code, output } = await runScript(script, { cwd, env });
        expect(output, script).toContain('IMPORTER_MODULE is required when NODE_ENV=production');
        expect(code, `${script}\n${output}`).toBe(2);
      }
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
    // Once chosen, nothing else in the manifests is missing.
    expect(() => loadConfig({ ...env, IMPORTER_MODULE: 'file' })).not.toThrow();
  });

  it('limit connections and requests per client address at the Ingress (issue 26)', () => {
    const annotations = byKind('Ingress').metadata.annotations;
    const connections = Number(annotations['nginx.ingress.kubernetes.io/limit-connections']);
    const rps = Number(annotations['nginx.ingress.kubernetes.io/limit-rps']);
    // Below the consumer's own limit, so one client cannot fill it through the Ingress.
    expect(connections).toBeGreaterThan(0);
    expect(connections).toBeLessThan(Number(configMap.data.WEBHOOK_MAX_CONNECTIONS ?? 256));
    expect(rps).toBeGreaterThan(0);
  });
});
