/**
 * The provider sandbox as the image runs it (`provider` command), started beside a consumer on
 * a test network: reached there as http://provider:4000, posting its webhooks to the container
 * aliased `consumer`, with time running 60 times as fast.
 */
import {
  GenericContainer,
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

export function startProviderContainer(
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
