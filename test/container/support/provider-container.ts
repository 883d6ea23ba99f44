/**
 * The provider sandbox as the image runs it (`provider` command), started beside a consumer on
 * a test network: reached there as http://provider:4000, posting its webhooks to the container
 * aliased `consumer`, with time running 60 times as fast. And that consumer: its settings and
 * its container.
 */
import {
  GenericContainer,
  Network,
  type StartedNetwork,
  type StartedTestContainer,
  Wait,
} from 'testcontainers';
import { CONSUMER_IMAGE } from './images.ts';

export interface ProviderContainerOptions {
  /** The webhook signing secret the consumer verifies with. */
  webhookSecret: string;
  /** A token for its admin API. @default none: the admin API answers anyone on the network */
  adminToken?: string;
}

function startProviderContainer(
  network: StartedNetwork,
  options: ProviderContainerOptions,
): Promise<StartedTestContainer> {
  return new GenericContainer(CONSUMER_IMAGE)
    .withCommand(['provider'])
    .withNetwork(network)
    .withNetworkAliases('provider')
    .withEnvironment({
      PROVIDER_HOST: '0.0.0.0',
      // The consumer calls it by this name; its guard refuses other names (DNS rebinding).
      PROVIDER_ALLOWED_HOSTS: 'provider',
      ...(options.adminToken === undefined ? {} : { PROVIDER_ADMIN_TOKEN: options.adminToken }),
      PROVIDER_WEBHOOK_URL: 'http://consumer:3000/webhooks',
      PROVIDER_WEBHOOK_SECRET: options.webhookSecret,
      PROVIDER_TIME_SCALE: '60',
    })
    .withExposedPorts(4000)
    .withWaitStrategy(Wait.forLogMessage('Provider simulator listening'))
    .start();
}

/**
 * A consumer's settings beside the provider container: verifying with the provider's
 * `webhookSecret`, its messaging API the provider over the test network's plain HTTP.
 */
export function consumerEnvBesideProvider(options: {
  webhookSecret: string;
  /** The consumer's own ADMIN_TOKEN. */
  adminToken: string;
}): Record<string, string> {
  return {
    WEBHOOK_SECRETS: options.webhookSecret,
    API_BASE_URL: 'http://provider:4000',
    API_ALLOW_INSECURE_HTTP: 'true',
    API_TOKEN: 'sandbox-token',
    ADMIN_TOKEN: options.adminToken,
  };
}

/** A test network with the provider sandbox on it, for consumer containers beside it. */
export interface SandboxNetwork {
  network: StartedNetwork;
  provider: StartedTestContainer;
  /** The provider's base URL from this host (its mapped port). */
  providerUrl(): string;
  /**
   * A consumer container of `image` on the network, where the provider posts its webhooks
   * (alias `consumer`), with `env`, its webhook (3000) and operations (3001) ports mapped,
   * ready once /readyz answers; not started, so that a test can add to it.
   */
  consumer(image: string, env: Record<string, string>): GenericContainer;
  /** Stops the provider and removes the network (stop the consumers first). */
  stop(): Promise<void>;
}

export async function startSandboxNetwork(
  options: ProviderContainerOptions,
): Promise<SandboxNetwork> {
  const network = await new Network().start();
  const provider = await startProviderContainer(network, options).catch(async (error) => {
    await network.stop();
    throw error;
  });
  return {
    network,
    provider,
    providerUrl: () => `http://${provider.getHost()}:${provider.getMappedPort(4000)}`,
    consumer: (image, env) =>
      new GenericContainer(image)
        .withNetwork(network)
        .withNetworkAliases('consumer')
        .withEnvironment(env)
        .withExposedPorts(3000, 3001)
        .withWaitStrategy(Wait.forHttp('/readyz', 3001)),
    async stop() {
      await provider.stop();
      await network.stop();
    },
  };
}
