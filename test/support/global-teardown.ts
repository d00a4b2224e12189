/** Stops what global-setup.ts started; jest runs this even when tests failed. */
import type { CrudServer } from './crud-server';
import { RUNNING_CRUD_SERVER } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as typeof globalThis & { [RUNNING_CRUD_SERVER]?: CrudServer };
  const server = holder[RUNNING_CRUD_SERVER];
  delete holder[RUNNING_CRUD_SERVER];
  await server?.stop();
}
